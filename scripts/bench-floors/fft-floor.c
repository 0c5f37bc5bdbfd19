/* The live FFT floor of scripts/bench: what `pulsemeter monitor --bands 64 --fps 60` has to do
 * at least, and nothing else. Reads a PulseAudio source (s16 stereo, 48 kHz) with libpulse's
 * simple API one 60 fps hop (800 frames) at a time, and per hop runs the same transform:
 * the mono mix of the last 2048 samples times a periodic Hann window, FFTW's 2048-point
 * single-precision r2c, and |X[k]|^2 summed into 64 log-spaced bands (50 Hz to 16 kHz, each
 * at least one bin) in dB. No output per hop; the last band levels are printed at the end.
 * Runs until SIGINT.
 *   cc -O2 -o fft-floor fft-floor.c -lpulse-simple -lpulse -lfftw3f -lm && ./fft-floor SOURCE */
#include <fftw3.h>
#include <math.h>
#include <pulse/error.h>
#include <pulse/simple.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

enum { RATE = 48000, HOP = 800, N = 2048, BANDS = 64 };
static volatile sig_atomic_t stop;
static void on_signal(int s) { (void)s; stop = 1; }

int main(int argc, char **argv) {
  pa_sample_spec spec = { .format = PA_SAMPLE_S16LE, .rate = RATE, .channels = 2 };
  pa_buffer_attr attr = { (uint32_t)-1, (uint32_t)-1, (uint32_t)-1, (uint32_t)-1, HOP * 4 };
  int err = 0;
  if (argc < 2) return 2;
  pa_simple *s = pa_simple_new(NULL, "fft-floor", PA_STREAM_RECORD, argv[1], "floor", &spec, NULL, &attr, &err);
  if (!s) { fprintf(stderr, "fft-floor: %s\n", pa_strerror(err)); return 1; }
  struct sigaction sa = { .sa_handler = on_signal };
  sigaction(SIGINT, &sa, NULL);
  static short in[HOP * 2];
  static float history[N], window[N];
  float *x = fftwf_alloc_real(N);
  fftwf_complex *X = fftwf_alloc_complex(N / 2 + 1);
  fftwf_plan plan = fftwf_plan_dft_r2c_1d(N, x, X, FFTW_ESTIMATE | FFTW_DESTROY_INPUT);
  double scale = 0;
  for (int i = 0; i < N; i++) { window[i] = 0.5f - 0.5f * cosf(2 * (float)M_PI * i / N); scale += window[i] * window[i]; }
  scale = 2 / (N * scale);
  int edge[BANDS + 1];
  double bin_hz = (double)RATE / N;
  for (int b = 0; b <= BANDS; b++) edge[b] = (int)ceil(50 * pow(16000.0 / 50, (double)b / BANDS) / bin_hz);
  for (int b = 1; b <= BANDS; b++) if (edge[b] <= edge[b - 1]) edge[b] = edge[b - 1] + 1;
  float db[BANDS] = {0};
  while (!stop && pa_simple_read(s, in, sizeof in, &err) >= 0) {
    memmove(history, history + HOP, (N - HOP) * sizeof *history);
    for (int i = 0; i < HOP; i++) history[N - HOP + i] = (in[2 * i] + in[2 * i + 1]) * (0.5f / 32768);
    for (int i = 0; i < N; i++) x[i] = history[i] * window[i];
    fftwf_execute(plan);
    for (int b = 0; b < BANDS; b++) {
      float p = 0;
      for (int k = edge[b]; k < edge[b + 1]; k++) p += X[k][0] * X[k][0] + X[k][1] * X[k][1];
      db[b] = p > 0 ? 10 * log10f(p * scale) : -160;
    }
  }
  for (int b = 0; b < BANDS; b++) printf("%.1f ", db[b]);
  printf("\n");
  fftwf_destroy_plan(plan);
  pa_simple_free(s);
  return 0;
}

/* The vectorized levels floor of scripts/bench: what levels-only `pulsemeter analyze` of a
 * 16-bit PCM WAV has to do at least, and nothing else. The WAV's data chunk is read with
 * read(2) in 64 KiB blocks; per channel the sum of squares and the peak magnitude, and for
 * two or more channels the cross product of the first two (the correlation's L*R), each block
 * summed in Float (vectorized by gcc -O3 -ffast-math) and added to Double totals. Built for the
 * same x86-64 baseline as the product (no -march). Prints the totals so nothing is optimized out.
 *   cc -O3 -ffast-math -o levels-floor levels-floor.c && ./levels-floor FILE.wav */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { BLOCK = 65536, MAXCH = 32 };

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* Positions fd at the data chunk of a RIFF/WAVE file of 16-bit PCM; returns the channel
 * count and the data's length in bytes, or 0 when it is not such a file. */
static int find_data(int fd, uint64_t *bytes) {
  unsigned char h[12], c[8], fmt[16];
  int channels = 0;
  if (read(fd, h, 12) != 12 || memcmp(h, "RIFF", 4) || memcmp(h + 8, "WAVE", 4)) return 0;
  while (read(fd, c, 8) == 8) {
    uint32_t size = le32(c + 4);
    if (!memcmp(c, "fmt ", 4)) {
      if (size < 16 || read(fd, fmt, 16) != 16) return 0;
      if (fmt[14] != 16) return 0; /* bits per sample */
      channels = fmt[2] | fmt[3] << 8;
      lseek(fd, (size - 16) + (size & 1), SEEK_CUR);
    } else if (!memcmp(c, "data", 4)) {
      *bytes = size;
      return channels;
    } else {
      lseek(fd, size + (size & 1), SEEK_CUR);
    }
  }
  return 0;
}

/* Stereo: one pass over the interleaved block for both channels and their product. */
static void stereo_block(const int16_t *in, size_t frames, double sum[2], double *cross, float peak[2]) {
  float sl = 0, sr = 0, slr = 0, pl = peak[0], pr = peak[1];
  for (size_t i = 0; i < frames; i++) {
    float l = in[2 * i] * (1.0f / 32768), r = in[2 * i + 1] * (1.0f / 32768);
    sl += l * l;
    sr += r * r;
    slr += l * r;
    pl = fmaxf(pl, fabsf(l));
    pr = fmaxf(pr, fabsf(r));
  }
  sum[0] += sl; sum[1] += sr; *cross += slr;
  peak[0] = pl; peak[1] = pr;
}

/* Any other channel count: one pass per channel over the block. */
static void channel_block(const int16_t *in, size_t frames, int channels, double *sum, float *peak) {
  for (int c = 0; c < channels; c++) {
    float s = 0, p = peak[c];
    for (size_t i = 0; i < frames; i++) {
      float x = in[i * channels + c] * (1.0f / 32768);
      s += x * x;
      p = fmaxf(p, fabsf(x));
    }
    sum[c] += s;
    peak[c] = p;
  }
}

int main(int argc, char **argv) {
  static int16_t in[BLOCK / 2];
  double sum[MAXCH] = {0}, cross = 0;
  float peak[MAXCH] = {0};
  uint64_t left = 0, frames = 0;
  if (argc < 2) return 2;
  int fd = open(argv[1], O_RDONLY);
  int channels = fd < 0 ? 0 : find_data(fd, &left);
  if (channels < 1 || channels > MAXCH) { fprintf(stderr, "levels-floor: not a 16-bit PCM WAV\n"); return 1; }
  size_t frame_bytes = 2 * (size_t)channels, carry = 0;
  while (left > 0) {
    size_t want = BLOCK - carry;
    if (want > left) want = left;
    ssize_t got = read(fd, (char *)in + carry, want);
    if (got <= 0) break;
    left -= got;
    size_t bytes = carry + got, n = bytes / frame_bytes;
    if (channels == 2) stereo_block(in, n, sum, &cross, peak);
    else channel_block(in, n, channels, sum, peak);
    frames += n;
    carry = bytes - n * frame_bytes;
    memmove(in, (char *)in + n * frame_bytes, carry);
  }
  for (int c = 0; c < channels; c++)
    printf("%d rms %.2f peak %.2f\n", c, 10 * log10(sum[c] / (frames ? frames : 1)), 20 * log10(peak[c]));
  if (channels >= 2) printf("L*R %g\n", cross);
  close(fd);
  return 0;
}

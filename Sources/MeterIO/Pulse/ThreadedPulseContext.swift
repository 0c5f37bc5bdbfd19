import CPulse
import MeterCore
import Synchronization

/// A connection on libpulse's asynchronous API for the sources that need what the simple API
/// cannot do (follow events, restrict a stream to a sink input, move a stream): a
/// `pa_threaded_mainloop` running its own thread, one `pa_context`, subscribed to `mask`
/// (`pa_context_subscribe`). Every event runs the owner's `onChange` on the loop's thread, so
/// the owner looks again there, never on the thread that reads.
///
/// Thread-safety invariant for `@unchecked Sendable`: libpulse objects and `onChange` are
/// touched only with the main loop's lock held (`locked`) or from its callbacks (which hold
/// it); the flags are atomics and `wake` a semaphore.
final class ThreadedPulseContext: @unchecked Sendable {
    let mainloop: OpaquePointer
    let context: OpaquePointer
    /// Runs at every subscribed event (and whenever the owner learns something changed), on the
    /// loop's thread or with its lock held; set it with the lock held.
    var onChange: (() -> Void)?
    /// The connection failed or the server went away.
    let lost = Atomic<Bool>(false)
    let wake = Wakeup()
    private let stopped = Atomic<Bool>(false)
    /// The run was stopped (`interrupt`): the waits here give up.
    private let interrupted = Atomic<Bool>(false)

    /// Connects (throwing `cannotConnect` when no server answers, `noAnswer` at once when
    /// `cancellation` fires meanwhile: the caller knows it stopped) and subscribes to `mask`.
    init(subscribe mask: pa_subscription_mask_t, cancellation: Cancellation? = nil) throws(PulseError) {
        try PulseLibrary.require()
        guard let ml = pa.threaded_mainloop_new() else { throw .cannotStart(what: "a PulseAudio main loop") }
        mainloop = ml
        context = try PulseDevices.newContext(pa.threaded_mainloop_get_api(ml)) { pa.threaded_mainloop_free(ml) }
        let ud = Unmanaged.passUnretained(self).toOpaque()
        pa.context_set_state_callback(context, { ctx, ud in
            let me = Unmanaged<ThreadedPulseContext>.fromOpaque(ud!).takeUnretainedValue()
            let state = pa.context_get_state(ctx)
            if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                me.lost.store(true, ordering: .releasing)
                me.wake.signal()
            }
            pa.threaded_mainloop_signal(me.mainloop, 0)
        }, ud)
        pa.context_set_subscribe_callback(context, { _, _, _, ud in
            Unmanaged<ThreadedPulseContext>.fromOpaque(ud!).takeUnretainedValue().onChange?()
        }, ud)
        let stop = cancellation?.onCancel { [self] in interrupt() }
        defer { if let cancellation, let stop { cancellation.remove(stop) } }
        try locked { () throws(PulseError) in
            guard pa.context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0,
                  pa.threaded_mainloop_start(mainloop) >= 0 else { throw connectError() }
            while true {
                let state = pa.context_get_state(context)
                if state == PA_CONTEXT_READY { break }
                if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED { throw connectError() }
                if interrupted.load(ordering: .acquiring) { throw .noAnswer(server: PulseStream.serverDescription) }
                pa.threaded_mainloop_wait(mainloop)
            }
            if let op = pa.context_subscribe(context, mask, nil, nil) { pa.operation_unref(op) }
        }
    }

    private func connectError() -> PulseError {
        .cannotConnect(server: PulseStream.serverDescription, reason: errorText)
    }

    /// The context's last error (`pa_strerror`).
    var errorText: String { pa.errorText(pa.context_errno(context)) }

    /// Runs `body` with the main loop's lock held.
    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pa.threaded_mainloop_lock(mainloop)
        defer { pa.threaded_mainloop_unlock(mainloop) }
        return try body()
    }

    /// A stop request (a `Cancellation` wake-up, from any thread): every wait here ends, the
    /// connect's and a read's on `wake`. Takes the loop's lock only as
    /// long as a callback holds it.
    func interrupt() {
        interrupted.store(true, ordering: .releasing)
        wake.signal()
        locked { pa.threaded_mainloop_signal(mainloop, 0) }
    }

    /// Stops the main loop's thread (`pa_threaded_mainloop_stop`): no callback runs after it,
    /// so the owner may free its streams (the connection counts as lost from then on).
    /// Idempotent; never with the lock held.
    ///
    /// Owners call it in their `deinit`, before they let go of this object: a callback holds
    /// the object while it runs, and were its release the last one, `deinit` would run on the
    /// loop's own thread, where libpulse aborts the process rather than stop the loop.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        pa.threaded_mainloop_stop(mainloop)
        lost.store(true, ordering: .releasing)
        locked { pa.threaded_mainloop_signal(mainloop, 0) }
    }

    deinit {
        stop()
        pa.context_disconnect(context)
        pa.context_unref(context)
        pa.threaded_mainloop_free(mainloop)
    }
}

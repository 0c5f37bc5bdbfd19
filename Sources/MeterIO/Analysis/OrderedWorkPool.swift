import Glibc

/// Runs jobs on a fixed number of worker threads and hands each result to the calling thread,
/// in job order (or, unordered, as each finishes). Memory is bounded by the worker count,
/// never by the number of jobs: a worker takes a job only while fewer than 2 x `workers` jobs
/// are taken and not yet delivered, so at most that many results exist at once, finished or
/// not. While a slow job at the head of the order runs, the other workers go on with up to
/// `workers` more jobs instead of idling (short files behind a long one), then wait; they never
/// pile up.
///
/// `next` is called from the worker threads one call at a time, under a lock of its own and
/// outside the pool's (it may block reading a list from stdin: a stalled list never holds back
/// the delivery of finished jobs). `deliver` runs on the caller's thread, outside the locks;
/// its first error stops the hand-out of new jobs, waits for the running ones, and is rethrown.
///
/// One `pthread_mutex_t` and one `pthread_cond_t` (`pthread_cond_wait`/`_broadcast`) for the
/// shared state, whose waits are on its conditions (which ThreadSanitizer also understands),
/// and one more mutex that makes the `next` calls one at a time, in position order.
public enum OrderedWorkPool {
    /// - Parameters:
    ///   - workers: threads, at least 1; twice that is the most jobs taken and not yet delivered.
    ///   - ordered: deliver in the order `next` gave the jobs.
    ///   - shouldStop: polled before each hand-out (Ctrl-C).
    ///   - work: runs on a worker thread; the second argument is the job's position.
    ///   - deliver: the job's position, the job and its output, on the caller's thread.
    public static func run<Job: Sendable, Output: Sendable>(
        workers: Int, ordered: Bool,
        shouldStop: @escaping @Sendable () -> Bool,
        next: @escaping @Sendable () -> Job?,
        work: @escaping @Sendable (Job, Int) -> Output,
        deliver: (Int, Job, Output) throws -> Void
    ) throws {
        let count = max(1, workers)
        let shared = Shared<Job, Output>()
        var started = 0
        for _ in 0..<count {
            do {
                try OSThread.spawn(role: "pm-files") { [shared] in
                    while let (position, job) = shared.take(limit: 2 * count, shouldStop: shouldStop, next: next) {
                        let output = work(job, position)
                        shared.finish(position, job, output)
                    }
                }
                started += 1
            } catch {
                // Out of threads: go on with the workers that started, if any.
                if started == 0 { throw error }
                break
            }
        }
        var nextPosition = 0
        var failure: Error?
        while let (position, job, output) = shared.waitForResult(ordered ? nextPosition : nil, workers: started) {
            nextPosition += 1
            if failure == nil {
                do {
                    try deliver(position, job, output)
                } catch {
                    failure = error
                    shared.cancel()
                }
            }
            shared.delivered()
        }
        if let failure { throw failure }
    }

    /// The pool's state behind its one mutex and condition, shared by the workers and the caller.
    private final class Shared<Job, Output>: @unchecked Sendable {
        // Sendable by its mutexes: `taken` is read and written with `listMutex` held, every
        // other field below with `mutex` held.
        private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        private let listMutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private var taken = 0
        private var outstanding = 0  // taken and not yet delivered
        private var exhausted = false
        private var cancelled = false
        private var results: [Int: (job: Job, output: Output)] = [:]
        private var workersDone = 0

        init() {
            pthread_mutex_init(mutex, nil)
            pthread_cond_init(changed, nil)
            pthread_mutex_init(listMutex, nil)
        }

        deinit {
            pthread_cond_destroy(changed)
            pthread_mutex_destroy(mutex)
            pthread_mutex_destroy(listMutex)
            mutex.deallocate()
            changed.deallocate()
            listMutex.deallocate()
        }

        private func locked<R>(_ body: () -> R) -> R {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return body()
        }

        /// A worker's next job and its position; nil when there is none (the worker exits).
        /// A place among the outstanding jobs is taken first, under the pool's lock; then
        /// `next` is asked under the list's lock only.
        func take(limit: Int, shouldStop: () -> Bool, next: () -> Job?) -> (Int, Job)? {
            let reserved = locked { () -> Bool in
                while outstanding >= limit && !exhausted && !cancelled { pthread_cond_wait(changed, mutex) }
                guard !exhausted && !cancelled && !shouldStop() else { return false }
                outstanding += 1
                return true
            }
            var job: (Int, Job)?
            if reserved {
                pthread_mutex_lock(listMutex)
                if !shouldStop(), let j = next() {
                    job = (taken, j)
                    taken += 1
                }
                pthread_mutex_unlock(listMutex)
            }
            if let job { return job }
            locked {
                if reserved { outstanding -= 1 }
                exhausted = true
                workersDone += 1
                pthread_cond_broadcast(changed)
            }
            return nil
        }

        func finish(_ position: Int, _ job: Job, _ output: Output) {
            locked {
                results[position] = (job, output)
                pthread_cond_broadcast(changed)
            }
        }

        /// The result at `position` (or any, when nil), waiting for it; nil once every worker
        /// has exited and every result has been handed out.
        func waitForResult(_ position: Int?, workers: Int) -> (Int, Job, Output)? {
            locked {
                while true {
                    if let key = position ?? results.keys.min(), let r = results.removeValue(forKey: key) {
                        return (key, r.job, r.output)
                    }
                    if workersDone == workers && results.isEmpty { return nil }
                    pthread_cond_wait(changed, mutex)
                }
            }
        }

        /// One result written: a worker may take another job.
        func delivered() {
            locked {
                outstanding -= 1
                pthread_cond_broadcast(changed)
            }
        }

        func cancel() {
            locked {
                cancelled = true
                pthread_cond_broadcast(changed)
            }
        }
    }
}

// A wait that blocks the thread, for the few places that must not yield to the event loop: a lock held
// for microseconds, a non-blocking stdin read whole, a fault point of the crash tests.

/** Blocks the thread for `ms` milliseconds (for good without it). */
export function sleepSync(ms?: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

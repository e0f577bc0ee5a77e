// Waits until a check passes: woken by fs.watch on the state dir, with a poll behind it because watch
// events can be missed or coalesced. A timeout is an outcome, not an error.
import { watch, type FSWatcher } from "node:fs";

export type WaitOutcome<T> = { outcome: "match"; value: T } | { outcome: "timeout" } | { outcome: "aborted" };

export interface WaitOptions {
  timeoutMs: number;
  pollMs: number;
  /** Directory whose changes wake the check (the state dir). */
  watchDir: string;
  signal?: AbortSignal | undefined;
}

export function waitFor<T>(check: () => T | undefined, options: WaitOptions): Promise<WaitOutcome<T>> {
  return new Promise((resolve, reject) => {
    let watcher: FSWatcher | undefined;
    let poll: NodeJS.Timeout | undefined;
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    const finish = (outcome: WaitOutcome<T> | Error) => {
      if (finished) return;
      finished = true;
      watcher?.close();
      clearInterval(poll);
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const attempt = () => {
      if (finished) return;
      try {
        const value = check();
        if (value !== undefined) finish({ outcome: "match", value });
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
      }
    };
    const onAbort = () => finish({ outcome: "aborted" });
    if (options.signal?.aborted) return finish({ outcome: "aborted" });
    options.signal?.addEventListener("abort", onAbort);
    try {
      watcher = watch(options.watchDir, { persistent: false }, attempt);
      watcher.on("error", () => watcher?.close());
    } catch {
      // No watch support here (or the dir vanished): the poll still works.
    }
    poll = setInterval(attempt, options.pollMs);
    timer = setTimeout(() => finish({ outcome: "timeout" }), options.timeoutMs);
    attempt();
  });
}

// A long-running process (a server) notices when the receipts, the sessions registry or the wakes log
// passes PEERPOST_LOG_COMPACT_AT_BYTES while it runs, and hands the compaction to the detached `index-run`,
// as it does at start-up. It looks when one of their files changes (a watch of the state dir), at most
// once per CHECK_EVERY_MS; a log a compaction left past the size (its records too young to move) is called
// for again only once it grew or an hour went by (compaction-calls.ts). So servers sharing a state dir
// start no storm of runs, and `index-run` runs one at a time whoever starts it.
import { watch } from "node:fs";
import { basename } from "node:path";
import type { Peerpost } from "../peerpost.js";
import { CompactionCalls } from "../store/file/compaction-calls.js";
import { compactableLogs } from "./log-compaction.js";

/** Least time between two looks at the logs' sizes. */
const CHECK_EVERY_MS = 5000;

/** Watches the logs' sizes until the returned stop is called; `start` starts `index-run` and says whether it did. */
export function compactLogsWhenLarge(peerpost: Peerpost, start: () => boolean): () => void {
  const logs = compactableLogs(peerpost).map((entry) => ({ ...entry, calls: new CompactionCalls(entry.paths, () => Date.now()) }));
  const names = new Set(logs.map(({ log }) => basename(log.path)));
  const atBytes = peerpost.config.logCompactAtBytes;
  const check = () => {
    for (const { log, calls } of logs) {
      const identity = log.identity();
      if (identity && identity.size >= atBytes) calls.callFor(identity, identity.size, atBytes, start);
    }
  };
  let lastCheck = 0;
  let pending: NodeJS.Timeout | undefined;
  const changed = () => {
    if (pending) return;
    // The first change looks at once, later ones once the interval is over: the last change is always seen.
    const wait = Math.max(0, lastCheck + CHECK_EVERY_MS - Date.now());
    pending = setTimeout(() => {
      pending = undefined;
      lastCheck = Date.now();
      try {
        check();
      } catch {
        // A log that cannot be looked at now is left to the next change, and to its readers' own errors.
      }
    }, wait).unref();
  };
  let watcher: ReturnType<typeof watch> | undefined;
  try {
    watcher = watch(peerpost.stateDir.path, { persistent: false }, (_event, name) => void (name !== null && names.has(String(name)) && changed()));
    watcher.on("error", () => watcher?.close());
  } catch {
    // No watch here: start-up's look (index-run.ts indexWhenFarBehind) is all there is.
  }
  return () => {
    watcher?.close();
    if (pending) clearTimeout(pending);
  };
}

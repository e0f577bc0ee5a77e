// A long-running process (a server) notices when the receipts, the sessions registry or the wakes log
// passes PEERPOST_LOG_COMPACT_AT_BYTES while it runs, and hands the compaction to the detached `index-run`,
// as it does at start-up; and the mailbox past PEERPOST_COMPACT_AT_BYTES, which a send here calls for too,
// but a database's mirror grows by other machines' mail as well. It looks at their sizes every
// CHECK_EVERY_MS, not on each change: a watch of the state dir woke every server on the machine for every
// send (the mailbox and the receipts change on each), while four lstats per interval cost nothing. A log
// a compaction left past the size (its records too young to move) is called for again only once it grew
// or an hour went by (compaction-calls.ts). So servers sharing a state dir start no storm of runs, and
// `index-run` runs one at a time whoever starts it.
import type { Peerpost } from "../peerpost.js";
import { CompactionCalls } from "../store/file/compaction-calls.js";
import { compactableLogs } from "./log-compaction.js";

/** Time between two looks at the logs' sizes. */
const CHECK_EVERY_MS = 5000;

/** Watches the logs' sizes until the returned stop is called; `start` starts `index-run` and says whether it did. */
export function compactLogsWhenLarge(peerpost: Peerpost, start: () => boolean): () => void {
  const logs = compactableLogs(peerpost).map((entry) => ({ ...entry, calls: new CompactionCalls(entry.paths, () => Date.now()) }));
  const atBytes = peerpost.config.logCompactAtBytes;
  const check = () => {
    for (const { log, calls } of logs) {
      const identity = log.identity();
      if (identity && identity.size >= atBytes) calls.callFor(identity, identity.size, atBytes, start);
    }
    peerpost.mailbox.compactWhenLarge();
  };
  const timer = setInterval(() => {
    try {
      check();
    } catch {
      // A log that cannot be looked at now is left to the next look, and to its readers' own errors.
    }
  }, CHECK_EVERY_MS).unref();
  return () => clearInterval(timer);
}

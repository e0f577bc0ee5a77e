// `index-run`: the detached index build a server starts on a log far ahead of its index, in any
// peerpost bundle. Another build under way (the index's own lock) makes this one a no-op.
import { openPeerpost, type Peerpost } from "./peerpost.js";
import { logError } from "./error-log.js";
import { startDetached } from "./detached.js";

export function indexRunCommand(): number {
  const peerpost = openPeerpost({});
  try {
    peerpost.mailbox.indexAll();
    return 0;
  } catch (error) {
    logError(peerpost.stateDir.path, "index-run", error);
    return 1;
  }
}

/** Starts `index-run` from `entry` when the mailbox's index lags too far for readers to extend it on their way. */
export function indexWhenFarBehind(peerpost: Peerpost, entry: string): void {
  let farBehind = false;
  try {
    farBehind = peerpost.mailbox.indexLag().farBehind;
  } catch {
    // A mailbox that cannot be looked at now is left to its readers (and their own error).
  }
  if (farBehind) startDetached(entry, ["index-run"], peerpost.stateDir.path);
}

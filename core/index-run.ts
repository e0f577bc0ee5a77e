// `index-run`: the detached catch-up a server or a hook starts, in any peerpost bundle. It brings this
// machine's mirrors of a shared store to the database's end (a machine new to a large store copies it
// here, not inside a prompt), then indexes the mailbox when it is far ahead of its index. Another build
// under way (the index's own lock) makes the indexing a no-op; two syncs share the work batch by batch.
import { openPeerpost, type Peerpost } from "./peerpost.js";
import { logError } from "./error-log.js";
import { startDetached } from "./detached.js";

export async function indexRunCommand(): Promise<number> {
  const peerpost = openPeerpost({});
  try {
    await peerpost.backend.sync();
    peerpost.mailbox.indexAll();
    return 0;
  } catch (error) {
    logError(peerpost.stateDir.path, "index-run", error);
    return 1;
  } finally {
    await peerpost.backend.close();
  }
}

/** Starts `index-run` from `entry`, to bring mirrors a budgeted sync left behind up to the database's end. */
export function catchUpDetached(peerpost: Peerpost, entry: string): void {
  startDetached(entry, ["index-run"], peerpost.stateDir.path);
}

/** Starts `index-run` from `entry` when the mailbox's index lags too far for readers to extend it on their way. */
export function indexWhenFarBehind(peerpost: Peerpost, entry: string): void {
  let farBehind = false;
  try {
    farBehind = peerpost.mailbox.indexLag().farBehind;
  } catch {
    // A mailbox that cannot be looked at now is left to its readers (and their own error).
  }
  if (farBehind) catchUpDetached(peerpost, entry);
}

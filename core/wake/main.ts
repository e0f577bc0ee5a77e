// `wake-run <claim id>`: the entry the detached runner starts with, in any peerpost bundle.
import { openPeerpost } from "../peerpost.js";
import { logError } from "../common/error-log.js";
import { wakeRunMain } from "./runner.js";
import type { WakeDeps } from "./waker.js";

export async function wakeRunCommand(claimId: string | undefined, deps: WakeDeps): Promise<number> {
  if (claimId === undefined) return 2;
  const peerpost = openPeerpost(deps.discover ? { discover: deps.discover } : {});
  try {
    return await wakeRunMain(peerpost, claimId, deps);
  } catch (error) {
    logError(peerpost.stateDir.path, `wake-run ${claimId}`, error);
    return 1;
  }
}

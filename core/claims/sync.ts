// This machine's copy of the claims brought up to date before an edit or a commit is checked. On a shared
// store, a database that is away leaves the mirror as it is: the claims it holds still stand, so the check
// goes on with them instead of letting everything through; the outage goes to the error log.
import { logError } from "../common/error-log.js";
import { databaseAway } from "../store/database-away.js";
import type { Peerpost } from "../peerpost.js";

/** `behind`: the sync's budget left older records uncopied (a machine new to a large store); `away`: the database did not answer. */
export type ClaimsCopy = "current" | "behind" | "away";

export async function syncClaims(peerpost: Peerpost, where: string, options: { trust?: "followed"; budget?: number } = {}): Promise<ClaimsCopy> {
  try {
    return (await peerpost.backend.sync({ ...options, only: ["mailbox"] })) ? "current" : "behind";
  } catch (error) {
    if (databaseAway(peerpost, error) === undefined) throw error;
    logError(peerpost.stateDir.path, where, error);
    return "away";
  }
}

// A server serving a session on a claim (its own host still runs it; see plugins/shared/identity.ts)
// may send as it, unverified, but neither shows nor changes that session's mail: reading would mark the
// other session's mail read (its own hooks would stop flagging it) and show it to whatever made the claim.
import { PeerpostError } from "../common/errors.js";
import type { Identity } from "./adapter.js";
import type { ToolContext } from "./tool.js";

/** This session's identity for a call that reads or changes its mail; refused to a claimed identity. */
export function mailOwner(context: ToolContext, action: string): Identity {
  const me = context.identity();
  if (me.claim !== undefined)
    throw new PeerpostError("permission_denied", `This server serves ${me.address} on a claim, unverified (${me.claim}), so it does not ${action} that session's mail.`, {
      details: { address: me.address, reason: "claimed_identity" },
      hint: "That session's own host still runs it: use it there. Here, start a new session of your own, or end the other host first and then resume the session here.",
    });
  return me;
}

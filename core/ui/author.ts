// The address the web view writes as: `--as ADDR` when given, else the person's own `user:<name>`
// (PEERPOST_USER, else the login name). A login name that cannot be an address leaves the view read-only.
import { parseAddress } from "../common/address.js";
import { PeerpostError, toErrorValue } from "../common/errors.js";
import { userAddress } from "../sessions/user.js";
import type { Config } from "../common/config.js";

export function uiAuthor(as: string | undefined, config: Pick<Config, "user">): { author: string | null; problem?: string } {
  if (as !== undefined) {
    const address = parseAddress(as, "--as");
    // Every write of the page would be refused (mailbox.send's rule): say so now, not at each write.
    if (address.kind === "role")
      throw new PeerpostError("invalid_arguments", `${address.text} is a role, not a sender: the page could not send, reply or act as it.`, {
        details: { field: "--as", value: address.text },
        hint: "Start it --as the session or person that holds the role (its exact address, or user:<name>); `peerpost roles` shows who holds it.",
      });
    return { author: address.text };
  }
  try {
    return { author: userAddress(config) };
  } catch (error) {
    return { author: null, problem: toErrorValue(error).message };
  }
}

// The address the web view writes as: `--as ADDR` when given, else the person's own `user:<name>`
// (PEERPOST_USER, else the login name). A login name that cannot be an address leaves the view read-only.
import { parseAddress } from "../common/address.js";
import { toErrorValue } from "../common/errors.js";
import { userAddress } from "../sessions/user.js";
import type { Config } from "../common/config.js";

export function uiAuthor(as: string | undefined, config: Pick<Config, "user">): { author: string | null; problem?: string } {
  if (as !== undefined) return { author: parseAddress(as, "--as").text };
  try {
    return { author: userAddress(config) };
  } catch (error) {
    return { author: null, problem: toErrorValue(error).message };
  }
}

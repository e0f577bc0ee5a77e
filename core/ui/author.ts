// The address the web view writes as: `--as ADDR` when given, else the person's own `user:<name>`
// (PEERPOST_USER, else the login name). A login name that cannot be an address leaves the view read-only.
import { parseAddress } from "../address.js";
import { toErrorValue } from "../errors.js";
import { userAddress } from "../user.js";
import type { Config } from "../config.js";

export function uiAuthor(as: string | undefined, config: Pick<Config, "user">): { author: string | null; problem?: string } {
  if (as !== undefined) return { author: parseAddress(as, "--as").text };
  try {
    return { author: userAddress(config) };
  } catch (error) {
    return { author: null, problem: toErrorValue(error).message };
  }
}

// A person's address: `user:<name>`, from PEERPOST_USER or else the login name. A login name that is not
// a valid peerpost name is refused rather than rewritten, so two people never end up sharing an address.
import { userInfo } from "node:os";
import { ID_PATTERN } from "../common/address.js";
import { PeerpostError } from "../common/errors.js";
import type { Config } from "../common/config.js";

export function userAddress(config: Pick<Config, "user">): string {
  const name = config.user ?? loginName();
  if (!ID_PATTERN.test(name))
    throw new PeerpostError("invalid_arguments", `The login name ${JSON.stringify(name.slice(0, 200))} cannot be a peerpost user name.`, {
      details: { field: "PEERPOST_USER", value: name.slice(0, 200) },
      hint: "Set PEERPOST_USER to a name of letters, digits, '.', '_' and '-' (`peerpost send` also takes --from).",
    });
  return `user:${name}`;
}

function loginName(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.LOGNAME ?? "";
  }
}

export function isPerson(address: string): boolean {
  return address.startsWith("user:");
}

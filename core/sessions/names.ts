// Human names for sessions (`peerpost name ADDR NAME`): a sessions-registry record, so `agents` and
// `resolve` show it. Names are strict (no path or control characters) and never become addresses.
import { NAME_PATTERN, parseAddress } from "../common/address.js";
import { PeerpostError } from "../common/errors.js";
import type { Peerpost } from "../peerpost.js";
import type { SessionEntry } from "./registry.js";
import { findUnseen, registerDiscovered } from "./unseen.js";

export function checkName(name: string): void {
  if (!NAME_PATTERN.test(name))
    throw new PeerpostError("invalid_arguments", `${JSON.stringify(name.slice(0, 200))} is not a session name.`, {
      details: { field: "name", value: name.slice(0, 200) },
      hint: "Names are letters, digits, spaces, '.', '_' and '-' (up to 64), starting with a letter or digit.",
    });
}

export async function nameSession(peerpost: Peerpost, address: string, name: string): Promise<SessionEntry> {
  checkName(name);
  const kind = parseAddress(address).kind;
  if (kind === "role" || kind === "user")
    throw new PeerpostError("invalid_arguments", `Only sessions take names; ${address} is a ${kind === "role" ? "role" : "person"}.`, { details: { field: "address", value: address }, hint: "Give a session's address, as `peerpost agents --all` lists it." });
  // A session known only from its host's files (`agents --all`, `resolve` list it) is registered first, as a message to it would be.
  const { entry, discovered } = peerpost.sessions.resolveRecipient(address, () => findUnseen(peerpost, address));
  if (discovered) await registerDiscovered(peerpost, discovered);
  await peerpost.sessions.register({ host: entry.host, address: entry.address, sessionId: entry.sessionId, source: "cli", name });
  return peerpost.sessions.get(address)!;
}

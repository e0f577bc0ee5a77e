// What the people-facing commands share: the store, addresses read from flags, receipt origins.
import { openPeerpost, type Peerpost } from "../peerpost.js";
import { parseAddress } from "../address.js";
import type { ReceiptInput } from "../receipts.js";
import { discoverAll } from "../../plugins/discovery.js";

/** The store, able to read the hosts' own session files (sessions peerpost has not seen yet). */
export function openStore(): Peerpost {
  return openPeerpost({ discover: discoverAll });
}

export function addressFlag(value: string, flag: string): string {
  return parseAddress(value, flag).text;
}

/** A CLI call names its identity with a flag: recorded as explicit, never as host-verified. */
export function cliOrigin(flag: string): ReceiptInput["origin"] {
  return { source: "explicit", detail: flag, pid: process.pid, cwd: process.cwd() };
}

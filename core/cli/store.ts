// What the people-facing commands share: the store, addresses read from flags, receipt origins.
import { openPeerpost, type Peerpost } from "../peerpost.js";
import { parseAddress } from "../common/address.js";
import { userAddress } from "../sessions/user.js";
import type { ReceiptInput } from "../mail/receipts.js";
import { discoverAll } from "../../plugins/discovery.js";
import { databaseAway } from "../store/database-away.js";
import { storeWarnings } from "./output.js";

/**
 * The store, able to read the hosts' own session files (sessions peerpost has not seen yet), with a
 * shared (PostgreSQL) store's local mirrors brought up to date first. A database that is away leaves
 * them as they are, with a warning: what this machine copied last is still shown, and writes fail.
 */
export async function openStore(): Promise<Peerpost> {
  const peerpost = openPeerpost({ discover: discoverAll });
  const away = await syncMirrors(peerpost);
  if (away !== undefined) storeWarnings.push({ code: "store_unreachable", message: away });
  return peerpost;
}

/**
 * Brings a shared store's mirrors up to date for a person's command or the web view. With the database
 * away they stay as they are: what to tell the person (store_unreachable); undefined when synced.
 */
export async function syncMirrors(peerpost: Peerpost): Promise<string | undefined> {
  try {
    await peerpost.backend.sync();
    return undefined;
  } catch (error) {
    const away = databaseAway(peerpost, error, "cli");
    if (away === undefined) throw error;
    return `${away.message} What this machine copied from it last is shown; changes fail until it answers.`;
  }
}

export function addressFlag(value: string, flag: string): string {
  return parseAddress(value, flag).text;
}

/** The address a flag or argument names, else the person's own (`user:<name>`). */
export function addressOrMine(peerpost: Peerpost, value: string | undefined, flag: string): string {
  return value === undefined ? userAddress(peerpost.config) : addressFlag(value, flag);
}

/** A CLI call names its identity with a flag: recorded as explicit, never as host-verified. */
export function cliOrigin(flag: string): ReceiptInput["origin"] {
  return { source: "explicit", detail: flag, pid: process.pid, cwd: process.cwd() };
}

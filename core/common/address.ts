// Addresses: `claude:<id>`, `codex:<id>`, `copilot:<id>`, `grok:<id>` for sessions, `role:<name>` for roles,
// `user:<name>` for a person using the command line or the web view.
// Parsing is strict: no trimming, no case folding, no partial matches.
import { PeerpostError } from "./errors.js";
import { HINTS } from "./hints.js";

export const SESSION_KINDS = ["claude", "codex", "copilot", "grok"] as const;
export type SessionKind = (typeof SESSION_KINDS)[number];
export type AddressKind = SessionKind | "role" | "user";

/** Session ids and role names: letters, digits and . _ - only, starting with a letter or digit, 1–128 chars. */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** Human names of sessions: letters, digits, spaces and . _ -, starting with a letter or digit, 1–64 chars. No path or control characters. */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;
export const ADDRESS_PATTERN = /^(claude|codex|copilot|grok|role|user):[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface Address {
  kind: AddressKind;
  id: string;
  text: string;
}

export function isAddress(text: unknown): text is string {
  return typeof text === "string" && ADDRESS_PATTERN.test(text);
}

export function parseAddress(text: unknown, field = "address"): Address {
  if (!isAddress(text)) {
    throw new PeerpostError("invalid_arguments", `${field} ${JSON.stringify(text)} is not a peerpost address.`, {
      details: { field, value: typeof text === "string" ? text.slice(0, 200) : text },
      hint: HINTS.badAddress,
    });
  }
  const colon = text.indexOf(":");
  return { kind: text.slice(0, colon) as AddressKind, id: text.slice(colon + 1), text };
}

export function formatAddress(kind: AddressKind, id: string): string {
  return parseAddress(`${kind}:${id}`).text;
}

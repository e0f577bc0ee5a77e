// The address the web view writes as. `--as ADDR` names it; a person's own default address
// (user:<name>) slots in here once peerpost has one, and until then a view without --as is read-only.
import { parseAddress } from "../address.js";

export function defaultPersonAddress(): string | undefined {
  return undefined;
}

export function uiAuthor(as: string | undefined): string | null {
  if (as !== undefined) return parseAddress(as, "--as").text;
  return defaultPersonAddress() ?? null;
}

// Text from other sessions shown to a person on a terminal: kept readable (no HTML escaping), but every
// character that could hide, reorder or rewrite what is on screen is shown as ⟨U+XXXX⟩ instead. The
// set of such characters is the shared escaping module's (core/security/escape.ts), chosen by Unicode property.
import { escapeVisible } from "./escape.js";

/** Renders text for a terminal; `keepLines` keeps newlines and tabs (message bodies), otherwise they are shown too (one-line cells). */
export function visible(text: string, keepLines = false): string {
  return escapeVisible(text, { multiline: keepLines });
}

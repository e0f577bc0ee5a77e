// Text from other sessions shown to a person on a terminal: kept readable (no HTML escaping), but every
// character that could hide, reorder or rewrite what is on screen is shown as ⟨U+XXXX⟩ instead.
// One function on purpose: the terminal rendering of the shared escaping module can replace it here.

/** Controls, format characters (bidi, zero-width), private use, unassigned, surrogates, line/paragraph separators, default-ignorables. */
const DANGEROUS = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}]|\p{Default_Ignorable_Code_Point}/gu;

/** Renders text for a terminal; `keepLines` keeps newlines and tabs (message bodies), otherwise they are shown too (one-line cells). */
export function visible(text: string, keepLines = false): string {
  return text.replace(DANGEROUS, (char) => (keepLines && (char === "\n" || char === "\t") ? char : `⟨U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`));
}

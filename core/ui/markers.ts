// Makes untrusted text safe to show a person: characters that render invisibly, reorder text (bidi
// controls), are controls or are not text at all become a visible ⟨U+XXXX⟩ marker (the set is
// core/escape.ts's, chosen by Unicode property); tab and newline stay. Markup needs no escaping here
// because the page only ever puts text into text nodes.
import { escapeVisible } from "../escape.js";

export function markHidden(text: string): string {
  return escapeVisible(text, { multiline: true });
}

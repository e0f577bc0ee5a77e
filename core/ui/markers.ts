// Makes untrusted text safe to show a person: characters that render invisibly, reorder text (bidi
// controls) or are controls become a visible ⟨U+XXXX⟩ marker; tab and newline stay. Markup needs no
// escaping here because the page only ever puts text into text nodes.
import { CONTROLS, INVISIBLE, LONE_SURROGATES } from "../envelope.js";

function marker(text: string): string {
  return [...text].map((char) => `⟨U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`).join("");
}

export function markHidden(text: string): string {
  return text.replace(LONE_SURROGATES, marker).replace(CONTROLS, marker).replace(INVISIBLE, marker);
}

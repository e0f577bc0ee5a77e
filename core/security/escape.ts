// Characters that must never reach a model or a terminal raw: they render invisibly, reorder or hide
// text, drive a terminal, or are not text at all. Chosen by Unicode property, not by a list, so a new
// invisible character is covered as soon as Node's Unicode data knows its category.
//   Cc controls (C0, DEL, C1 incl. ESC and CSI), Cf format (zero-width, bidi, tags, shorthand format),
//   Cs surrogates (lone halves), Co private use, Cn unassigned (incl. noncharacters), Zl/Zp line and
//   paragraph separators, and every default-ignorable code point (variation selectors, fillers).
// Two renderings: character references for text inside an envelope (`&#x1F;`) and a visible form for
// terminals and CLI tables (`⟨U+001F⟩`).

const DANGEROUS = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/gu;
const MARKUP: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export interface EscapeOptions {
  /** Keep tab and newline as they are (message bodies); single-line fields such as a cwd escape them too. */
  multiline?: boolean;
}

function keeps(char: string, options: EscapeOptions): boolean {
  return options.multiline === true && (char === "\n" || char === "\t");
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const PRINTABLE_ASCII_LINES = /^[\x20-\x7e\n\t]*$/;

/**
 * Whether the text is printable ASCII (with newlines and tabs where they are kept): then no character of
 * it is dangerous, and it is not matched against the Unicode property classes, whose first use compiles
 * them (about a millisecond of a short command's run).
 */
function plainAscii(text: string, options: EscapeOptions): boolean {
  return (options.multiline === true ? PRINTABLE_ASCII_LINES : PRINTABLE_ASCII).test(text);
}

/** For text a model reads inside peerpost's envelope: markup and dangerous characters as `&#x…;` references. */
export function escapeForModel(text: string, options: EscapeOptions = {}): string {
  const marked = text.replace(/[&<>"']/g, (char) => MARKUP[char]!);
  if (plainAscii(text, options)) return marked;
  return marked.replace(DANGEROUS, (char) => (keeps(char, options) ? char : `&#x${char.codePointAt(0)!.toString(16).toUpperCase()};`));
}

/**
 * An emoji as people see one glyph: a pictograph with its skin tone or presentation selector (U+FE0F),
 * joined to more by zero-width joiners (👩🏽‍💻), or a keycap (1️⃣). Only inside such a sequence do a
 * joiner or a selector stay raw for people; anywhere else, and tags (which can hide text), they are escaped.
 */
const EMOJI_PART = "(?!\\p{Cn})\\p{Extended_Pictographic}(?:\\p{Emoji_Modifier}|\\uFE0F)?";
const EMOJI = `${EMOJI_PART}(?:\\u200D${EMOJI_PART})*|[0-9#*]\\uFE0F\\u20E3`;
const VISIBLE_TOKENS = new RegExp(`(${EMOJI})|${DANGEROUS.source}`, "gu");

/** For text printed to a terminal or a CLI table, or shown in the web view: dangerous characters as a visible `⟨U+…⟩`, emoji sequences kept, markup left alone. */
export function escapeVisible(text: string, options: EscapeOptions = {}): string {
  if (plainAscii(text, options)) return text;
  return text.replace(VISIBLE_TOKENS, (token, emoji: string | undefined) => (emoji !== undefined || keeps(token, options) ? token : `⟨U+${token.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`));
}

/** JSON whose strings carry dangerous characters only as `\u` escapes: the same value, safe on a terminal. */
export function safeJson(value: unknown, indent?: number): string {
  // JSON.stringify already escapes C0 controls inside strings; raw newlines left are JSON's own layout.
  const json = JSON.stringify(value, null, indent);
  if (plainAscii(json, { multiline: true })) return json;
  return json.replace(DANGEROUS, (char) =>
    char === "\n" ? char : Array.from({ length: char.length }, (_, index) => `\\u${char.charCodeAt(index).toString(16).padStart(4, "0")}`).join(""),
  );
}

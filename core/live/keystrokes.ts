// What the person has typed into a host TUI that `peerpost run` wraps, from the bytes of their terminal:
// whether the input line is empty. Kept on the safe side: a key whose effect on the line is unknown
// (history, completion, an editing key on a partly known line) counts as typing, until the line is
// submitted (Enter) or cleared (Ctrl-C, Ctrl-U) or erased key by key.
// The same bytes carry the terminal's answers to the TUI's queries (its version, device attributes, the
// cursor's place, colours), at any time: at start-up, after a turn, on a resize. They are no keys, and
// taken for typing they would hold every request until the person's next Enter.
const PASTE_START = "\u001b[200~";
const PASTE_END = "\u001b[201~";
/**
 * A control string: ESC then P (DCS), ] (OSC), _ (APC), ^ (PM) or X (SOS), its body, and ST (ESC \\) or
 * BEL. Terminals answer in these, each in one write. Only a whole one in one chunk is taken for an
 * answer: ESC P alone is Alt+P, a key, and the keys after it are typing.
 */
const CONTROL_STRING = /\u001b[P\]_^X][^\u001b\u0007]*(?:\u001b\\|\u0007)/y;
/**
 * Final bytes of the CSI answers terminals send: device attributes (c), the cursor's place (R: also
 * Shift+F3, which edits no line), status and colour-scheme reports (n), window reports (t), mode reports (y).
 */
const ANSWER_FINALS = "cRnty";

export class InputLine {
  /** Characters typed and not erased since the last submit or clear. */
  private length = 0;
  /** A key changed the line in a way not followed here. */
  private unsure = false;
  private inPaste = false;

  /** Follows one chunk of the person's input. */
  observe(data: string): void {
    for (let i = 0; i < data.length; ) i += this.key(data, i);
  }

  get empty(): boolean {
    return this.length === 0 && !this.unsure && !this.inPaste;
  }

  /** How many characters one key took, after applying it. */
  private key(data: string, at: number): number {
    if (data.startsWith(PASTE_START, at)) return (this.inPaste = true), PASTE_START.length;
    if (data.startsWith(PASTE_END, at)) return (this.inPaste = false), (this.length += 1), PASTE_END.length;
    const char = data[at]!;
    if (this.inPaste) return 1;
    if (char === "\u001b") return this.escape(data, at);
    if (char === "\r" || char === "\u0003" || char === "\u0015") this.clear();
    else if (char === "\u007f" || char === "\b") this.length = Math.max(0, this.length - 1);
    else if (char === "\n") this.length++;
    else if (char === "\t") this.unsure ||= this.length > 0;
    else if (char >= " ") this.length++;
    return char.length;
  }

  /** An escape sequence: cursor moves, focus and mouse reports change nothing; history and others are unknown. */
  private escape(data: string, at: number): number {
    const csi = /^\u001b\[[0-?]*[ -\/]*[@-~]/.exec(data.slice(at, at + 64));
    if (csi) {
      const final = csi[0].at(-1)!;
      // A private marker (? > = <) opens answers and mouse reports, never a key that edits the line.
      const answer = "?>=<".includes(csi[0][2]!) || ANSWER_FINALS.includes(final);
      const harmless = answer || "CDHFIOMm".includes(final) || (final === "~" && /\[(1|4|5|6|7|8)~$/.test(csi[0]));
      if (!harmless) this.unsure = true;
      return csi[0].length;
    }
    CONTROL_STRING.lastIndex = at;
    const answer = CONTROL_STRING.exec(data);
    if (answer) return answer[0].length;
    const ss3 = /^\u001bO[A-Z]/.exec(data.slice(at, at + 3));
    if (ss3) {
      if ("AB".includes(ss3[0].at(-1)!)) this.unsure = true;
      return 3;
    }
    // Esc alone (cancel), or Alt with a key: Alt+Enter adds a line, others edit in ways not followed.
    const next = data[at + 1];
    if (next === undefined) return 1;
    if (next === "\r") this.length++;
    else this.unsure = true;
    return 2;
  }

  private clear(): void {
    this.length = 0;
    this.unsure = false;
  }
}

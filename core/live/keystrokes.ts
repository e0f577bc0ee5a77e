// What the person has typed into a host TUI that `peerpost run` wraps, from the bytes of their terminal:
// whether the input line is empty. Kept on the safe side: a key whose effect on the line is unknown
// (history, completion, a paste, an erasing key after the cursor left the line's end) counts as typing,
// until the line is submitted (Enter) or cleared (Ctrl-C; Ctrl-U at the end of a one-line input) or
// erased key by key from its end.
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

/** C0 controls by what they do to the line: move the cursor off its end, back to it, or nothing. */
const TO_START = "\u0001\u0002"; // Ctrl-A, Ctrl-B
const TO_END = "\u0005"; // Ctrl-E
const NO_EDIT = "\u0006\u000c"; // Ctrl-F (right, nothing past the end), Ctrl-L (redraw)
/** Delete forward and kill to the end (Ctrl-D, Ctrl-K): nothing at the end of the line, unknown elsewhere. */
const FORWARD_EDITS = "\u0004\u000b";

export class InputLine {
  /** Characters typed and not erased since the last submit or clear. */
  private length = 0;
  /** A key changed the line in a way not followed here. */
  private unsure = false;
  private inPaste = false;
  /** The cursor left the line's end (Left, Home, Ctrl-A): what an erasing key removes is unknown. */
  private moved = false;
  /** A line break was typed: Ctrl-U, Home and End act on the current line only. */
  private multiline = false;
  /** The start of a paste's end marker that ended a chunk: the next chunk completes it. */
  private carry = "";
  /** When the person last submitted a line that was not empty (Enter): its turn starts a moment later. */
  submittedAt: number | undefined;
  /** An @ was typed: the host's file menu may be open, and an Enter there picks an entry instead of submitting. */
  private mention = false;
  /**
   * The line starts with a slash: a host command, which runs no prompt hook and may open a picker or a
   * dialog (Claude Code's /model, /config, /resume) where a typed line and its Enter would pick an entry.
   */
  private command = false;
  /** When an Enter on a line with an @, or on a command, left it unknown: submitted only if a hook ran after it (confirmSubmitted). */
  pendingSubmitAt: number | undefined;
  /** The last key was Esc alone: a second one opens the host's rewind (Claude Code) or backtrack (Codex) view. */
  private loneEsc = false;
  /** When the person last pressed Esc alone: in a turn, that interrupts it. */
  escapedAt: number | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Follows one chunk of the person's input. */
  observe(chunk: string): void {
    const data = this.carry + chunk;
    this.carry = "";
    for (let i = 0; i < data.length; ) i += this.key(data, i);
  }

  get empty(): boolean {
    return this.length === 0 && !this.unsure && !this.inPaste;
  }

  /** How many characters one key took, after applying it. */
  private key(data: string, at: number): number {
    const afterEsc = this.loneEsc;
    this.loneEsc = false;
    if (data.startsWith(PASTE_START, at)) return (this.inPaste = true), PASTE_START.length;
    if (this.inPaste) return this.pasted(data, at);
    const char = data[at]!;
    if (char === "\u001b") return this.escape(data, at, afterEsc);
    if (char === "\r") this.submit();
    else if (char === "\u0003") this.clear();
    else if (char === "\u0015") this.killToStart();
    else if (char === "\u007f" || char === "\b") this.erase();
    else if (char === "\n") this.lineBreak();
    else if (char === "\t") this.unsure ||= this.length > 0;
    else if (TO_START.includes(char)) this.moved ||= this.length > 0;
    else if (TO_END.includes(char)) this.moved &&= this.multiline;
    else if (FORWARD_EDITS.includes(char)) this.unsure ||= this.moved;
    else if (char === "\u0017") this.unsure ||= this.length > 0;
    else if (char >= " ") {
      if (char === "/" && this.empty && !this.multiline) this.command = true;
      this.length++;
      if (char === "@") this.mention = true;
    }
    // Other controls (yank, history search, transpose, a TUI's own shortcuts): their effect is unknown.
    else if (!NO_EDIT.includes(char)) this.unsure = true;
    return char.length;
  }

  /** Inside a paste: its characters go in (how many the TUI keeps, or shows as one placeholder, is unknown). */
  private pasted(data: string, at: number): number {
    if (data.startsWith(PASTE_END, at)) {
      this.inPaste = false;
      this.unsure = true;
      return PASTE_END.length;
    }
    const rest = data.slice(at);
    if (data[at] === "\u001b" && rest.length < PASTE_END.length && PASTE_END.startsWith(rest)) {
      this.carry = rest;
      return rest.length;
    }
    return 1;
  }

  /** Ctrl-U kills back to the start of the current line: all of the input only from the end of a known, one-line input. */
  private killToStart(): void {
    if (this.moved || this.multiline || this.unsure) this.unsure = true;
    else this.clear();
  }

  private erase(): void {
    // Off the line's end a Backspace removes a character somewhere, or nothing at the line's start.
    if (this.moved) this.unsure ||= this.length > 0;
    else this.length = Math.max(0, this.length - 1);
    // The slash erased: what is typed next is a prompt again.
    if (this.length === 0 && !this.unsure) this.command = false;
  }

  private lineBreak(): void {
    this.length++;
    this.multiline = true;
  }

  /** An escape sequence: cursor moves, focus and mouse reports change nothing; history and others are unknown. */
  private escape(data: string, at: number, afterEsc = false): number {
    const csi = /^\u001b\[[0-?]*[ -\/]*[@-~]/.exec(data.slice(at, at + 64));
    if (csi) {
      const final = csi[0].at(-1)!;
      // A private marker (? > = <) opens answers and mouse reports, never a key that edits the line.
      const answer = "?>=<".includes(csi[0][2]!) || ANSWER_FINALS.includes(final);
      const tilde = final === "~" ? /\[(\d+)~$/.exec(csi[0])?.[1] : undefined;
      if (answer) return csi[0].length;
      if (final === "D" || final === "H" || tilde === "1" || tilde === "7") this.moved ||= this.length > 0;
      else if (final === "F" || tilde === "4" || tilde === "8") this.moved &&= this.multiline;
      else if (!("CIOMm".includes(final) || tilde === "5" || tilde === "6")) this.unsure = true;
      return csi[0].length;
    }
    CONTROL_STRING.lastIndex = at;
    const answer = CONTROL_STRING.exec(data);
    if (answer) return answer[0].length;
    const ss3 = /^\u001bO[A-Z]/.exec(data.slice(at, at + 3));
    if (ss3) {
      const final = ss3[0].at(-1)!;
      if ("AB".includes(final)) this.unsure = true;
      else if ("DH".includes(final)) this.moved ||= this.length > 0;
      else if (final === "F") this.moved &&= this.multiline;
      return 3;
    }
    // Esc alone (cancel), or Alt with a key: Alt+Enter adds a line, others edit in ways not followed.
    const next = data[at + 1];
    if (next === undefined) {
      // Esc twice on an empty line opens a view where Enter rewinds the conversation: unknown until cleared or submitted.
      if (afterEsc) this.unsure = true;
      this.loneEsc = true;
      this.escapedAt = this.now();
      return 1;
    }
    if (next === "\r") this.lineBreak();
    else this.unsure = true;
    return 2;
  }

  private submit(): void {
    if ((this.mention || this.command) && !this.empty) {
      // Enter may have picked a file from the host's menu, or run a command that opened a picker: the
      // line is unknown until a hook shows a turn after it (a command's picker: the next prompt), or Ctrl-C.
      this.submittedAt = this.pendingSubmitAt = this.now();
      this.unsure = true;
      return;
    }
    if (!this.empty) this.submittedAt = this.now();
    this.clear();
  }

  /** A prompt hook ran after the Enter that left the line unknown: that Enter submitted it. */
  confirmSubmitted(): void {
    this.clear();
  }

  /** The host put text back into the input line (an interrupted turn's prompt): unknown until cleared or submitted. */
  refilled(): void {
    this.unsure = true;
  }

  private clear(): void {
    this.mention = false;
    this.command = false;
    this.pendingSubmitAt = undefined;
    this.length = 0;
    this.unsure = false;
    this.moved = false;
    this.multiline = false;
  }
}

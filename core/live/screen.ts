// Reading a host TUI's input line from its screen (tmux `capture-pane -e`: text with SGR escapes). Hosts
// draw their placeholder text dim, so dim text is blanked first; each host then says which line is its
// input line (plugins/<host>/terminal.ts).

/** Finds the host's input line on a screen (dim text already blanked): its text, or undefined when no input line shows. */
export type InputLineReader = (lines: string[]) => string | undefined;

/** Splits a captured screen into lines, with every character drawn dim (SGR 2) replaced by a space. */
export function screenLines(captured: string): string[] {
  return captured.split("\n").map(blankDim);
}

function blankDim(line: string): string {
  let out = "";
  let dim = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (char === "\u001b") {
      const sgr = /^\u001b\[([0-9;:]*)m/.exec(line.slice(i));
      const other = sgr ? undefined : /^\u001b(\[[0-9;:?<>=]*[ -\/]*[@-~]|\][^\u0007\u001b]*(\u0007|\u001b\\)|.)/.exec(line.slice(i));
      if (sgr) dim = applySgr(dim, sgr[1]!);
      i += (sgr?.[0] ?? other?.[0] ?? "\u001b").length - 1;
      continue;
    }
    out += dim && char.trim() !== "" ? " " : char;
  }
  return out;
}

/** Whether text drawn after this SGR sequence is dim. */
function applySgr(dim: boolean, params: string): boolean {
  const codes = params === "" ? ["0"] : params.split(";");
  let next = dim;
  for (let i = 0; i < codes.length; i++) {
    const code = codes[i]!;
    if (code === "38" || code === "48" || code === "58") {
      // A colour: 5;n or 2;r;g;b follows.
      i += codes[i + 1] === "5" ? 2 : codes[i + 1] === "2" ? 4 : 0;
      continue;
    }
    if (code === "0" || code === "22") next = false;
    else if (code === "2") next = true;
  }
  return next;
}

/** The last line matching `pattern`: where it is, and its first group (the typed text), trimmed. */
function lastMatch(lines: string[], pattern: RegExp): { at: number; text: string } | undefined {
  for (let at = lines.length - 1; at >= 0; at--) {
    const match = pattern.exec(lines[at]!);
    if (match) return { at, text: (match[1] ?? "").trim() };
  }
  return undefined;
}

/** A reader that takes the last line matching `pattern`, whose first group is the typed text. */
export function lastLineReader(pattern: RegExp): InputLineReader {
  return (lines) => lastMatch(lines, pattern)?.text;
}

/**
 * A reader for an input box whose first line starts with a prompt mark and whose further lines follow it
 * indented, up to a blank line or the box's bottom rule (Codex: `› ` then `  …`, then a blank line; Claude Code:
 * `❯ ` then `  …`, then `───`): all of its text, so a draft whose first line is
 * empty (a paste that starts with a line break, Ctrl-J first) is not taken for an empty input.
 */
export function inputBoxReader(pattern: RegExp): InputLineReader {
  return (lines) => {
    const first = lastMatch(lines, pattern);
    if (first === undefined) return undefined;
    const parts = [first.text];
    for (let i = first.at + 1; i < lines.length && lines[i]!.trim() !== "" && !lines[i]!.startsWith("\u2500"); i++) parts.push(lines[i]!.trim());
    // Joined as the box wraps a long line: at its spaces.
    return parts.filter((part) => part !== "").join(" ");
  };
}

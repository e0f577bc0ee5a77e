// A stand-in host TUI for typing into a terminal without a model: raw keys and bracketed paste, Codex's
// input line drawn as `› …`, and one line per submitted line appended to a log (the time, then the text).
// A real host would start its turn at that moment. The live-typing bench uses it too.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const FAKE_TUI = `
const { appendFileSync } = require("node:fs");
const log = process.argv[2];
let line = "";
const draw = () => process.stdout.write("\\x1b[2J\\x1b[H› " + line);
process.stdin.setRawMode(true);
process.stdout.write("\\x1b[?2004h");
process.stdin.on("data", (data) => {
  for (const char of data.toString("utf8").replace(/\\x1b\\[20[01]~/g, "")) {
    if (char === "\\r") { if (line !== "") appendFileSync(log, (performance.timeOrigin + performance.now()).toFixed(3) + " " + line + "\\n"); line = ""; }
    else if (char === "\\x03") process.exit(0);
    else if (char === "\\x7f") line = line.slice(0, -1);
    else line += char;
  }
  draw();
});
draw();
`;

/** Writes the TUI's program into `dir`; run it as `node <path> <log>`. */
export function writeFakeTui(dir: string): string {
  const path = join(dir, "fake-tui.cjs");
  writeFileSync(path, FAKE_TUI);
  return path;
}

/** The lines the TUI took so far: when (ms since the epoch, to the microsecond) and what. */
export function submittedLines(log: string): Array<{ at: number; text: string }> {
  let text: string;
  try {
    text = readFileSync(log, "utf8");
  } catch {
    return [];
  }
  return text.split("\n").filter(Boolean).map((line) => {
    const space = line.indexOf(" ");
    return { at: Number(line.slice(0, space)), text: line.slice(space + 1) };
  });
}

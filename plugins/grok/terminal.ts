// The Grok TUI's input line, as tmux shows it (1.0.41): `│ ❯ ` inside a rounded box, closed by `│`;
// earlier prompts in the history show `❯` without the box.
import { lastLineReader } from "../../core/live/screen.js";

export const grokInputLine = lastLineReader(/^\s*\u2502 \u276f ?(.*?)\s*\u2502\s*$/);

// The Claude Code TUI's input line, as tmux shows it (2.1.332): `❯` and a no-break space at the left
// edge between two rules. Earlier prompts in the history look the same, so the last such line is the input.
import { lastLineReader } from "../../core/live/screen.js";

export const claudeInputLine = lastLineReader(/^\u276f[ \u00a0]?(.*)$/);

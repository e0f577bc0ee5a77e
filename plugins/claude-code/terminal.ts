// The Claude Code TUI's input line, as tmux shows it (2.1.332): `❯` and a no-break space at the left
// edge between two rules. Earlier prompts in the history look the same, so the last such line is the input.
import { inputBoxReader } from "../../core/live/screen.js";

// Lines of a multi-line draft follow it, indented, up to the box's bottom rule.
export const claudeInputLine = inputBoxReader(/^\u276f[ \u00a0]?(.*)$/);

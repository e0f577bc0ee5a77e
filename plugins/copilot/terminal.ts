// The Copilot CLI TUI's input line, as tmux shows it (1.0.102): `❯ ` at the left edge between two rules;
// earlier prompts in the history are indented by one space.
import { lastLineReader } from "../../core/live/screen.js";

export const copilotInputLine = lastLineReader(/^\u276f ?(.*)$/);

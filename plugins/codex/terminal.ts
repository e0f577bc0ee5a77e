// The Codex TUI's input line, as tmux shows it (codex-cli 0.171.0): `› ` at the left edge, the
// placeholder ("Ask Codex to do anything", …) drawn dim; earlier prompts in the history draw their `›` dim too.
import { lastLineReader } from "../../core/live/screen.js";

export const codexInputLine = lastLineReader(/^\u203a ?(.*)$/);

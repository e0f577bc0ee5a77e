// The Codex TUI's input line, as tmux shows it (codex-cli 0.171.0): `› ` at the left edge, the
// placeholder ("Ask Codex to do anything", …) drawn dim; earlier prompts in the history draw their `›` dim too.
import { inputBoxReader } from "../../core/live/screen.js";

// Lines of a multi-line draft follow it, indented, up to the blank line under the box.
export const codexInputLine = inputBoxReader(/^\u203a ?(.*)$/);

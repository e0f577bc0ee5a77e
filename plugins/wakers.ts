// Every host's headless-run commands, handed to core by the entry points (core never imports hosts).
import type { WakeDeps, Wakers } from "../core/wake/waker.js";
import { claudeCodeWaker } from "./claude-code/wake.js";
import { codexWaker } from "./codex/wake.js";
import { copilotWaker } from "./copilot/wake.js";
import { grokWaker } from "./grok/wake.js";
import { discoverAll } from "./discovery.js";

export const WAKERS: Wakers = { "claude-code": claudeCodeWaker, codex: codexWaker, copilot: copilotWaker, grok: grokWaker };

/** The wake set-up of this process: its own bundle runs `wake-run`. */
export function wakeDeps(entry: string = process.argv[1] ?? ""): WakeDeps {
  return { wakers: WAKERS, runnerEntry: entry, discover: discoverAll };
}

// A plugin's two hook programs, each run by hooks.cjs (loader.ts) for its own events. The edit program
// runs before (and after) every file-writing tool call, on some hosts before every tool call: it loads
// only the claims check, none of the mail, reminders or session upkeep the other events need.
import type { HookEvent } from "./dialect.js";

export const EDIT_EVENTS: readonly HookEvent[] = ["pre-tool", "post-tool"];
export const MAIL_EVENTS: readonly HookEvent[] = ["session-start", "user-prompt", "stop"];

/** The file, beside hooks.cjs, of the program that answers `event`. */
export function programFile(event: string): string {
  return (EDIT_EVENTS as readonly string[]).includes(event) ? "edit-program.cjs" : "hook-program.cjs";
}

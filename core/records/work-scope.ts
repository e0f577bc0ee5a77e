// The index scopes of work events (claims, tasks): not addresses (no colon), so no mail view reads them,
// and a claim check reads only the claims' lines, never the whole mailbox.
import type { MailboxEvent } from "./schemas.js";

export const CLAIMS_SCOPE = "claims";
export const TASKS_SCOPE = "tasks";

/** The scope of a work event, or undefined for mail and role events. */
export function workScope(event: MailboxEvent): string | undefined {
  if (event.type === "claim" || event.type === "release") return CLAIMS_SCOPE;
  if (event.type === "task" || event.type === "task_status") return TASKS_SCOPE;
  return undefined;
}

/**
 * Matches a line that may be a record of one of these types: `"type":"claim"` as JSON.stringify writes it,
 * with JSON's whitespace around the colon as another writer may, or any \u or \/ escape, which could spell
 * it otherwise (then the line is parsed, to be sure). A body quoting it has its quotes escaped.
 */
export function spelling(types: readonly MailboxEvent["type"][]): RegExp {
  return new RegExp(`"type"\\s*:\\s*"(?:${types.join("|")})"|\\\\[u/]`);
}

/** The lines that may be task events. */
export const TASK_LINE = spelling(["task", "task_status"]);

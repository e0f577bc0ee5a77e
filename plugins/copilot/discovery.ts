// Copilot CLI sessions from $COPILOT_HOME/session-state/<id>/workspace.yaml (verified with 1.0.102):
// flat `key: value` lines with the id, the working dir and the session's name; events.jsonl beside it is
// written on every turn, so its time is the last activity.
import { join } from "node:path";
import type { DiscoveredSession } from "../../core/sessions/discovery.js";
import { hostConfigDir } from "../shared/host-files.js";
import { discovered, entries, newestFiles, readBounded } from "../shared/session-files.js";

const WORKSPACE_BYTES = 16 * 1024;

/** A top-level scalar of the workspace file (plain or double-quoted); nested YAML is not needed. */
function yamlField(text: string, key: string): string | undefined {
  const match = new RegExp(`^${key}: (.*)$`, "m").exec(text);
  const raw = match?.[1]?.trim();
  if (!raw) return undefined;
  // Single-quoted: a quote inside is doubled (`'bob''s app'`).
  const single = /^'(.*)'$/.exec(raw);
  if (single) return single[1]!.replace(/''/g, "'");
  if (!raw.startsWith('"')) return raw;
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}

export function discoverCopilotSessions(env: NodeJS.ProcessEnv): DiscoveredSession[] {
  const root = join(hostConfigDir(env, "COPILOT_HOME", ".copilot"), "session-state");
  const events = newestFiles(entries(root, "dir").map((id) => join(root, id, "events.jsonl")));
  return events.flatMap((file) => {
    const dir = file.path.slice(0, -"/events.jsonl".length);
    const workspace = readBounded(join(dir, "workspace.yaml"), WORKSPACE_BYTES);
    const sessionId = yamlField(workspace, "id");
    const row = discovered("copilot", "copilot", sessionId, { cwd: yamlField(workspace, "cwd"), title: yamlField(workspace, "name"), mtimeMs: file.mtimeMs });
    return row && dir.endsWith(`/${row.sessionId}`) ? [row] : [];
  });
}

// Grok sessions from $GROK_HOME/sessions/<url-encoded cwd>/<id>/summary.json (verified with 1.0.41):
// `info.id`, `info.cwd` and the generated title.
import { join } from "node:path";
import type { DiscoveredSession } from "../../core/sessions/discovery.js";
import { hostConfigDir } from "../shared/host-files.js";
import { discovered, entries, newestFiles, readBounded, stringField } from "../shared/session-files.js";

const SUMMARY_BYTES = 64 * 1024;

export function discoverGrokSessions(env: NodeJS.ProcessEnv): DiscoveredSession[] {
  const root = join(hostConfigDir(env, "GROK_HOME", ".grok"), "sessions");
  const paths = entries(root, "dir").flatMap((project) => entries(join(root, project), "dir").map((id) => join(root, project, id, "summary.json")));
  return newestFiles(paths).flatMap((file) => {
    let summary: unknown;
    try {
      summary = JSON.parse(readBounded(file.path, SUMMARY_BYTES));
    } catch {
      return [];
    }
    if (!summary || typeof summary !== "object" || Array.isArray(summary)) return [];
    const info = (summary as { info?: unknown }).info;
    const row = discovered("grok", "grok", stringField(info, "id"), { cwd: stringField(info, "cwd"), title: stringField(summary, "generated_title") ?? stringField(summary, "session_summary"), mtimeMs: file.mtimeMs });
    return row && file.path.endsWith(`/${row.sessionId}/summary.json`) ? [row] : [];
  });
}

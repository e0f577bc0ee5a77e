// Codex sessions from its rollouts: $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl (verified
// with 0.171.0); the first record, `session_meta`, carries the id and the working dir. Codex keeps thread
// names in its SQLite state, which peerpost does not read.
import { join } from "node:path";
import type { DiscoveredSession } from "../../core/sessions/discovery.js";
import { hostConfigDir } from "../shared/host-files.js";
import { discovered, entries, HEAD_BYTES, newestFiles, readBounded } from "../shared/session-files.js";

/**
 * The first line can be longer than the head read (it carries the base instructions), so its two fields,
 * which come before them, are matched rather than parsed.
 */
function metaField(head: string, key: string): string | undefined {
  const match = new RegExp(`"${key}":("(?:[^"\\\\]|\\\\.)*")`).exec(head.slice(0, head.indexOf("\n") >>> 0));
  if (!match) return undefined;
  try {
    return JSON.parse(match[1]!) as string;
  } catch {
    return undefined;
  }
}

export function discoverCodexSessions(env: NodeJS.ProcessEnv): DiscoveredSession[] {
  const root = join(hostConfigDir(env, "CODEX_HOME", ".codex"), "sessions");
  const paths: string[] = [];
  for (const year of entries(root, "dir"))
    for (const month of entries(join(root, year), "dir"))
      for (const day of entries(join(root, year, month), "dir"))
        for (const name of entries(join(root, year, month, day), "file")) if (name.startsWith("rollout-") && name.endsWith(".jsonl")) paths.push(join(root, year, month, day, name));
  return newestFiles(paths).flatMap((file) => {
    const head = readBounded(file.path, HEAD_BYTES);
    if (!head.startsWith('{"') || !head.includes('"session_meta"')) return [];
    // A sub-agent's rollout (spawn_agent) names its parent thread: it is part of the parent's turn, not a session.
    if (metaField(head, "parent_thread_id") !== undefined) return [];
    const row = discovered("codex", "codex", metaField(head, "id"), { cwd: metaField(head, "cwd"), mtimeMs: file.mtimeMs });
    return row ? [row] : [];
  });
}

// Claude Code sessions from its transcripts: $CLAUDE_CONFIG_DIR/projects/<cwd-slug>/<session-id>.jsonl
// (verified with 2.1.332). The working dir is the first record's `cwd`; the title is the last
// `custom-title` or `ai-title` record, else the last prompt.
import { join } from "node:path";
import type { DiscoveredSession } from "../../core/discovery.js";
import { hostConfigDir } from "../shared/host-files.js";
import { discovered, entries, HEAD_BYTES, jsonLines, newestFiles, readBounded, stringField, TAIL_BYTES } from "../shared/session-files.js";

export function discoverClaudeSessions(env: NodeJS.ProcessEnv): DiscoveredSession[] {
  const projects = join(hostConfigDir(env, "CLAUDE_CONFIG_DIR", ".claude"), "projects");
  const paths = entries(projects, "dir").flatMap((project) =>
    entries(join(projects, project), "file")
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => join(projects, project, name)),
  );
  return newestFiles(paths).flatMap((file) => {
    const head = jsonLines(readBounded(file.path, HEAD_BYTES));
    const tail = jsonLines(readBounded(file.path, TAIL_BYTES, "tail")).reverse();
    const sessionId = head.map((record) => stringField(record, "sessionId")).find(Boolean);
    const title = tail.map((record) => stringField(record, "customTitle") ?? stringField(record, "aiTitle")).find(Boolean) ?? tail.map((record) => stringField(record, "lastPrompt")).find(Boolean);
    const row = discovered("claude-code", "claude", sessionId, { cwd: head.map((record) => stringField(record, "cwd")).find(Boolean), title, mtimeMs: file.mtimeMs });
    return row && file.path.endsWith(`${row.sessionId}.jsonl`) ? [row] : [];
  });
}

// Claude Code sessions from its transcripts: $CLAUDE_CONFIG_DIR/projects/<cwd-slug>/<session-id>.jsonl
// (verified with 2.1.332). The working dir is the first record's `cwd`; the title is the last
// `custom-title` or `ai-title` record, else the last prompt.
import { join } from "node:path";
import type { DiscoveredSession } from "../../core/sessions/discovery.js";
import { hostConfigDir } from "../shared/host-files.js";
import { discovered, entries, HEAD_BYTES, LONG_HEAD_BYTES, newestFiles, readBounded, scanJsonLines, stringField, TAIL_BYTES } from "../shared/session-files.js";

/** Transcripts per listing read past the head: a store of junk files costs a few megabytes, not hundreds. */
const MAX_LONG_READS = 16;

export function discoverClaudeSessions(env: NodeJS.ProcessEnv): DiscoveredSession[] {
  const projects = join(hostConfigDir(env, "CLAUDE_CONFIG_DIR", ".claude"), "projects");
  const paths = entries(projects, "dir").flatMap((project) =>
    entries(join(projects, project), "file")
      .filter((name) => name.endsWith(".jsonl"))
      .map((name) => join(projects, project, name)),
  );
  let longReads = MAX_LONG_READS;
  return newestFiles(paths).flatMap((file) => {
    let sessionId: string | undefined;
    let cwd: string | undefined;
    const visit = (record: Record<string, unknown>): boolean => {
      sessionId ??= stringField(record, "sessionId");
      cwd ??= stringField(record, "cwd");
      return sessionId !== undefined && cwd !== undefined;
    };
    scanJsonLines(readBounded(file.path, HEAD_BYTES), visit);
    // A long first prompt (a diff piped into `claude -p`) fills the head with lines cut short: read further, once.
    if ((sessionId === undefined || cwd === undefined) && longReads-- > 0) scanJsonLines(readBounded(file.path, LONG_HEAD_BYTES), visit);
    let title: string | undefined;
    let lastPrompt: string | undefined;
    scanJsonLines(
      readBounded(file.path, TAIL_BYTES, "tail"),
      (record) => {
        lastPrompt ??= stringField(record, "lastPrompt");
        title = stringField(record, "customTitle") ?? stringField(record, "aiTitle");
        return title !== undefined;
      },
      true,
    );
    const row = discovered("claude-code", "claude", sessionId, { cwd, title: title ?? lastPrompt, mtimeMs: file.mtimeMs });
    return row && file.path.endsWith(`${row.sessionId}.jsonl`) ? [row] : [];
  });
}

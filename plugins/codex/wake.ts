// Codex run headless for peerpost (verified with 0.171.0, see README.md): `codex exec --json resume <id>
// <prompt>`. --skip-git-repo-check because a session's dir need not be a git repository. Peerpost's
// read and reply run without approval (read is read-only; see the plugin's approval settings).
import type { Waker } from "../../core/wake/waker.js";

/** The last agent message or turn outcome in `codex exec --json` events. */
function report(stdout: string): string | undefined {
  let found: string | undefined;
  for (const line of stdout.trim().split("\n")) {
    try {
      const event = JSON.parse(line) as { type?: string; item?: { type?: string; text?: string }; error?: { message?: string } };
      if (event.type === "item.completed" && event.item?.type === "agent_message") found = `agent: ${String(event.item.text ?? "").slice(0, 500)}`;
      if (event.type === "turn.failed" || event.type === "error") found = `failed: ${event.error?.message ?? line.slice(0, 500)}`;
    } catch {
      // not an event line
    }
  }
  return found;
}

export const codexWaker: Waker = {
  host: "codex",
  resume: ({ sessionId, prompt }) => ({ command: "codex", args: ["exec", "--skip-git-repo-check", "--json", "resume", sessionId, prompt] }),
  report,
};

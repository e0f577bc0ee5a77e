// Codex run headless for peerpost (verified with 0.171.0, see README.md): `codex exec --json resume <id>
// -`, the prompt on stdin. --skip-git-repo-check because a session's dir need not be a git repository. Peerpost's
// read and reply run without approval (read is read-only; see the plugin's approval settings).
import type { LaunchInput, RunSettings, Waker } from "../../core/wake/waker.js";
import { tokenCount, usageInJsonLines } from "../../core/wake/usage.js";
import { isCodexProcess } from "../shared/host-processes.js";

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

/** The last agent message of `codex exec --json`, whole. */
function lastAgentMessage(stdout: string): string | undefined {
  let found: string | undefined;
  for (const line of stdout.split("\n")) {
    try {
      const event = JSON.parse(line) as { type?: string; item?: { type?: string; text?: unknown } };
      if (event.type === "item.completed" && event.item?.type === "agent_message" && typeof event.item.text === "string") found = event.item.text;
    } catch {
      // not an event line
    }
  }
  return found;
}

/** Each `turn.completed` event's usage (input_tokens counts the cached ones too). */
function usage(stdout: string) {
  return usageInJsonLines(stdout, (event) =>
    event["type"] === "turn.completed" && typeof event["usage"] === "object"
      ? { input: tokenCount(event["usage"], "input_tokens"), cachedInput: tokenCount(event["usage"], "cached_input_tokens"), output: tokenCount(event["usage"], "output_tokens") }
      : undefined,
  );
}

/** `thread.started` (the first event of `codex exec --json`) names the new thread. */
function threadStarted(line: string): string | undefined {
  try {
    const event = JSON.parse(line) as { type?: string; thread_id?: unknown };
    return event.type === "thread.started" && typeof event.thread_id === "string" ? event.thread_id : undefined;
  } catch {
    return undefined;
  }
}

/** `-c key=value` overrides take TOML values: a JSON string or array of strings is one. */
const override = (key: string, value: unknown): string[] => ["-c", `${key}=${JSON.stringify(value)}`];

/** `-m` and the `model_reasoning_effort` config key (`codex exec --help`, 0.171.0); placed before the subcommand's arguments. */
export function codexSettingFlags(settings: RunSettings | undefined): string[] {
  return [...(settings?.model ? ["-m", settings.model] : []), ...(settings?.effort ? override("model_reasoning_effort", settings.effort) : [])];
}

/**
 * peerpost's server on the command line as a user-level server (`mcp_servers.peerpost`), with only `reply`
 * approved beyond the read-only tools (codex exec never asks, so an unapproved tool would fail): a launch's, and its resumes'.
 */
function launchedServer(server: LaunchInput["server"]): string[] {
  return [
    ...override("mcp_servers.peerpost.command", server.command),
    ...override("mcp_servers.peerpost.args", server.args),
    ...Object.entries(server.env).flatMap(([name, value]) => override(`mcp_servers.peerpost.env.${name}`, value)),
    ...override("mcp_servers.peerpost.tools.reply.approval_mode", "approve"),
  ];
}

export const codexWaker: Waker = {
  host: "codex",
  binary: "codex",
  isHostProcess: isCodexProcess,
  // Codex keeps threads under CODEX_HOME, not per directory: a thread resumes from any working dir.
  settings: { model: true, effort: true, efforts: ["minimal", "low", "medium", "high", "xhigh"], cwdOnResume: true },
  // A prompt of "-" is read from stdin (0.171.0's --help, for exec, resume and fork alike).
  // A launched thread gets its server again: the command line that gave it to the launch is not kept.
  resume: ({ sessionId, prompt, settings, server }) => ({ command: "codex", args: ["exec", "--skip-git-repo-check", "--json", ...codexSettingFlags(settings), ...(server ? launchedServer(server) : []), "resume", sessionId, "-"], stdin: prompt }),
  // A new thread's id cannot be chosen: codex names it in `thread.started`. Peerpost's server comes on the command line.
  launchNamedByHost: {
    command: ({ prompt, server, settings }) => ({
      command: "codex",
      args: [
        "exec",
        "--skip-git-repo-check",
        "--json",
        ...codexSettingFlags(settings),
        ...launchedServer(server),
        "-",
      ],
      stdin: prompt,
    }),
    sessionIdIn: threadStarted,
  },
  // `codex exec fork <id> -` copies the thread into a new one, named in `thread.started`.
  fork: {
    choosesId: false,
    command: ({ sessionId, prompt, settings }) => ({ command: "codex", args: ["exec", "--skip-git-repo-check", "--json", ...codexSettingFlags(settings), "fork", sessionId, "-"], stdin: prompt }),
    forkNamed: threadStarted,
  },
  finalAnswer: lastAgentMessage,
  // `codex archive <id>` (0.171.0) moves the rollout out of the session list, into archived_sessions.
  archive: (sessionId) => ({ command: "codex", args: ["archive", sessionId] }),
  report,
  usage,
};

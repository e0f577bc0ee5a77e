// The hook program's shell: read the host's stdin, run the logic, print the answer. It never breaks
// the user's prompt: on any failure (bad stdin, unreadable state, a bug, a hang) it prints nothing,
// exits 0, and logs the error under the state dir for `peerpost doctor`.
import { loadConfig } from "../core/config.js";
import { resolveStateDirPath } from "../core/state-dir.js";
import { logError } from "../core/error-log.js";
import { runHookLogic } from "./logic.js";
import type { HookDialect, HookEvent } from "./dialect.js";

const EVENTS: HookEvent[] = ["session-start", "user-prompt", "stop"];
/** A hook that has not answered by then gives up silently rather than hold the prompt. */
const DEADLINE_MS = 5000;

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    process.stdin.on("data", (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", () => resolve(""));
  });
}

function report(where: string, error: unknown): void {
  try {
    logError(resolveStateDirPath(loadConfig(process.env).home).path, where, error);
  } catch {
    // No usable state dir: nowhere to log, and still nothing to print.
  }
}

export async function runHook(dialect: HookDialect, argv: string[] = process.argv.slice(2)): Promise<void> {
  const deadline = setTimeout(() => process.exit(0), DEADLINE_MS);
  deadline.unref();
  const event = argv[0] as HookEvent;
  try {
    if (!EVENTS.includes(event)) throw new Error(`unknown hook event ${JSON.stringify(argv[0])}`);
    const raw = await readStdin();
    if (raw.trim() === "") return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return report(`${dialect.host} ${event}`, new Error("hook stdin is not JSON"));
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return;
    const input = dialect.parse(event, parsed as Record<string, unknown>);
    if (!input) return report(`${dialect.host} ${event}`, new Error("hook stdin has no usable session id"));
    const outcome = await runHookLogic(dialect, event, input, process.env);
    if (outcome.stdout !== undefined) process.stdout.write(outcome.stdout + "\n");
  } catch (error) {
    report(`${dialect.host} ${event}`, error);
  } finally {
    process.exitCode = 0;
  }
}

// Runs one claimed headless turn of a host (wake, launch or fork) detached, in its own process group,
// with the environment captured at the session's start, in the claim's working dir. Its output goes to
// a size-capped log under the state dir; its outcome is recorded in the wakes log and as a receipt.
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { nodeChildProcess } from "../common/child-process.js";
import { closeSync, rmSync, writeSync } from "node:fs";
import { isDirectory } from "../common/is-directory.js";
import { join } from "node:path";
import type { Peerpost } from "../peerpost.js";
import { ensurePrivateDir, openEmptiedStateFile } from "../security/trust.js";
import { loadHostEnv, runEnvironment } from "./host-env.js";
import { findOnPath } from "./host-binary.js";
import { stopGroup } from "./request.js";
import { KIND_OF_HOST } from "./launch-bind.js";
import { processStartTime } from "../sessions/process-tree.js";
import { settingTags } from "./settings.js";
import { usageTags } from "./usage.js";
import type { RunCommand, Waker } from "./waker.js";
import type { WakeClaim, WakeEnded } from "./records.js";

/** What gives a session roles or the role tool: its own start-up's, never carried into another session's run. */
const SESSION_ROLE_VARIABLES = ["PEERPOST_ROLES", "PEERPOST_ROLE_ADMIN"];

/** Bytes of a run's output kept in its log; the rest is counted, not stored. */
export const OUTPUT_CAP_BYTES = 256 * 1024;
/** The longest stdout line read for a session's name (a longer one is skipped). */
const LINE_CAP = 1024 * 1024;
/** The tail of stdout kept in memory for the host's report. */
const REPORT_TAIL_BYTES = 16 * 1024;
const KILL_GRACE_MS = 5000;
/** How long a host's output may still drain after it exited, before the run ends without the rest. */
const EXIT_DRAIN_MS = 2000;

/** Of the cap, the bytes kept from the end of the output: a host's final answer is its last line(s). */
const LOG_TAIL_BYTES = 64 * 1024;

/**
 * A log file of at most OUTPUT_CAP_BYTES of what is written to it: its beginning and, past the cap, its
 * last complete lines, where a host's final answer is (a fork's answer is read from the log, fork-run.ts).
 */
function cappedLog(path: string): { write(chunk: Buffer): void; close(): void } {
  // A state file: never written through a link (a fork's answer is read back from it).
  const fd = openEmptiedStateFile(path);
  const head = OUTPUT_CAP_BYTES - LOG_TAIL_BYTES;
  let written = 0;
  let dropped = 0;
  let tail = Buffer.alloc(0);
  return {
    write: (chunk) => {
      const room = Math.max(0, head - written);
      if (room > 0) written += writeSync(fd, chunk.subarray(0, Math.min(room, chunk.length)));
      const rest = chunk.subarray(Math.min(room, chunk.length));
      if (rest.length === 0) return;
      dropped += rest.length;
      tail = Buffer.concat([tail, rest]);
      if (tail.length > LOG_TAIL_BYTES) tail = tail.subarray(tail.length - LOG_TAIL_BYTES);
    },
    close: () => {
      if (dropped > 0) {
        // The tail from its first whole line: a line cut in two would parse as nothing.
        const start = dropped > tail.length ? tail.indexOf(10) + 1 : 0;
        const kept = start > 0 || dropped === tail.length ? tail.subarray(start) : Buffer.alloc(0);
        writeSync(fd, `\n[peerpost: output capped at ${OUTPUT_CAP_BYTES} bytes; ${dropped - kept.length} bytes dropped before the last ${kept.length}]\n`);
        if (kept.length > 0) writeSync(fd, kept);
      }
      closeSync(fd);
    },
  };
}

export interface SessionNaming {
  sessionIdIn(line: string): string | undefined;
  bind(sessionId: string): Promise<boolean>;
}

interface RunOutcome {
  ended: Omit<WakeEnded, "v" | "type" | "id" | "at">;
}

interface HostRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  logPath: string;
  /** Where the prompt is written for the host's stdin (unlinked once open). */
  promptPath: string;
  /** What the host reported, and its usage, from the tail of its stdout. */
  waker: Waker;
  onSpawn: (pid: number) => void;
  /** Each complete stdout line, as it comes. */
  onLine?: (line: string) => void;
}

/**
 * The prompt as the host's stdin: a private file, unlinked once open. A file, not a pipe, so a host that
 * opens its stdin by path reads it too (Grok's `--prompt-file /dev/stdin`: node's pipes are sockets,
 * which /dev/stdin cannot open); written at an offset, so the host reads it from its start.
 */
function spawnWithPrompt(command: string, args: string[], prompt: string, options: HostRunOptions): ChildProcessByStdio<null, Readable, Readable> {
  const input = openEmptiedStateFile(options.promptPath);
  try {
    rmSync(options.promptPath);
    writeSync(input, prompt, 0, "utf8");
    return nodeChildProcess().spawn(command, args, { cwd: options.cwd, env: options.env, stdio: [input, "pipe", "pipe"], detached: true }) as ChildProcessByStdio<null, Readable, Readable>;
  } finally {
    closeSync(input);
  }
}

function runHost({ command, args, stdin }: RunCommand, options: HostRunOptions): Promise<RunOutcome> {
  const started = Date.now();
  const log = cappedLog(options.logPath);
  let tail = "";
  let stderrTail = "";
  return new Promise((resolve) => {
    let timedOut = false;
    let spawnError: Error | undefined;
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawnWithPrompt(command, args, stdin, options);
    } catch (error) {
      log.close();
      throw error;
    }
    if (child.pid !== undefined) options.onSpawn(child.pid);
    // The line under way, whole: a line that names the session may be long (Claude Code's result line
    // carries the whole answer before its session_id) and come in several reads. One past LINE_CAP is
    // skipped to its end.
    let partial = "";
    let overlong = false;
    child.stdout.on("data", (chunk: Buffer) => {
      log.write(chunk);
      const text = chunk.toString("utf8");
      tail = (tail + text).slice(-REPORT_TAIL_BYTES);
      if (!options.onLine) return;
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) {
        if (overlong) overlong = false;
        else options.onLine(line);
      }
      if (partial.length > LINE_CAP) {
        partial = "";
        overlong = true;
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      log.write(chunk);
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    const kill = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill("SIGTERM");
      setTimeout(() => kill("SIGKILL"), KILL_GRACE_MS).unref();
    }, options.timeoutMs);
    child.on("error", (error) => (spawnError = error));
    // The outcome is the host's exit: a process it left behind holding its stdout/stderr (an MCP server
    // with inherited stderr, a backgrounded command) must not keep the run open until the turn timeout.
    let settled = false;
    let lingering: NodeJS.Timeout | undefined;
    child.on("exit", (code, signal) => {
      lingering = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        settle(code, signal);
      }, EXIT_DRAIN_MS);
    });
    child.on("close", (code, signal) => settle(code, signal));
    const settle = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      // A last line without its newline is a line too.
      if (options.onLine && partial !== "" && !overlong) options.onLine(partial);
      clearTimeout(lingering);
      clearTimeout(timer);
      // A stopped turn's group goes with it now: the grace timer is unref'd and this runner exits next,
      // so a process of the host's that ignored SIGTERM would outlive the run.
      if (timedOut) kill("SIGKILL");
      log.close();
      const durationMs = Date.now() - started;
      const ended: RunOutcome["ended"] = { outcome: "ok", durationMs, logPath: options.logPath };
      if (code !== null && !spawnError) ended.exitCode = code;
      if (signal !== null) ended.signal = signal;
      const report = reportOf(options.waker, tail);
      if (report !== undefined) ended.report = report.slice(0, 2000);
      const usage = options.waker.usage?.(tail);
      if (usage) ended.usage = usage;
      if (spawnError) {
        ended.outcome = "failed";
        // spawn says ENOENT for a working dir that is gone as for a missing binary: which one, said apart.
        const missing = (spawnError as NodeJS.ErrnoException).code === "ENOENT";
        const noDir = missing && !isDirectory(options.cwd);
        ended.reason = (
          noDir
            ? `the working directory ${options.cwd} does not exist (any more)`
            : missing
              ? `host_not_found: ${command} is not on the run's PATH (${options.env.PATH ?? ""})`
              : `could not start ${command}: ${spawnError.message}`
        ).slice(0, 2000);
      } else if (timedOut) {
        ended.outcome = "timeout";
        ended.reason = `the turn ran past PEERPOST_WAKE_TIMEOUT_MS (${options.timeoutMs} ms) and was stopped`;
      } else if (code !== 0) {
        ended.outcome = "failed";
        const last = stderrTail.trim().split("\n").pop() ?? "";
        ended.reason = `${command} exited ${code ?? signal}${last ? `: ${last}` : ""}`.slice(0, 2000);
      }
      resolve({ ended });
    };
  });
}

function lastLine(stdout: string): string | undefined {
  const line = stdout.trim().split("\n").pop()?.trim();
  return line ? line : undefined;
}

/** What the host said about the turn: its own report, else its last line. */
function reportOf(waker: Waker, stdout: string): string | undefined {
  return waker.report?.(stdout) ?? lastLine(stdout);
}

/**
 * The environment a claim's host runs with: the session's own capture (`own`, for a wake or fork), else
 * the newest capture of its host, pointed at this state dir. A fork's housekeeping (its archive) uses it too.
 */
export function claimEnvironment(peerpost: Peerpost, claim: WakeClaim): { own: Record<string, string> | undefined; env: NodeJS.ProcessEnv } {
  const own = claim.kind !== "launch" && claim.address !== undefined ? loadHostEnv(peerpost.stateDir.path, claim.address) : undefined;
  const env: NodeJS.ProcessEnv = { ...(own ?? runEnvironment(peerpost.stateDir.path, KIND_OF_HOST[claim.host])), PEERPOST_HOME: peerpost.stateDir.path };
  // A launch or a fork is a new session: the roles and the role tool another session was started with are
  // that session's (a person's switch, docs/tools.md), never lent to a session an agent asked for.
  if (claim.kind !== "wake") for (const name of SESSION_ROLE_VARIABLES) delete env[name];
  return { own, env };
}

/** Runs one claimed wake (or launch) to its end and records the outcome. */
export async function runClaim(
  peerpost: Peerpost,
  claim: WakeClaim,
  hostCommand: RunCommand,
  waker: Waker,
  /** For a run whose host names a new session itself: how a stdout line names it, and what to do then (false: stop the host). */
  naming?: SessionNaming,
): Promise<WakeEnded> {
  const { wakes, config } = peerpost;
  const at = () => new Date(config.now()).toISOString();
  await wakes.append({ v: 1, type: "wake-started", id: claim.id, runnerPid: process.pid, command: hostCommand.command.slice(0, 200), at: at() });
  // The host's own start-up environment (see host-env.ts), pointed at this state dir.
  // A launch has no capture of its own yet: the newest session of that host lends its environment.
  // A session known only from its host's files has no capture either.
  // A fork resumes the session's own history: it needs that session's config dir and credentials too.
  const { own, env } = claimEnvironment(peerpost, claim);
  let recorded: Promise<unknown> = Promise.resolve();
  let hostPid: number | undefined;
  const onSpawn = (pid: number) => {
    hostPid = pid;
    const pidStart = processStartTime(pid);
    recorded = wakes.append({ v: 1, type: "wake-host", id: claim.id, pid, ...(pidStart !== undefined ? { pidStart } : {}), at: at() }).catch(() => undefined);
  };
  let binding: Promise<boolean> | undefined;
  const onLine = (line: string) => {
    const sessionId = binding === undefined ? naming?.sessionIdIn(line) : undefined;
    if (sessionId === undefined || !naming) return;
    // The launcher gave up before the host named the session: stop the host rather than leave it unaddressed.
    binding = naming.bind(sessionId).catch(() => false);
    void binding.then((bound) => {
      if (!bound && hostPid !== undefined) stopGroup(hostPid);
    });
  };
  // Only a session's own capture (from its verified host process) picks the binary by its PATH. Any other
  // run starts the binary on the PATH of whoever asked for it (what `peerpost doctor` reports there),
  // never one that another session's capture would lend.
  const binary = own && claim.kind === "wake" ? hostCommand.command : findOnPath(hostCommand.command, process.env.PATH);
  let outcome: RunOutcome;
  try {
    // The run's log and prompt file are state files, in a dir of this user's own (never a link).
    ensurePrivateDir(wakes.outputDir);
    outcome =
      binary === undefined
        ? { ended: { outcome: "failed", reason: `host_not_found: ${hostCommand.command} is not on the PATH of the process that asked for this run (${process.env.PATH ?? ""}); \`peerpost doctor\` shows which host CLIs it finds` } }
        : await runHost({ ...hostCommand, command: binary }, { cwd: claim.cwd, env, timeoutMs: config.wake.timeoutMs, logPath: join(wakes.outputDir, `${claim.id}.log`), promptPath: join(wakes.outputDir, `${claim.id}.prompt`), waker, onSpawn, ...(naming ? { onLine } : {}) });
  } catch (error) {
    // A refused run dir or file ends the run with the reason, rather than leaving it claimed until its deadline.
    outcome = { ended: { outcome: "failed", reason: `state_io: ${(error as Error).message}`.slice(0, 2000) } };
  }
  await recorded;
  const bound = naming ? await (binding ?? Promise.resolve(false)) : true;
  if (!bound && outcome.ended.outcome === "ok") Object.assign(outcome.ended, { outcome: "failed", reason: `${claim.host} ended without naming its new session (or the launch had already given up on it)` });
  // A bound launch: the claim now names the session and its first message.
  claim = peerpost.wakes.fold().runs.get(claim.id)?.claim ?? claim;
  const ended: WakeEnded = { v: 1, type: "wake-ended", id: claim.id, ...outcome.ended, at: at() };
  const first = claim.messageIds[0];
  const address = claim.address ?? `${KIND_OF_HOST[claim.host]}:${claim.id}`;
  const message = first === undefined || claim.address === undefined ? undefined : peerpost.mailbox.view(claim.address).state.messages[first];
  await peerpost.receipts
    .record({
      kind: claim.kind,
      host: claim.host,
      from: message?.from ?? address,
      to: address,
      messageId: first ?? claim.id,
      delivery: ended.outcome === "ok" ? "delivered" : "failed",
      via: `${claim.kind}:${claim.id}`,
      warnings: ended.reason === undefined ? [] : [ended.reason],
      ...(claim.settings || ended.usage ? { tags: [...settingTags(claim.settings ?? {}), ...usageTags(ended.usage)] } : {}),
      origin: { source: "host", detail: `${claim.kind} runner`, pid: process.pid, cwd: claim.cwd },
    })
    .catch(() => undefined);
  // The receipt goes first: whoever sees the run ended finds its receipt too.
  await wakes.append(ended);
  return ended;
}


// The hook program's shell: read the host's stdin, run the logic, print the answer. It never breaks
// the user's prompt: on any failure (bad stdin, unreadable state, a bug, a hang) it prints nothing,
// exits 0, and logs the error under the state dir for `peerpost doctor`.
import { closeSync, constants, existsSync, fstatSync, openSync, readFileSync, readSync, writeSync } from "node:fs";
import { resolveStateDirPath } from "../core/security/state-dir.js";
import { logError } from "../core/common/error-log.js";
import type { HookDialect, HookEvent, HookInput } from "./dialect.js";
import { EDIT_EVENTS } from "./programs.js";

/** What a hook prints, if anything. */
export interface HookOutcome {
  stdout?: string;
}

/** One hook program: the events it answers, and how. */
export interface HookProgram {
  events: readonly HookEvent[];
  logic: (dialect: HookDialect, event: HookEvent, input: HookInput, env: NodeJS.ProcessEnv) => Promise<HookOutcome>;
}
/** A hook that has not answered by then gives up silently rather than hold the prompt. */
const DEADLINE_MS = 5000;

/** Stdin larger than this is not a hook event; the hook gives up on it, and logs why. */
const MAX_STDIN_BYTES = 1024 * 1024;
/** An edit event carries the text the tool writes (a generated file, a lockfile): checked up to this size. */
const MAX_EDIT_EVENT_BYTES = 64 * 1024 * 1024;

/** What readStdin gives for stdin past the limit: not read further. */
const TOO_LARGE = Symbol("too large");
type Stdin = string | typeof TOO_LARGE;


/**
 * Hosts pipe the event JSON and usually close stdin. A file is read at once; a pipe, FIFO or socket is
 * read without blocking the event loop (a socket after its first read: readSocket), so the deadline
 * still fires when the host leaves stdin open, and reading stops as soon as one whole JSON value is in.
 * A terminal (or no stdin) gives nothing.
 */
function readStdin(limit: number): Promise<Stdin> {
  let stat;
  try {
    stat = fstatSync(0);
  } catch {
    return Promise.resolve("");
  }
  if (stat.isFile()) return Promise.resolve(stat.size > limit ? TOO_LARGE : readFileSync(0, "utf8"));
  if (stat.isSocket()) return readSocket(limit);
  if (!stat.isFIFO()) return Promise.resolve("");
  const fd = reopenNonBlocking();
  return fd === undefined ? readStream(new EventBytes(limit)) : pollPipe(fd, limit);
}

const [QUOTE, BACKSLASH, OPEN_BRACE, CLOSE_BRACE, OPEN_BRACKET, CLOSE_BRACKET] = ['"', "\\", "{", "}", "[", "]"].map((char) => char.charCodeAt(0));

/**
 * The event's bytes as they come. A scan that carries its state from read to read (inside a string, after a
 * backslash, nesting depth) says when the top-level value closes; only then is the text decoded, and
 * parsed once: a large event in many reads is not parsed after every read that ends in a brace.
 */
class EventBytes {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly limit: number) {}

  /** Adds a read's bytes (a copy of them): the event's text once its top-level value closed, TOO_LARGE past the limit, else undefined. */
  add(chunk: Buffer): Stdin | undefined {
    this.chunks.push(Buffer.from(chunk));
    this.bytes += chunk.length;
    if (this.bytes > this.limit) return TOO_LARGE;
    let closed = false;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
      } else if (byte === QUOTE) this.inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.depth++;
      else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --this.depth === 0) closed = true;
    }
    // Closed, the value is whole (a host may leave stdin open after it): runHook parses it, once. Had it
    // been no valid JSON, no more bytes could have made it one.
    return closed ? this.text() : undefined;
  }

  /** All the bytes read, as text (at end-of-file). */
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/**
 * A pipe opened anew (Linux: /proc/self/fd/0) without blocking: reads that find it empty return at once.
 * A blocking read off the main thread would not do: a thread stuck in read() holds the process past its exit.
 */
function reopenNonBlocking(): number | undefined {
  try {
    return openSync("/proc/self/fd/0", constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
}

/** Reads what the pipe has, then looks again every millisecond until one whole JSON value or end-of-file. */
function pollPipe(fd: number, limit: number): Promise<Stdin> {
  const event = new EventBytes(limit);
  const buffer = Buffer.allocUnsafe(64 * 1024);
  return new Promise((resolve) => {
    const finish = (text: Stdin) => {
      closeSync(fd);
      resolve(text);
    };
    const next = () => {
      for (;;) {
        let count: number;
        try {
          count = readSync(fd, buffer, 0, buffer.length, null);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EAGAIN") return void setTimeout(next, 1);
          return finish("");
        }
        if (count === 0) return finish(event.text());
        const whole = event.add(buffer.subarray(0, count));
        if (whole !== undefined) return finish(whole);
      }
    };
    next();
  });
}

/**
 * A socket. Claude Code 2.1.332 gives its hooks a socketpair; Codex 0.171.0, Copilot CLI 1.0.102 and Grok
 * 1.0.41 give a pipe (seen by running each: `readlink /proc/self/fd/0` in a hook). A socket cannot be
 * reopened without blocking as a pipe is, and process.stdin costs a hook about 15 ms (Node's net and stream
 * modules), so the first read blocks: Claude Code writes the whole event as it starts the hook, and that
 * read returns it. Only the rest of an event that came in parts is read through process.stdin, under the
 * deadline. A host that started a hook and never wrote to it would hold it until the host's own timeout.
 */
function readSocket(limit: number): Promise<Stdin> {
  const buffer = Buffer.allocUnsafe(64 * 1024);
  let count: number;
  try {
    count = readSync(0, buffer, 0, buffer.length, null);
  } catch {
    return Promise.resolve("");
  }
  if (count === 0) return Promise.resolve("");
  const event = new EventBytes(limit);
  const whole = event.add(buffer.subarray(0, count));
  return whole !== undefined ? Promise.resolve(whole) : readStream(event);
}

/** The rest of stdin after the bytes already read, through process.stdin (a stream, so the deadline still fires). */
function readStream(event: EventBytes): Promise<Stdin> {
  return new Promise((resolve) => {
    const stdin = process.stdin;
    const finish = (result: Stdin) => {
      // Destroyed, not paused: an open stdin handle would keep the hook alive until the deadline.
      stdin.removeAllListeners("data").removeAllListeners("end");
      stdin.destroy();
      resolve(result);
    };
    stdin.on("data", (chunk: Buffer) => {
      const whole = event.add(chunk);
      if (whole !== undefined) finish(whole);
    });
    stdin.on("end", () => finish(event.text()));
    stdin.on("error", () => finish(""));
  });
}

/** Logs under the state dir, but only into one that exists: prompt and stop hooks never create it. */
function report(where: string, error: unknown): void {
  try {
    // PEERPOST_HOME read directly: the failure being logged may be a bad value in another PEERPOST_* variable.
    const stateDir = resolveStateDirPath(process.env.PEERPOST_HOME || undefined).path;
    if (existsSync(stateDir)) logError(stateDir, where, error);
  } catch {
    // No usable state dir: nowhere to log, and still nothing to print.
  }
}

export async function runHook(dialect: HookDialect, program: HookProgram, argv: string[] = process.argv.slice(2)): Promise<void> {
  const deadline = setTimeout(() => process.exit(0), DEADLINE_MS);
  deadline.unref();
  const event = argv[0] as HookEvent;
  try {
    if (!program.events.includes(event)) throw new Error(`unknown hook event ${JSON.stringify(argv[0])}`);
    const limit = EDIT_EVENTS.includes(event) ? MAX_EDIT_EVENT_BYTES : MAX_STDIN_BYTES;
    const raw = await readStdin(limit);
    // An edit hook that cannot read its event lets the edit run (as on any failure of its own): said in the log.
    if (raw === TOO_LARGE) return report(`${dialect.host} ${event}`, new Error(`hook stdin is over ${limit} bytes; not read`));
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
    const outcome = await program.logic(dialect, event, input, process.env);
    // fs.writeSync, not process.stdout: creating the stdout stream costs more than the write.
    if (outcome.stdout !== undefined) writeSync(1, outcome.stdout + "\n");
  } catch (error) {
    report(`${dialect.host} ${event}`, error);
  } finally {
    // At once: everything above is written synchronously, and the heap teardown of a natural exit is ~3 ms
    // of every prompt. A database connection's goodbye is already on the wire (close({ wait: false })).
    process.exit(0);
  }
}

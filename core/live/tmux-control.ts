// One long-lived tmux control-mode client (`tmux -C attach`) per tmux server socket, so reading a pane and
// typing into it cost a line written to that client's stdin instead of a tmux process each (a process
// start took about 150 ms on a loaded machine, and a delivery makes three calls). Each command's answer
// comes back between `%begin` and `%end` (or `%error`) lines, in the order the commands were written.
// The client speaks UTF-8 (`-u`, whatever the locale) and attaches with `ignore-size` (the person's window keeps its size) and `no-output` (no pane
// output is streamed to it). When it cannot start, the caller runs the tmux command as its own process,
// and the next call starts a new client. A command already written that gets no answer (the client died,
// or tmux did not answer in time) may still have run: the caller is told so, and runs it again only if
// running it twice does no harm.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

/** Why a command was not given to the control client: the caller runs it another way. */
export class ControlClientGone extends Error {}

/** A tmux command that was sent and got no answer (from the control client, or as its own process): it may have run, or may still run. */
export class TmuxCommandUnsure extends Error {}

/** The answer tmux gave to a command: its output lines, and whether it ended in `%error`. */
export interface ControlAnswer {
  output: string;
  failed: boolean;
}

interface Pending {
  resolve(answer: ControlAnswer): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** After the client failed to start, commands go to their own processes for this long before it is tried again. */
const RESTART_PAUSE_MS = 5_000;

/** A command tmux parses from a control client's line: every argument single-quoted, `;` between commands. */
export function controlLine(args: string[]): string | undefined {
  if (args.some((arg) => arg.includes("\n"))) return undefined;
  // A carriage return cannot stand in a single-quoted word: it goes as "\r", a double-quoted escape, joined to its neighbours.
  return args.map((arg) => (arg === ";" ? ";" : `'${arg.replace(/'/g, `'\\''`).replace(/\r/g, `'"\\r"'`)}'`)).join(" ");
}

export class TmuxControlClient {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending: Pending[] = [];
  private partial = "";
  /** The block being read: its `%begin` time and number, and the lines so far. */
  private block: { key: string; lines: string[]; ours: boolean } | undefined;
  private pausedUntil = 0;
  private users = 0;

  constructor(private readonly socket: string) {}

  /** The control client's process id while one runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  acquire(): void {
    this.users++;
  }

  /** Ends the client when its last user is done with it. */
  release(): void {
    this.users = Math.max(0, this.users - 1);
    if (this.users === 0) this.stop();
  }

  /**
   * Runs one command line through the client, attaching it to `pane`'s session if none runs. Rejects with
   * ControlClientGone when the client cannot start, and with TmuxCommandUnsure when it dies or does not
   * answer within `timeoutMs` once the command was written.
   */
  run(args: string[], pane: string, timeoutMs: number): Promise<ControlAnswer> {
    const line = controlLine(args);
    if (line === undefined) return Promise.reject(new ControlClientGone("an argument spans lines"));
    if (Date.now() < this.pausedUntil) return Promise.reject(new ControlClientGone("the control client failed to start a moment ago"));
    const child = this.child ?? this.start(pane);
    if (!child) return Promise.reject(new ControlClientGone("the control client did not start"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.stop(`no answer within ${timeoutMs} ms`), timeoutMs);
      this.pending.push({ resolve, reject, timer });
      child.stdin.write(`${line}\n`);
    });
  }

  private start(pane: string): ChildProcessWithoutNullStreams | undefined {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn("tmux", ["-u", "-S", this.socket, "-C", "attach-session", "-f", "ignore-size,no-output", "-t", pane], { stdio: ["pipe", "pipe", "pipe"] });
    } catch {
      this.pausedUntil = Date.now() + RESTART_PAUSE_MS;
      return undefined;
    }
    this.child = child;
    let answered = false;
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (data: string) => {
      answered = true;
      this.read(data);
    });
    child.stderr.resume();
    child.stdin.on("error", () => undefined);
    child.on("error", () => undefined);
    child.on("close", () => {
      if (this.child !== child) return;
      // A client that ended before it said anything could not attach: do not try again at once.
      if (!answered) this.pausedUntil = Date.now() + RESTART_PAUSE_MS;
      this.stop("the control client ended");
    });
    // The client must not keep the server's process alive; tmux ends it when its stdin closes.
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr] as unknown as Array<{ unref?: () => void }>) stream.unref?.();
    return child;
  }

  private read(data: string): void {
    const lines = (this.partial + data).split("\n");
    this.partial = lines.pop()!;
    for (const line of lines) this.readLine(line);
  }

  private readLine(line: string): void {
    if (this.block === undefined) {
      // A block's flags are 1 for a command this client sent; 0 for the attach itself. Other `%` lines are notifications.
      const begin = /^%begin (\d+ \d+) (\d+)$/.exec(line);
      if (begin) this.block = { key: begin[1]!, lines: [], ours: begin[2] === "1" };
      return;
    }
    const end = /^%(end|error) (\d+ \d+) \d+$/.exec(line);
    // Only the closing line with this block's own time and number ends it: a pane line can look like `%end`.
    if (!end || end[2] !== this.block.key) {
      this.block.lines.push(line);
      return;
    }
    const block = this.block;
    this.block = undefined;
    if (!block.ours) return;
    const waiting = this.pending.shift();
    if (!waiting) return;
    clearTimeout(waiting.timer);
    waiting.resolve({ output: block.lines.map((text) => `${text}\n`).join(""), failed: end[1] === "error" });
  }

  /** Ends the client; every command still waiting is told that it may or may not have run, and why. */
  private stop(why = "the control client was closed"): void {
    const child = this.child;
    this.child = undefined;
    this.partial = "";
    this.block = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.stdin.end();
      child.kill();
    }
    for (const waiting of this.pending.splice(0)) {
      clearTimeout(waiting.timer);
      waiting.reject(new TmuxCommandUnsure(why));
    }
  }
}

/** The control clients of this process, one per tmux server socket. */
const clients = new Map<string, TmuxControlClient>();

export function controlClientFor(socket: string): TmuxControlClient {
  let client = clients.get(socket);
  if (!client) clients.set(socket, (client = new TmuxControlClient(socket)));
  return client;
}

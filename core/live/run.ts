// `peerpost run <host> [host args…]`: the host's TUI in a pseudo-terminal peerpost owns. Every byte is
// forwarded both ways, the window size follows the person's terminal, and signals sent to the wrapper
// reach the host; the host's exit status is the wrapper's. It fails open: without the pty library, or
// with a broken state dir, the host still runs as if started directly (only nothing is typed into it).
import { nodeChildProcess } from "../common/child-process.js";
import { constants, homedir } from "node:os";
import { openPeerpost } from "../peerpost.js";
import { logError } from "../common/error-log.js";
import { loadConfig } from "../common/config.js";
import { resolveStateDirPath } from "../security/state-dir.js";
import type { SessionHost } from "../records/schemas.js";
import { InputLine } from "./keystrokes.js";
import { KeyRelay } from "./key-relay.js";
import { deliverIntoTerminal, PasteMode, type WrappedTerminal } from "./pty.js";
import { findOnPath } from "../wake/host-binary.js";

/** The hosts `peerpost run` starts, by the name the person types. */
export const RUN_HOSTS: Record<string, { command: string; host: SessionHost }> = {
  claude: { command: "claude", host: "claude-code" },
  codex: { command: "codex", host: "codex" },
  copilot: { command: "copilot", host: "copilot" },
  grok: { command: "grok", host: "grok" },
};

/** Signals sent to the wrapper that the host gets instead. */
const FORWARDED: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];

type Pty = typeof import("@lydell/node-pty");

async function loadPty(): Promise<Pty | undefined> {
  try {
    return await import("@lydell/node-pty");
  } catch (error) {
    logRunError(error);
    return undefined;
  }
}

/** Runs the host and resolves with the exit code the wrapper should end with (a signal is raised again). */
export async function runWrapped(name: string, args: string[]): Promise<number> {
  const { command, host } = RUN_HOSTS[name]!;
  const pty = await loadPty();
  if (!pty || !process.stdin.isTTY || !process.stdout.isTTY) return runDirect(command, args);
  // node-pty forks before it looks the command up: a missing one would end as exit 1 and "execvp(3) failed".
  if (findOnPath(command, process.env["PATH"]) === undefined) {
    process.stderr.write(`peerpost run: cannot start ${command}: not found on PATH\n`);
    return 127;
  }
  let terminal;
  try {
    terminal = pty.spawn(command, args, { name: process.env["TERM"] ?? "xterm-256color", cols: process.stdout.columns, rows: process.stdout.rows, cwd: process.cwd(), env: { ...process.env, PEERPOST_RUN: "1" } as Record<string, string>, encoding: null });
  } catch (error) {
    logRunError(error);
    return runDirect(command, args);
  }
  const input = new InputLine();
  // Bytes both ways (encoding null): a key or an output byte that is not UTF-8 passes unchanged.
  const relay = new KeyRelay(input, (data) => terminal.write(data as unknown as string));
  const onInput = (data: Buffer) => relay.keys(data);
  const onResize = () => terminal.resize(process.stdout.columns, process.stdout.rows);
  const onSignal = (signal: NodeJS.Signals) => terminal.kill(signal);
  process.stdin.setRawMode(true);
  process.stdin.on("data", onInput);
  process.stdout.on("resize", onResize);
  for (const signal of FORWARDED) process.on(signal, onSignal);
  const paste = new PasteMode();
  terminal.onData((data: string | Buffer) => {
    process.stdout.write(data);
    paste.observe(typeof data === "string" ? data : data.toString("latin1"));
  });
  const delivery = startDelivery(host, { pid: terminal.pid, write: (data) => terminal.write(data), bracketedPaste: () => paste.enabled, holdKeys: () => relay.hold() }, input);
  const exit = await new Promise<{ exitCode: number; signal?: number }>((resolve) => terminal.onExit(resolve));
  process.stdin.off("data", onInput);
  process.stdin.setRawMode(false);
  process.stdin.pause();
  process.stdout.off("resize", onResize);
  for (const signal of FORWARDED) process.off(signal, onSignal);
  await delivery?.stop().catch(() => undefined);
  return exitStatus(exit.exitCode, exit.signal ? signalName(exit.signal) : undefined);
}

function startDelivery(host: SessionHost, terminal: WrappedTerminal, input: InputLine): { stop(): Promise<void> } | undefined {
  try {
    const peerpost = openPeerpost({});
    return deliverIntoTerminal(peerpost, host, terminal, input);
  } catch (error) {
    // A broken state dir types nothing; the host runs on untouched.
    logRunError(error);
    return undefined;
  }
}

/** Without a pseudo-terminal of peerpost's own: the host on this terminal, as if started directly. */
function runDirect(command: string, args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = nodeChildProcess().spawn(command, args, { stdio: "inherit" });
    const onSignal = (signal: NodeJS.Signals) => child.kill(signal);
    for (const signal of FORWARDED) process.on(signal, onSignal);
    child.on("error", (error) => {
      process.stderr.write(`peerpost run: cannot start ${command}: ${error.message}\n`);
      resolve(127);
    });
    child.on("exit", (code, signal) => {
      for (const forwarded of FORWARDED) process.off(forwarded, onSignal);
      resolve(exitStatus(code ?? 0, signal ?? undefined));
    });
  });
}

/** The host's status as the wrapper's: its code, or its signal raised again on the wrapper. */
function exitStatus(code: number, signal: NodeJS.Signals | undefined): number {
  if (signal === undefined) return code;
  process.kill(process.pid, signal);
  return 128 + (signalNumber(signal) ?? 0);
}

function signalName(number: number): NodeJS.Signals | undefined {
  return (Object.entries(constants.signals) as Array<[NodeJS.Signals, number]>).find(([, value]) => value === number)?.[0];
}

function signalNumber(name: NodeJS.Signals): number | undefined {
  return (constants.signals as Record<string, number>)[name];
}

/** Errors go to the state dir's error log (for doctor), never onto the host's screen; lost if that dir is broken. */
function logRunError(error: unknown): void {
  try {
    logError(resolveStateDirPath(loadConfig(process.env).home, homedir()).path, "run", error);
  } catch {
    // Nowhere to write: the host runs on regardless.
  }
}

// `peerpost shim <host> [args…]`: what an editor starts in place of a host CLI. In the host's stdio
// protocol mode it runs the real host behind a relay (server/shim-relay.ts) and pushes requests to the
// editor's sessions as turns, when they are idle. Anything else runs the real host as is. It fails open:
// when peerpost cannot work (a bad state dir, a bad setting, a bug), the host still runs, byte for byte.
import type { ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { nodeChildProcess } from "../common/child-process.js";
import { constants, homedir } from "node:os";
import { openPeerpost, type Peerpost } from "../peerpost.js";
import { formatAddress } from "../common/address.js";
import { toErrorValue } from "../common/errors.js";
import { logError } from "../common/error-log.js";
import { resolveStateDirPath } from "../security/state-dir.js";
import { PushLoop } from "../server/push.js";
import { ShimPush, SHIM_VIA } from "../server/shim-push.js";
import { hostStartField, inTerminalForeground } from "../sessions/process-tree.js";
import { ShimRelay } from "../server/shim-relay.js";
import { ShimSessions, type ShimDialect } from "../server/shim-sessions.js";

const FORWARDED_SIGNALS: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
/** The first wait before a session's failed registration is tried again; it doubles up to the most. */
const REGISTER_RETRY_MS = 1_000;
const REGISTER_RETRY_MAX_MS = 60_000;

/** The host's exit status as a shell reports it: its code, or 128 + the signal that ended it. */
function exitStatus(child: ChildProcess, binary: string): Promise<number> {
  return new Promise((resolve) => {
    child.once("error", (error: NodeJS.ErrnoException) => {
      process.stderr.write(`peerpost shim: cannot run ${binary}: ${error.code ?? error.message}\n`);
      resolve(127);
    });
    child.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
  });
}

function forwardSignals(child: ChildProcess, sharesTerminal = false): () => void {
  // A host that shares the shim's terminal got a typed Ctrl-C itself: forwarded, it would get two, which
  // many CLIs read as "quit now".
  const forward = (signal: NodeJS.Signals) => () => void (signal === "SIGINT" && sharesTerminal && inTerminalForeground() ? undefined : child.kill(signal));
  const handlers = FORWARDED_SIGNALS.map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}

/** Runs the host with this process's stdio, as if started directly (Node has no exec). */
async function runAsIs(binary: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const child = nodeChildProcess().spawn(binary, args, { stdio: "inherit", env });
  const unforward = forwardSignals(child, true);
  const status = await exitStatus(child, binary);
  unforward();
  return status;
}

interface LiveShim {
  stop(): Promise<void>;
}

/**
 * Watches the mailbox of every session the editor opens; a request to one becomes a turn when it is idle.
 * Each session is registered first (the host named it in its own protocol), so peers can address it
 * before its first peerpost call.
 */
function startLive(dialect: ShimDialect, relay: ShimRelay, host: ChildProcess, peerpost: Peerpost, onError: (error: unknown) => void): LiveShim {
  const loops = new Map<string, PushLoop>();
  const unfollow = peerpost.backend.follow();
  let stopped = false;
  const cwds = new Map<string, string | undefined>();
  const register = (sessionId: string, push: string): Promise<unknown> => {
    const [address, hostPid, cwd] = [formatAddress(dialect.kind, sessionId), host.pid!, cwds.get(sessionId)];
    return peerpost.sessions.register({ host: dialect.host, address, sessionId, hostPid, ...hostStartField(hostPid), ...(cwd !== undefined ? { cwd } : {}), source: "server", push });
  };
  const push = peerpost.config.push ? SHIM_VIA : "none";
  const watch = async (sessionId: string, cwd: string | undefined): Promise<void> => {
    const address = formatAddress(dialect.kind, sessionId);
    cwds.set(sessionId, cwd);
    // A registration that fails (the database away for a moment) is tried again, each failure said: given
    // up, the session would get no turn for the shim's whole life.
    for (let delay = REGISTER_RETRY_MS; !stopped; delay = Math.min(delay * 2, REGISTER_RETRY_MAX_MS)) {
      try {
        await register(sessionId, push);
        break;
      } catch (error) {
        onError(error);
      }
      // Unref'd: a shim whose host exited does not wait for it.
      await sleep(delay, undefined, { ref: false });
    }
    if (stopped) return;
    const transport = new ShimPush(address, sessionId, sessions, (text, messageId) => dialect.inject(relay, sessionId, text, messageId));
    const loop = new PushLoop(peerpost, transport, dialect.host);
    loops.set(sessionId, loop);
    loop.start({ address, sessionId, source: "host-protocol", detail: `${dialect.binary} protocol, seen by peerpost shim`, verified: true });
  };
  const sessions: ShimSessions = new ShimSessions(
    (sessionId, cwd) => void watch(sessionId, cwd).catch(onError),
    (sessionId) => loops.get(sessionId)?.kick(),
    // A closed session gets no turn: its senders are told the mail waits for read (recipient_mailbox_only).
    (sessionId, closed) => void register(sessionId, closed ? "none" : push).catch(onError),
  );
  relay.observe(dialect.observer(sessions));
  return {
    async stop() {
      stopped = true;
      sessions.end();
      await Promise.allSettled([...loops.values()].map((loop) => loop.stop()));
      unfollow();
      await peerpost.backend.close({ wait: false }).catch(() => undefined);
    },
  };
}

/** Says, on stderr (the editor's log) and in the error log, why live delivery failed; the relay goes on. */
function reportFailure(stateDir: string | undefined, error: unknown): void {
  process.stderr.write(`peerpost shim: live delivery failed (${toErrorValue(error, "cli").message}); the host runs as usual.\n`);
  if (stateDir !== undefined) logError(stateDir, "shim", error);
}

/** The state dir a bad setting elsewhere (PEERPOST_MAX_HOPS=many) leaves usable, for the error log doctor reads. */
function stateDirOf(env: NodeJS.ProcessEnv): string | undefined {
  try {
    return resolveStateDirPath(env["PEERPOST_HOME"] || undefined, homedir()).path;
  } catch {
    return undefined;
  }
}

export async function runShim(dialect: ShimDialect, binary: string | undefined, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (binary === undefined) {
    process.stderr.write(`peerpost shim: no ${dialect.binary} on PATH (a peerpost shim script itself does not count); install ${dialect.binary} or put it on PATH.\n`);
    return 127;
  }
  if (!dialect.isProtocolMode(args)) return runAsIs(binary, args, env);
  // Its own process group: a signal the editor sends the shim's group reaches the host once, forwarded, not
  // twice. The host needs no terminal here, and exits when the shim's end of its stdin closes.
  const child = nodeChildProcess().spawn(binary, args, { stdio: ["pipe", "pipe", "inherit"], env, detached: true });
  const status = exitStatus(child, binary);
  const unforward = forwardSignals(child);
  let live: LiveShim | undefined;
  let peerpost: Peerpost | undefined;
  const relay = new ShimRelay(process.stdin, process.stdout, child.stdin!, child.stdout!, (error) => reportFailure(peerpost?.stateDir.path, error));
  try {
    peerpost = openPeerpost({ env, kind: "server" });
    const stateDir = peerpost.stateDir.path;
    live = startLive(dialect, relay, child, peerpost, (error) => reportFailure(stateDir, error));
  } catch (error) {
    reportFailure(peerpost?.stateDir.path ?? stateDirOf(env), error);
  }
  const code = await status;
  relay.close(`${dialect.binary} exited`);
  unforward();
  await live?.stop().catch(() => undefined);
  process.stdin.destroy();
  return code;
}

// A tmux server of a test's own (`tmux -L <unique>`), killed when the test ends: a host TUI runs in one
// of its panes, as a person would run it, with an environment the test gives it.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { onCleanup, tempDir } from "./temp.js";
import { writeFakeTui } from "./fake-tui.js";
import { until } from "./poll.js";
import { screenLines, type InputLineReader } from "../../core/live/screen.js";
import type { TmuxPane } from "../../core/live/tmux.js";
import { ancestors } from "../../core/sessions/process-tree.js";

export interface TmuxServer {
  /** Starts `command args` in a new window's pane, in `cwd`, with exactly `env` (plus tmux's own TMUX and TMUX_PANE). */
  start(command: string, args: string[], env: Record<string, string>, cwd: string): void;
  /** The pane's screen, with SGR escapes. */
  capture(): string;
  sendKeys(...keys: string[]): void;
  type(text: string): void;
  resize(columns: number, rows: number): void;
  /** Waits until the host's input line shows `text`. */
  inputShows(inputLine: InputLineReader, text: string, timeoutMs?: number): Promise<void>;
  /** The pane the host runs in, as peerpost finds it from TMUX and TMUX_PANE. */
  pane(): TmuxPane;
  /** The pid of the program started in the pane (the host). */
  panePid(): number;
  /** Any other tmux command on this server; its output. */
  command(...args: string[]): string;
}

export const NO_TMUX = (() => {
  try {
    execFileSync("tmux", ["-V"], { stdio: "ignore" });
    return false;
  } catch {
    return "tmux is not installed (apt-get install -y tmux; .ci/run installs it)";
  }
})();

export function startTmux(t: TestContext, scratch: string): TmuxServer {
  const socket = `peerpost-test-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const tmux = (...args: string[]) => execFileSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  let panePid: number | undefined;
  let socketPath: string | undefined;
  let paneId: string | undefined;
  onCleanup(t, async () => {
    try {
      tmux("kill-server");
    } catch {
      // already gone
    }
    if (socketPath !== undefined) rmSync(socketPath, { force: true });
    // The host and the servers it started leave, before their files are removed: the pane's process group,
    // and every process under the pane in a group of its own (`peerpost run` starts the host in a new session).
    if (panePid === undefined) return;
    const pids = [panePid, ...descendants(panePid)];
    for (const pid of pids) {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, "SIGKILL");
        } catch {
          // already gone, or not a group leader
        }
      }
    }
    await until(() => pids.every((pid) => !existsSync(`/proc/${pid}`)), 10_000, `the pane's processes ${pids.join(", ")} to end`).catch(() => undefined);
  });
  const server: TmuxServer = {
    start(command, args, env, cwd) {
      const script = join(scratch, "pane.sh");
      const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
      const assignments = Object.entries(env).map(([name, value]) => `${name}=${quote(value)}`).join(" ");
      writeFileSync(script, `#!/bin/sh\ncd ${quote(cwd)} || exit 1\nexec env -i TMUX="$TMUX" TMUX_PANE="$TMUX_PANE" ${assignments} ${[command, ...args].map(quote).join(" ")}\n`, { mode: 0o700 });
      tmux("new-session", "-d", "-s", "host", "-x", "120", "-y", "40", script);
      const [pid, path, id] = tmux("display-message", "-p", "-t", "host", "#{pane_pid} #{socket_path} #{pane_id}").trim().split(" ");
      panePid = Number(pid);
      socketPath = path;
      paneId = id;
    },
    capture: () => tmux("capture-pane", "-p", "-e", "-t", "host"),
    sendKeys: (...keys) => void tmux("send-keys", "-t", "host", ...keys),
    type: (text) => void tmux("send-keys", "-t", "host", "-l", text),
    resize: (columns, rows) => void tmux("resize-window", "-t", "host", "-x", String(columns), "-y", String(rows)),
    pane: () => ({ socket: socketPath!, pane: paneId! }),
    panePid: () => panePid!,
    command: (...args) => tmux(...args),
    inputShows: (inputLine, text, timeoutMs = 60_000) => until(() => inputLine(screenLines(server.capture())) === text, timeoutMs, `the input line to show ${JSON.stringify(text)}\n${server.capture()}`),
  };
  return server;
}

/** The processes running under `pid` now, at any depth. */
function descendants(pid: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((candidate) => ancestors(candidate).some((info) => info.pid === pid));
}

/** A tmux server of the test's own with the stand-in TUI (fake-tui.ts) in its pane, writing what it submits to `log`. */
export function tuiInTmux(t: TestContext, prefix: string): { server: TmuxServer; log: string; scratch: string } {
  const scratch = tempDir(t, prefix);
  const log = join(scratch, "submitted.log");
  const server = startTmux(t, scratch);
  server.start(process.execPath, [writeFakeTui(scratch), log], { PATH: process.env.PATH ?? "" }, scratch);
  return { server, log, scratch };
}

// The live-typing rows of `npm run bench`: send → turn start when a request is typed into an idle TUI,
// in a tmux pane (push:tmux, its commands through a tmux control client) and under peerpost run's
// pseudo-terminal (push:pty). No model runs: the TUI (tests/helpers/fake-tui.ts) draws Codex's input
// line (`› `) and notes when Enter submits a line, which is when a real host would start its turn. The
// baseline is the same line and Enter typed straight into the pane (two `tmux send-keys` processes) or
// the terminal (a pty write), measured in the same run.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";

const SENDS = 21;
const ADDRESS = "codex:bench-session";

export async function benchLiveTyping({ root, work, report, median, percentile, openPeerpost }) {
  console.error(`\nlive typing: send → turn start (Enter reaches an idle TUI), p50/p99 of ${SENDS} sends each; baseline: the same keys typed straight in`);
  const dir = join(work, "live-typing");
  mkdirSync(dir, { recursive: true });
  const load = (path) => import(join(root, ".build", path));
  const [{ writeFakeTui, submittedLines }, { PushLoop }, { TmuxPush }, { PtyPush, PasteMode }, { InputLine }, { KeyRelay }, { codexInputLine }, { updateSwitches }, { recordTurn }, { liveNote }] = await Promise.all([
    load("tests/helpers/fake-tui.js"), load("core/server/push.js"), load("core/live/tmux.js"), load("core/live/pty.js"), load("core/live/keystrokes.js"), load("core/live/key-relay.js"), load("plugins/codex/terminal.js"), load("core/wake/switches.js"), load("core/live/turns.js"), load("core/live/rules.js"),
  ]);

  const tui = writeFakeTui(dir);
  // To the microsecond, as the TUI notes its lines: keys typed straight in take well under a millisecond.
  const epochMs = () => performance.timeOrigin + performance.now();
  /** Times of submitted lines the TUI noted so far. */
  const submitted = (log) => submittedLines(log).map((line) => line.at);
  const nextSubmit = async (log, count) => { while (submitted(log).length <= count) await new Promise((resolve) => setTimeout(resolve, 2)); return submitted(log)[count]; };

  async function row(name, start, typeDirectly) {
    const stateDir = join(dir, `${name}-state`);
    const log = join(dir, `${name}.log`);
    const peerpost = openPeerpost({ env: { PEERPOST_HOME: stateDir, HOME: work, PEERPOST_WAKE_PER_HOUR: "1000" } });
    updateSwitches(stateDir, (switches) => void (switches.push = { tmux: { all: true }, pty: { all: true } }));
    const { transport, stop } = await start(peerpost, log);
    const loop = new PushLoop(peerpost, transport, "codex");
    loop.start({ address: ADDRESS, sessionId: "bench-session", source: "registry", detail: "bench", verified: false });
    const typed = [];
    const direct = [];
    // One send first that is not counted: the loop's file watch and the first fold are set up by then.
    for (let i = -1; i < SENDS; i++) {
      const sentAt = epochMs();
      await peerpost.mailbox.send({ from: "claude:bench-sender", fromVerified: false, to: ADDRESS, body: `request ${i}`, anticipation: "reply" });
      const at = await nextSubmit(log, 2 * (i + 1));
      if (i >= 0) typed.push(at - sentAt);
      // The session's hooks: the typed turn starts and ends at once (no model).
      recordTurn(stateDir, ADDRESS, "prompt", new Date().toISOString());
      recordTurn(stateDir, ADDRESS, "stop", new Date(Date.now() + 1).toISOString());
      await new Promise((resolve) => setTimeout(resolve, 50));
      const directAt = epochMs();
      await typeDirectly(liveNote({ from: "claude:bench-sender", id: "01J0000000000000000000000", anticipation: "reply" }));
      const directDone = (await nextSubmit(log, 2 * (i + 1) + 1)) - directAt;
      if (i >= 0) direct.push(directDone);
      // And the hooks of the turn the person's own keys started (until its prompt hook runs, no request is typed).
      recordTurn(stateDir, ADDRESS, "prompt", new Date().toISOString());
      recordTurn(stateDir, ADDRESS, "stop", new Date(Date.now() + 1).toISOString());
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await loop.stop();
    stop();
    report(`live ${name}: send → turn start p50 (ms)`, median(typed), `keys typed straight in p50`, median(direct), `(target ≤ 150 ms)`);
    report(`live ${name}: send → turn start p99 (ms)`, percentile(typed, 99), `keys typed straight in p99`, percentile(direct, 99));
  }

  const socket = `peerpost-bench-${process.pid}`;
  const tmux = (...args) => spawnSync("tmux", ["-L", socket, ...args], { encoding: "utf8" });
  if (tmux("-V").status === 0) {
    await row("tmux", async (peerpost, log) => {
      tmux("new-session", "-d", "-s", "bench", "-x", "200", "-y", "20", `${process.execPath} ${tui} ${log}`);
      const [pane, path, pid] = tmux("display-message", "-p", "-t", "bench", "#{pane_id} #{socket_path} #{pane_pid}").stdout.trim().split(" ");
      return { transport: new TmuxPush(peerpost, "codex", { socket: path, pane }, codexInputLine, Number(pid)), stop: () => (tmux("kill-server"), rmSync(path, { force: true })) };
    }, async (line) => {
      tmux("send-keys", "-t", "bench", "-l", line);
      tmux("send-keys", "-t", "bench", "Enter");
    });
  } else console.error("  (no tmux: the tmux row is skipped)");

  const pty = createRequire(join(root, "package.json"))("@lydell/node-pty");
  // The person's keys reach the TUI as under `peerpost run`: through its relay, which a delivery holds.
  let relay;
  await row("pty", async (peerpost, log) => {
    const terminal = pty.spawn(process.execPath, [tui, log], { cols: 200, rows: 20 });
    const paste = new PasteMode();
    terminal.onData((data) => paste.observe(data));
    const input = new InputLine();
    relay = new KeyRelay(input, (text) => terminal.write(text));
    const wrapped = { pid: terminal.pid, write: (data) => terminal.write(data), bracketedPaste: () => paste.enabled, holdKeys: () => relay.hold() };
    return { transport: new PtyPush(peerpost, "codex", wrapped, input), stop: () => terminal.kill() };
  }, async (line) => {
    relay.keys(Buffer.from(line));
    relay.keys(Buffer.from("\r"));
  });
}

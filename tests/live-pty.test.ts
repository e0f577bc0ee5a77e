// `peerpost run`: the host's TUI in a pseudo-terminal peerpost owns, itself run in a tmux pane of the
// test's own server. With a small host program: the window size follows the terminal, Ctrl-C reaches
// the host, and the host's exit status is the wrapper's, also when the state dir is broken (it fails
// open). With the real Codex TUI, offline: an idle session gets a request typed, reads and replies;
// text the person has typed holds the typing; a stale request is never typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI } from "./helpers/mcp.js";
import { onCleanup } from "./helpers/temp.js";
import { until } from "./helpers/poll.js";
import { codexAvailable, makeScratchDir } from "./helpers/codex-cli.js";
import { NO_TMUX, startTmux } from "./helpers/tmux.js";
import { checkTypedDelivery } from "./helpers/live-typing.js";
import { idleCodexTui } from "./helpers/codex-tui.js";
import { codexInputLine } from "../plugins/codex/terminal.js";

const availability = codexAvailable();

/** A host that reports its window size (at start and on SIGWINCH) and exits 42 on Ctrl-C, after saying so. */
const SIZE_HOST = `#!/bin/sh
trap 'echo "got Ctrl-C"; exit 42' INT
trap 'echo "size $(stty size)"' WINCH
echo "size $(stty size)"
while true; do sleep 0.1; done
`;

function wrapperScreen(scratch: string, stateDir: string): { run: (tmux: ReturnType<typeof startTmux>) => void } {
  const bin = join(scratch, "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "codex"), SIZE_HOST, { mode: 0o755 });
  return {
    run: (tmux) => tmux.start("/bin/sh", ["-c", `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} run codex --some-host-flag; echo "wrapper exit $?"; sleep 600`], { PATH: `${bin}:${process.env.PATH ?? ""}`, HOME: scratch, PEERPOST_HOME: stateDir, TERM: "xterm-256color" }, scratch),
  };
}

for (const stateDirKind of ["a working state dir", "a broken state dir (fails open)"]) {
  test(`peerpost run with ${stateDirKind}: resize and Ctrl-C reach the host, and its exit status is the wrapper's`, { skip: NO_TMUX, timeout: 120_000 }, async (t) => {
    const scratch = makeScratchDir("peerpost-run-");
    onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
    const stateDir = join(scratch, "peerpost");
    // A state dir that is a file: peerpost cannot open it.
    if (stateDirKind.includes("broken")) writeFileSync(stateDir, "not a directory");
    const tmux = startTmux(t, scratch);
    wrapperScreen(scratch, stateDir).run(tmux);
    await until(() => tmux.capture().includes("size 40 120"), 30_000, "the host to report the pane's size");
    tmux.resize(90, 25);
    await until(() => tmux.capture().includes("size 25 90"), 30_000, `the host to see the new size\n${tmux.capture()}`);
    tmux.sendKeys("C-c");
    await until(() => tmux.capture().includes("wrapper exit 42"), 30_000, `the wrapper to exit with the host's status\n${tmux.capture()}`);
    assert.match(tmux.capture(), /got Ctrl-C/);
  });
}

test("peerpost run codex: an idle TUI gets a request typed, reads and replies; text in the input line holds the typing; a stale request is never typed", { skip: NO_TMUX || (availability.ok ? false : `codex CLI unavailable: ${availability.reason}`), timeout: 300_000 }, async (t) => {
  const { fake, codex, stateDir, tmux, address } = await idleCodexTui(t, "codex answers", { command: process.execPath, prefixArgs: [CLI, "run", "codex"] });
  await checkTypedDelivery(t, { tmux, inputLine: codexInputLine, stateDir, home: codex.home, address, via: "pty", modelRequests: () => fake.requests().length, modelSaw: (needle) => fake.modelSaw(needle) }, "codex answers");
});

// `peerpost run`: the host's TUI in a pseudo-terminal peerpost owns, itself run in a tmux pane of the
// test's own server. With a small host program: the window size follows the terminal, Ctrl-C reaches
// the host, the host's exit status is the wrapper's, also when the state dir is broken (it fails
// open), and bytes that are not UTF-8 pass unchanged both ways. With the real Codex TUI, offline: an idle session gets a request typed, reads and replies;
// text the person has typed holds the typing; a stale request is never typed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

/** A host that logs each read of its terminal as hex to $BYTES_LOG, and writes bytes that are not UTF-8 (Latin-1 "é", 0xff) on each. */
const BYTES_HOST = `#!${process.execPath}
const { appendFileSync } = require("node:fs");
process.stdin.setRawMode(true);
process.stdout.write("\u203a ");
process.stdin.on("data", (data) => {
  appendFileSync(process.env.BYTES_LOG, data.toString("hex") + "\\n");
  process.stdout.write(Buffer.from([0x3c, 0xe9, 0xff, 0x3e]));
});
`;

for (const how of ["directly", "under peerpost run"]) {
  test(`bytes that are not UTF-8 pass unchanged both ways between the terminal and the host (${how})`, { skip: NO_TMUX, timeout: 60_000 }, async (t) => {
    const scratch = makeScratchDir("peerpost-run-bytes-");
    onCleanup(t, () => rmSync(scratch, { recursive: true, force: true }));
    const bin = join(scratch, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "codex"), BYTES_HOST, { mode: 0o755 });
    const [keys, output] = [join(scratch, "keys.hex"), join(scratch, "pane.out")];
    const tmux = startTmux(t, scratch);
    const env = { PATH: `${bin}:/usr/bin:/bin`, HOME: scratch, PEERPOST_HOME: join(scratch, "state"), TERM: "xterm-256color", BYTES_LOG: keys };
    if (how === "directly") tmux.start(join(bin, "codex"), [], env, scratch);
    else tmux.start(process.execPath, [CLI, "run", "codex"], env, scratch);
    await until(() => tmux.capture().includes("\u203a"), 30_000, `the host to draw\n${tmux.capture()}`);
    // What the pane's program writes to the terminal, byte for byte.
    tmux.command("pipe-pane", "-t", "host", `cat > ${JSON.stringify(output)}`);
    // A Latin-1 "é" (a terminal in a Latin-1 locale, or Alt sent as the eighth bit), then a plain "x".
    tmux.command("send-keys", "-t", "host", "-H", "e9");
    tmux.command("send-keys", "-t", "host", "-l", "x");
    const read = (path: string) => (existsSync(path) ? readFileSync(path) : Buffer.alloc(0));
    await until(() => read(keys).toString().includes("78") && read(output).includes(0x3e), 10_000, "the keys to reach the host, and its answer the terminal");
    assert.equal(read(keys).toString().replace(/\n/g, ""), "e978", "the keys the host read");
    assert.ok(read(output).includes(Buffer.from([0x3c, 0xe9, 0xff, 0x3e])), `the terminal got ${read(output).toString("hex")}`);
  });
}

test("peerpost run codex: an idle TUI gets a request typed, reads and replies; text in the input line holds the typing; a stale request is never typed", { skip: NO_TMUX || (availability.ok ? false : `codex CLI unavailable: ${availability.reason}`), timeout: 300_000 }, async (t) => {
  const { fake, codex, stateDir, tmux, address } = await idleCodexTui(t, "codex answers", { command: process.execPath, prefixArgs: [CLI, "run", "codex"] });
  await checkTypedDelivery(t, { tmux, inputLine: codexInputLine, lineBreak: "C-j", stateDir, home: codex.home, address, via: "pty", modelRequests: () => fake.requests().length, modelSaw: (needle) => fake.modelSaw(needle) }, "codex answers");
});

// Shell completion in the real shells: bash runs the generated function on command lines as it would on
// TAB; zsh runs interactively in tmux, TAB is pressed, and the screen is read back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { onCleanup, tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI } from "./helpers/mcp.js";
import { openPeerpost } from "../core/peerpost.js";

async function setup(t: Parameters<typeof tempDir>[0]) {
  const home = tempDir(t);
  const bin = join(home, "bin");
  mkdirSync(bin);
  symlinkSync(CLI, join(bin, "peerpost"));
  const env = { HOME: home, PEERPOST_HOME: join(home, "state"), PATH: `${bin}:/usr/bin:/bin` };
  const store = openPeerpost({ env, home });
  await store.sessions.register({ host: "codex", address: "codex:bob", sessionId: "bob", source: "startup" });
  await store.sessions.register({ host: "claude-code", address: "claude:alice", sessionId: "alice", source: "startup" });
  return { home, env };
}

test("bash completes commands, flags, flag values and addresses (colon included)", async (t) => {
  const { home, env } = await setup(t);
  const script = join(home, "peerpost.bash");
  const generated = spawnSync(process.execPath, [CLI, "completion", "bash"], { env, encoding: "utf8" });
  assert.equal(generated.status, 0, generated.stderr);
  writeFileSync(script, generated.stdout);
  const lines = ["peerpost se", "peerpost send --anticipation ", "peerpost send --to cod", "peerpost send --to codex:", "peerpost send --al", "peerpost inbox cl", "peerpost help st", "peerpost completion ", "peerpost reply x --"];
  const probe = `source ${script}; for line in ${lines.map((line) => `'${line}'`).join(" ")}; do COMP_LINE="$line"; COMP_POINT=\${#line}; COMPREPLY=(); _peerpost; echo "\${COMPREPLY[*]}"; done`;
  const result = await collect(spawn("bash", ["--norc", "-c", probe], { env, stdio: ["ignore", "pipe", "pipe"] }));
  assert.equal(result.stderr, "");
  assert.deepEqual(result.stdout.split("\n").slice(0, lines.length), [
    "serve send sessions",
    "reply action fyi",
    "codex:bob",
    "bob",
    "--allow-self",
    "claude:alice",
    "status",
    "bash zsh",
    "--as --reply --decline --done --json --help",
  ]);
});

test("zsh completes commands with their summaries, flag values and addresses on TAB", { skip: spawnSync("sh", ["-c", "command -v zsh && command -v tmux"]).status !== 0 && "zsh or tmux is not installed (.ci/run installs them)" }, async (t) => {
  const { home, env } = await setup(t);
  const socket = join(home, "tmux.sock");
  const tmux = (...args: string[]) => spawnSync("tmux", ["-S", socket, ...args], { encoding: "utf8" });
  writeFileSync(join(home, "zshrc"), `autoload -Uz compinit && compinit -u -d ${home}/zcompdump\nsource <(peerpost completion zsh)\nPS1='%% '\n`);
  const environment = Object.entries({ ...env, TERM: "xterm" }).map(([name, value]) => `${name}=${value}`).join(" ");
  assert.equal(tmux("new-session", "-d", "-x", "160", "-y", "40", `env -i ${environment} zsh -f -i`).status, 0);
  onCleanup(t, () => tmux("kill-server"));
  const screen = () => tmux("capture-pane", "-p").stdout;
  const waitFor = async (pattern: RegExp) => {
    for (let tries = 0; tries < 100; tries++) {
      if (pattern.test(screen())) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.fail(`screen never matched ${pattern}:\n${screen()}`);
  };
  tmux("send-keys", `source ${home}/zshrc; print ready`, "Enter");
  await waitFor(/^ready$/m);
  tmux("send-keys", "peerpost se", "Tab");
  await waitFor(/send +-- send a message/);
  assert.match(screen(), /serve +-- run the MCP server/);
  tmux("send-keys", "C-u", "peerpost send --anticipation ", "Tab");
  await waitFor(/action +fyi +reply/);
  tmux("send-keys", "C-u", "peerpost inbox cod", "Tab");
  await waitFor(/% peerpost inbox codex:bob/);
});

// Which invocations the shim sits in (each host's stdio protocol mode) and which run the host as is, and
// how it finds the host's own executable past a wrapper named like it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { realHostBinary, SHIMS } from "../plugins/shims.js";
import { tempDir } from "./helpers/temp.js";

test("each host's protocol mode, and only it, is relayed", () => {
  const cases: Array<[string, string[], boolean]> = [
    ["codex", ["app-server"], true],
    ["codex", ["-c", "model=\"o3\"", "app-server", "--analytics-default-enabled"], true],
    ["codex", ["app-server", "--listen", "stdio://"], true],
    ["codex", ["app-server", "--listen", "unix:///tmp/s.sock"], false],
    ["codex", ["app-server", "--listen=ws://127.0.0.1:4000"], false],
    ["codex", ["app-server", "generate-ts", "--out", "x"], false],
    ["codex", ["app-server", "--help"], false],
    ["codex", ["--version"], false],
    ["codex", ["login"], false],
    ["codex", [], false],
    ["grok", ["agent", "stdio"], true],
    ["grok", ["agent", "--always-approve", "stdio"], true],
    ["grok", ["agent", "serve"], false],
    ["grok", ["agent", "stdio", "--help"], false],
    ["grok", ["--version"], false],
    ["copilot", ["--acp"], true],
    ["copilot", ["--acp", "--stdio", "--no-auto-update"], true],
    ["copilot", ["--acp", "--port", "3000"], false],
    ["copilot", ["--acp", "--port=3000"], false],
    ["copilot", ["--version"], false],
    ["copilot", ["login"], false],
  ];
  for (const [host, args, relayed] of cases) assert.equal(SHIMS[host]!.isProtocolMode(args), relayed, `${host} ${args.join(" ")}`);
});

test("the host's own executable is the first on PATH that is not a peerpost shim wrapper", (t) => {
  const root = tempDir(t);
  const [wrappers, real] = [join(root, "wrappers"), join(root, "real")];
  for (const dir of [wrappers, real]) mkdirSync(dir);
  const script = (path: string, text: string) => {
    writeFileSync(path, text);
    chmodSync(path, 0o755);
  };
  script(join(wrappers, "codex"), '#!/bin/sh\nexec peerpost shim codex "$@"\n');
  script(join(real, "codex"), "#!/bin/sh\necho the real codex\n");
  assert.equal(realHostBinary("codex", { PATH: `${wrappers}:${real}` }), join(real, "codex"));
  assert.equal(realHostBinary("codex", { PATH: wrappers }), undefined, "a wrapper alone is no host");
  assert.equal(realHostBinary("grok", { PATH: `${wrappers}:${real}` }), undefined);
});

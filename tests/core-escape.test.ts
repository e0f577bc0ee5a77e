// Escaping by Unicode property: every code point is either shown as it is or escaped, in both renderings,
// and text from other sessions (bodies, reasons, working dirs) reaches models and terminals only escaped.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { escapeForModel, escapeVisible, safeJson } from "../core/security/escape.js";
import { renderEnvelope } from "../core/mail/envelope.js";
import type { MessageState } from "../core/mail/fold.js";
import { tempDir } from "./helpers/temp.js";
import { collect } from "./helpers/children.js";
import { CLI, connect } from "./helpers/mcp.js";
import { runHook } from "./helpers/hooks.js";

/** An oracle written differently from the module: General_Category "Other" is Cc+Cf+Cs+Co+Cn. */
const MUST_ESCAPE = /^(?:\p{General_Category=Other}|\p{General_Category=Line_Separator}|\p{General_Category=Paragraph_Separator}|\p{DI})$/u;

/** The characters the issue found reaching a model raw. */
const REPORTED = [
  ...range(0xe0100, 0xe01ef), // VS17–VS256
  0x2028, 0x2029,
  ...range(0xfff0, 0xfff8),
  ...range(0x1bca0, 0x1bca3),
  ...range(0x1d173, 0x1d17a),
  0x1b, 0x9b, // ESC and CSI: terminal control
];

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

const message: MessageState = {
  id: "01JABCDEFGHJKMNPQRSTVWXYZ0", from: "codex:bob", fromVerified: true, to: "claude:alice", sentAt: "2026-01-01T00:00:00.000Z",
  anticipation: "reply", conversationId: "01JABCDEFGHJKMNPQRSTVWXYZ0", hop: 1, bodyBytes: 0, offset: 0, reminders: { count: 0 },
};

test("every code point is escaped exactly when its Unicode properties say so, in both renderings", () => {
  let escaped = 0;
  for (let codePoint = 0; codePoint <= 0x10ffff; codePoint++) {
    const char = String.fromCodePoint(codePoint);
    const hex = codePoint.toString(16).toUpperCase();
    const model = escapeForModel(char);
    const visible = escapeVisible(char);
    if (MUST_ESCAPE.test(char)) {
      escaped++;
      assert.equal(model, `&#x${hex};`, `U+${hex} in the envelope`);
      assert.equal(visible, `⟨U+${hex.padStart(4, "0")}⟩`, `U+${hex} on a terminal`);
      assert.equal(JSON.parse(safeJson(char)), char, `U+${hex} survives JSON`);
      assert.ok(!MUST_ESCAPE.test(safeJson(char).slice(1, -1)[0] ?? ""), `U+${hex} is not raw in JSON`);
    } else {
      assert.equal(visible, char, `U+${hex} stays as it is on a terminal`);
      if (!"&<>\"'".includes(char)) assert.equal(model, char, `U+${hex} stays as it is in the envelope`);
    }
  }
  // Unassigned and private-use planes dominate; the count guards against an empty or everything-matching class.
  assert.ok(escaped > 900_000 && escaped < 1_000_000, `${escaped} code points escaped`);
});

test("the characters found reaching a model raw are escaped in the body and attributes of an envelope", () => {
  const body = REPORTED.map((codePoint) => `x${String.fromCodePoint(codePoint)}`).join("") + "\nline two\ttab";
  const envelope = renderEnvelope({ ...message, via: undefined }, body);
  for (const codePoint of REPORTED) assert.ok(envelope.includes(`&#x${codePoint.toString(16).toUpperCase()};`), `U+${codePoint.toString(16)} escaped`);
  assert.ok(![...envelope].some((char) => char !== "\n" && char !== "\t" && MUST_ESCAPE.test(char)), "nothing dangerous is left raw");
  assert.ok(envelope.includes("\nline two\ttab"), "a body keeps its newlines and tabs");
  assert.equal(escapeForModel("a\nb\tc"), "a&#xA;b&#x9;c", "single-line fields escape them too");
});

test("a working dir with terminal escapes and invisible characters is shown escaped by the CLI and the agents tool", async (t) => {
  const home = tempDir(t);
  const env = { HOME: home, PEERPOST_HOME: join(home, "state") };
  const hostile = `/tmp/\u001b[2J\u001b]0;owned\u0007\u202Eevil\u2028x\u{E0100}`;
  const hook = await runHook("claude-code", "session-start", { session_id: "mallory", cwd: hostile, source: "startup" }, env);
  assert.equal(hook.code, 0, hook.stderr);
  for (const args of [["agents", "--all"], ["agents", "--all", "--json"], ["status"]]) {
    const result = await collect(spawn(process.execPath, [CLI, ...args], { env: { PATH: "/usr/bin:/bin", ...env }, stdio: ["ignore", "pipe", "pipe"] }));
    assert.equal(result.code, 0, result.stderr);
    assert.ok(![...result.stdout].some((char) => char !== "\n" && MUST_ESCAPE.test(char)), `peerpost ${args.join(" ")} printed a raw control: ${JSON.stringify(result.stdout)}`);
    if (args.length === 2) assert.match(result.stdout, /\/tmp\/⟨U\+001B⟩\[2J⟨U\+001B⟩\]0;owned⟨U\+0007⟩⟨U\+202E⟩evil⟨U\+2028⟩x⟨U\+E0100⟩/);
  }
  const session = await connect(t, { ...env, PEERPOST_ADDRESS: "codex:watcher" });
  const listed = (await session.call("agents", { includeDead: true })) as { sessions: Array<{ address: string; cwd?: string }> };
  const mallory = listed.sessions.find((entry) => entry.address === "claude:mallory");
  assert.equal(mallory?.cwd, "/tmp/⟨U+001B⟩[2J⟨U+001B⟩]0;owned⟨U+0007⟩⟨U+202E⟩evil⟨U+2028⟩x⟨U+E0100⟩");
});

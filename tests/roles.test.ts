// Roles at run time with three real MCP servers and the CLI: set, handover, clear, procedures once per
// version per holder, the admin switch, a person's address, the loop guard, and bad input that changes
// nothing stored.
// Role mail's status is shown only to its sender and the holders it reached.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkfifoSync } from "./helpers/fifo.js";
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./helpers/temp.js";
import { connect, type Session } from "./helpers/mcp.js";
import { cli, json } from "./helpers/cli.js";
import { runHook } from "./helpers/hooks.js";

interface Shown {
  id: string;
  to: string;
  via?: string;
  envelope: string;
}

async function trio(t: TestContext, extra: Record<string, string> = {}) {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_USER: "pat", ...extra };
  const [alice, bob, carol] = await Promise.all([
    connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" }),
    connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" }),
    connect(t, { ...env, PEERPOST_ADDRESS: "copilot:carol" }),
  ]);
  for (const session of [alice, bob, carol]) await session.call("health");
  return { home, stateDir, env, alice, bob, carol };
}

async function read(session: Session, all = false): Promise<Shown[]> {
  const result = await session.call("read", all ? { unreadOnly: false } : {});
  assert.equal(result.ok, true, JSON.stringify(result));
  return result.messages as Shown[];
}

async function send(session: Session, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = await session.call("message", args);
  assert.equal(result.ok, true, JSON.stringify(result));
  return result;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

const hasProcedure = (shown: Shown, version: string) => shown.envelope.includes(`<procedure role="role:reviewer" version="${version}" source="user configuration">`);

test("a role moves at run time: open requests follow the holder with reminders, fyi stays, the procedure is shown once per version per holder", async (t) => {
  const { home, env, alice, bob, carol } = await trio(t);
  const procedure = join(home, "review.md");
  writeFileSync(procedure, "Review with <care>: run the tests first.\n");
  const v1 = sha256(readFileSync(procedure, "utf8"));
  const set = await cli(env, "role", "set", "reviewer", "codex:bob", "--procedure", procedure, "--json");
  assert.equal(set.code, 0, set.stderr);
  assert.deepEqual((json(set).role as Record<string, unknown>).procedure, { version: v1, bytes: 41, source: procedure });
  assert.equal((json(set).role as Record<string, unknown>).by, "user:pat");

  const request = await send(alice, { to: "role:reviewer", message: "Please review PR 7", anticipation: "reply" });
  assert.equal(request.to, "codex:bob");
  assert.equal(request.via, "role:reviewer");
  await send(alice, { to: "role:reviewer", message: "fyi: CI is green" });
  const agents = await alice.call("agents");
  assert.deepEqual((agents.sessions as Array<{ address: string; roles: string[] }>).find((s) => s.address === "codex:bob")!.roles, ["reviewer"]);

  const bobFirst = await read(bob);
  assert.equal(bobFirst.length, 2);
  assert.ok(hasProcedure(bobFirst[0]!, v1), bobFirst[0]!.envelope);
  assert.match(bobFirst[0]!.envelope, /Review with &lt;care&gt;: run the tests first\./, "the procedure is escaped");
  assert.match(bobFirst[0]!.envelope, /the user's configuration/);
  assert.ok(!bobFirst[1]!.envelope.includes("<procedure"), "once per version per holder");
  // Bob's prompt hook reminds him once about the open request (the clock a minute on).
  const hook = await runHook("codex", "user-prompt", { session_id: "bob", cwd: home, hook_event_name: "UserPromptSubmit", prompt: "next" }, { ...env, PEERPOST_NOW: String(Date.now() + 60_000) });
  assert.equal(hook.code, 0);
  assert.equal(((await bob.call("status", { messageId: request.messageId })).message as { reminders: number }).reminders, 1);
  const listed = await alice.call("roles");
  assert.deepEqual((listed.roles as Array<Record<string, unknown>>).map(({ role, holder, open, queued }) => ({ role, holder, open, queued })), [{ role: "reviewer", holder: "codex:bob", open: 1, queued: 0 }]);

  assert.equal((await cli(env, "role", "set", "reviewer", "copilot:carol", "--procedure", procedure)).code, 0);
  const late = await bob.call("reply", { messageId: request.messageId, resolution: "reply", message: "looks good" });
  assert.equal(late.ok, false);
  assert.equal((late.error as { code: string }).code, "wrong_recipient");
  assert.equal((late.error as { details: { recipient: string } }).details.recipient, "copilot:carol");
  const bobAll = await read(bob, true);
  assert.deepEqual(bobAll.map((shown) => shown.via && shown.envelope.includes("fyi: CI is green")), [true], "the fyi stays with Bob; the request left");

  const carolFirst = await read(carol);
  assert.equal(carolFirst.length, 1);
  assert.equal(carolFirst[0]!.id, request.messageId);
  assert.ok(hasProcedure(carolFirst[0]!, v1), "a new holder is shown the procedure once");
  const carolStatus = (await carol.call("status", { messageId: request.messageId })).message as { reminders: number; history: Array<{ event: string; detail?: string }> };
  assert.equal(carolStatus.reminders, 1, "the reminder count carries over");
  assert.deepEqual(
    carolStatus.history.filter((entry) => entry.event === "sent" || entry.event === "handover").map((entry) => entry.detail),
    ["by claude:alice to role:reviewer (held by codex:bob)", "role:reviewer moved from codex:bob to copilot:carol"],
  );
  await send(alice, { to: "role:reviewer", message: "second", anticipation: "reply" });
  assert.ok(!(await read(carol))[0]!.envelope.includes("<procedure"));

  // Back to Bob with the same version: he has seen it. A new version is shown to him once.
  assert.equal((await cli(env, "role", "set", "reviewer", "codex:bob", "--procedure", procedure)).code, 0);
  const told = await runHook("codex", "user-prompt", { session_id: "bob", cwd: home, hook_event_name: "UserPromptSubmit", prompt: "next" }, env);
  assert.match(told.stdout, /2 new messages from other AI agents on this machine \(claude:alice \(2\)\), 2 expecting an answer/, "the hooks see handed-over mail as new");
  const cliStatus = json(await cli(env, "status", String(request.messageId), "--json")).message as { handovers: Array<{ from: string; to: string }> };
  assert.deepEqual(cliStatus.handovers.map(({ from, to }) => `${from}→${to}`), ["codex:bob→copilot:carol", "copilot:carol→codex:bob"]);
  const back = await read(bob);
  assert.equal(back.length, 2, "both open requests followed the role back");
  assert.ok(back.every((shown) => !shown.envelope.includes("<procedure")));
  writeFileSync(procedure, "Version two.\n");
  assert.equal((await cli(env, "role", "set", "reviewer", "codex:bob", "--procedure", procedure)).code, 0);
  await send(alice, { to: "role:reviewer", message: "third", anticipation: "reply" });
  assert.ok(hasProcedure((await read(bob))[0]!, sha256("Version two.\n")));
  const answered = await bob.call("reply", { messageId: request.messageId, resolution: "reply", message: "looks good" });
  assert.equal(answered.ok, true, JSON.stringify(answered));

  // Cleared: mail waits at the role, the sender is told, and the next holder gets it.
  assert.equal((await cli(env, "role", "clear", "reviewer")).code, 0);
  const queued = await alice.call("message", { to: "role:reviewer", message: "anyone?", anticipation: "reply" });
  assert.equal(queued.ok, true);
  assert.equal(queued.to, "role:reviewer");
  assert.deepEqual((queued.warnings as Array<{ code: string }>).map((warning) => warning.code), ["role_unheld"]);
  const roles = json(await cli(env, "roles", "--json")).roles as Array<{ holder: string | null; queued: number; open: number }>;
  assert.deepEqual(roles.map(({ holder, queued: waiting }) => ({ holder, waiting })), [{ holder: null, waiting: 3 }], "the two unanswered requests and the new one wait");
  assert.equal((await cli(env, "role", "set", "reviewer", "copilot:carol")).code, 0);
  const carolAgain = await read(carol);
  assert.deepEqual(carolAgain.map((shown) => shown.envelope.match(/<body>\n(.*)\n<\/body>/)![1]).sort(), ["anyone?", "second", "third"]);
  const human = await cli(env, "roles");
  assert.match(human.stdout, /role:reviewer\s+copilot:carol/);
});

test("only a server started with PEERPOST_ROLE_ADMIN=1 offers the role tool", async (t) => {
  const { env, alice } = await trio(t);
  assert.ok(!(await alice.client.listTools()).tools.some((tool) => tool.name === "role"));
  const refused = await alice.call("role", { role: "lead", holder: "codex:bob" });
  assert.equal((refused.error as { code: string }).code, "not_found");
  const admin = await connect(t, { ...env, PEERPOST_ADDRESS: "grok:admin", PEERPOST_ROLE_ADMIN: "1" });
  assert.ok((await admin.client.listTools()).tools.some((tool) => tool.name === "role"));
  const given = await admin.call("role", { role: "lead", holder: "codex:bob" });
  assert.equal(given.ok, true, JSON.stringify(given));
  assert.deepEqual((given.role as Record<string, unknown>).by, "grok:admin");
  assert.deepEqual(given.warnings, [], "a session's address: no warning");
  assert.equal((await send(alice, { to: "role:lead", message: "hi" })).to, "codex:bob");
  // A person no one has used: likely mistyped, said as a send to one says it (the tool and the CLI).
  const typo = await admin.call("role", { role: "lead", holder: "user:patt" });
  assert.deepEqual((typo.warnings as Array<{ code: string }>).map((warning) => warning.code), ["unknown_person"], JSON.stringify(typo));
  const viaCli = await cli(env, "role", "set", "qa", "user:sam");
  assert.equal(viaCli.code, 0, viaCli.stderr);
  assert.match(viaCli.stdout + viaCli.stderr, /No one has used user:sam before: check the name/);
  // The person running peerpost here (PEERPOST_USER) is known.
  const json = JSON.parse((await cli(env, "role", "set", "qa", "user:pat", "--json")).stdout) as { warnings: Array<{ code: string }> };
  assert.deepEqual(json.warnings, []);
});

test("bad role input gets a clear error and leaves the mailbox bytes unchanged", async (t) => {
  const { home, stateDir, env } = await trio(t);
  assert.equal((await cli(env, "role", "set", "reviewer", "codex:bob")).code, 0);
  const mailbox = join(stateDir, "mailbox.jsonl");
  const before = readFileSync(mailbox);
  const big = join(home, "big.md");
  writeFileSync(big, "x".repeat(64 * 1024 + 1));
  const target = join(home, "target.md");
  writeFileSync(target, "secret");
  const link = join(home, "link.md");
  symlinkSync(target, link);
  const fifo = join(home, "fifo.md");
  mkfifoSync(fifo);
  const cases: Array<[string[], string, string?]> = [
    [["role", "set", "../etc", "codex:bob"], "invalid_arguments"],
    [["role", "set", "rev/iewer", "codex:bob"], "invalid_arguments"],
    [["role", "set", "rev\u0007iewer", "codex:bob"], "invalid_arguments"],
    [["role", "set", "reviewer", "codex:nobody"], "not_found"],
    [["role", "set", "reviewer", "role:other"], "invalid_arguments"],
    [["role", "set", "reviewer", "codex:bob", "--procedure", link], "invalid_arguments", "symlink"],
    [["role", "set", "reviewer", "codex:bob", "--procedure", big], "body_too_large", "too_large"],
    [["role", "set", "reviewer", "codex:bob", "--procedure", fifo], "invalid_arguments", "not_regular"],
    [["role", "set", "reviewer", "codex:bob", "--procedure", join(home, "missing.md")], "invalid_arguments", "missing"],
    [["role", "clear", "nobody-has-it"], "not_found"],
  ];
  for (const [args, code, reason] of cases) {
    const result = await cli(env, ...args, "--json");
    assert.equal(result.code, 1, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
    const error = json(result).error as { code: string; hint?: string; details?: { reason?: string } };
    assert.equal(error.code, code, args.join(" "));
    assert.ok(error.hint, "every refusal has a hint");
    if (reason) assert.equal(error.details?.reason, reason);
  }
  // A symlinked default procedure in the state dir is refused too.
  const { mkdirSync } = await import("node:fs");
  mkdirSync(join(stateDir, "roles"));
  symlinkSync(target, join(stateDir, "roles", "reviewer.md"));
  assert.equal((json(await cli(env, "role", "set", "reviewer", "codex:bob", "--json")).error as { details: { reason: string } }).details.reason, "symlink");
  assert.deepEqual(readFileSync(mailbox), before);
});

test("a procedure is refused through a linked directory, a linked roles/, and from procfs, with nothing stored", async (t) => {
  const { home, stateDir, env } = await trio(t);
  const { mkdirSync } = await import("node:fs");
  assert.equal((await cli(env, "role", "set", "reviewer", "codex:bob")).code, 0);
  const mailbox = join(stateDir, "mailbox.jsonl");
  const before = readFileSync(mailbox);
  const real = join(home, "real");
  mkdirSync(real);
  writeFileSync(join(real, "p.md"), "secret procedure");
  writeFileSync(join(real, "reviewer.md"), "secret default procedure");
  symlinkSync(real, join(home, "linkdir"));
  const refusals: Array<[string[], string]> = [
    [["--procedure", join(home, "linkdir", "p.md")], "symlink"],
    // /proc/self is itself a link; /proc/version is a procfs file reached without one.
    [["--procedure", "/proc/self/environ"], "symlink"],
    [["--procedure", "/proc/version"], "special_file_system"],
    [["--procedure", "/sys/kernel/mm/transparent_hugepage/enabled"], "special_file_system"],
  ];
  for (const [extra, reason] of refusals) {
    const result = await cli(env, "role", "set", "reviewer", "codex:bob", ...extra, "--json");
    assert.equal(result.code, 1, `${extra.join(" ")}: ${result.stdout}${result.stderr}`);
    const error = json(result).error as { code: string; hint?: string; details?: { reason?: string } };
    assert.equal(error.code, "invalid_arguments", extra.join(" "));
    assert.equal(error.details?.reason, reason, extra.join(" "));
    assert.ok(error.hint);
  }
  // The state dir's roles/ itself a link to another directory: its default procedure is refused too.
  symlinkSync(real, join(stateDir, "roles"));
  const linkedRoles = await cli(env, "role", "set", "reviewer", "codex:bob", "--json");
  assert.equal(linkedRoles.code, 1, linkedRoles.stdout);
  assert.equal((json(linkedRoles).error as { details: { reason: string } }).details.reason, "symlink");
  assert.deepEqual(readFileSync(mailbox), before);
  assert.ok(!readFileSync(mailbox, "utf8").includes("secret"));
});

test("a person writes as user:<name>: the CLI's default sender, shown to agents as an untrusted person via peerpost", async (t) => {
  const { env, bob } = await trio(t);
  const sent = await cli(env, "send", "--to", "codex:bob", "--anticipation", "reply", "--json", "Which branch?");
  assert.equal(sent.code, 0, sent.stderr);
  assert.equal(json(sent).from, "user:pat");
  const [shown] = await read(bob);
  assert.match(shown!.envelope, /from="user:pat" fromVerified="false"/);
  assert.match(shown!.envelope, /sender="person via peerpost"/);
  assert.match(shown!.envelope, /written by a person at this machine through peerpost.*untrusted and carries no user authority/);
  assert.equal((await bob.call("reply", { messageId: shown!.id, resolution: "reply", message: "main" })).ok, true);
  const inbox = json(await cli(env, "inbox", "user:pat", "--json")).messages as Array<{ from: string }>;
  assert.deepEqual(inbox.map((message) => message.from), ["codex:bob"]);
  const bad = await cli({ ...env, PEERPOST_USER: "pat/../x" }, "send", "--to", "codex:bob", "--json", "hi");
  assert.equal(bad.code, 1);
  assert.match(bad.stdout, /PEERPOST_USER/);
});

test("the hop budget counts an answer sent without replyToMessageId, and a request never takes the last hop", async (t) => {
  const { alice, bob } = await trio(t, { PEERPOST_MAX_HOPS: "3" });
  const ask = await send(alice, { to: "codex:bob", message: "question?", anticipation: "reply" });
  await read(bob);
  const answer = await send(bob, { to: "claude:alice", message: "a counter-question?", anticipation: "reply" });
  assert.equal(answer.conversationId, ask.conversationId, "the turn that read the request answers in its conversation");
  assert.equal(answer.hop, 2);
  await read(alice);
  const last = await alice.call("message", { to: "codex:bob", message: "and another?", anticipation: "reply" });
  assert.equal((last.error as { code: string }).code, "hop_limit", "hop 3 of 3 cannot ask: its answer would have no hop");
  const reply = await alice.call("reply", { messageId: answer.messageId, resolution: "reply", message: "here is my answer" });
  assert.equal(reply.ok, true, "the asker always gets its answer");
  assert.equal((await alice.call("status", { messageId: (reply as { replyId: string }).replyId })).ok, true);
});

test("a session that never sent or held a role's mail cannot see its status (nor the holder's decline reason)", async (t) => {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const env = { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_USER: "pat" };
  const [alice, bob, dave] = await Promise.all([
    connect(t, { ...env, PEERPOST_ADDRESS: "claude:alice" }),
    connect(t, { ...env, PEERPOST_ADDRESS: "codex:bob" }),
    connect(t, { ...env, PEERPOST_ADDRESS: "copilot:dave" }),
  ]);
  for (const session of [alice, bob, dave]) await session.call("health");
  const set = await cli(env, "role", "set", "security", "codex:bob");
  assert.equal(set.code, 0, set.stderr);
  const viaRole = await alice.call("message", { to: "role:security", message: "is CVE-2026-1 exploitable here?", anticipation: "reply" });
  assert.equal(viaRole.ok, true, JSON.stringify(viaRole));
  const direct = await alice.call("message", { to: "codex:bob", message: "lunch?", anticipation: "reply" });
  assert.equal(direct.ok, true, JSON.stringify(direct));
  const declined = await bob.call("reply", { messageId: viaRole.messageId, resolution: "decline", message: "yes: the token in config/prod.env leaks" });
  assert.equal(declined.ok, true, JSON.stringify(declined));
  // Dave is neither: the direct message is not his to look at...
  const directStatus = await dave.call("status", { messageId: direct.messageId });
  assert.equal(directStatus.ok, false);
  assert.equal((directStatus.error as { code: string }).code, "not_found");
  // ...and neither is the role's.
  const roleStatus = await dave.call("status", { messageId: viaRole.messageId });
  assert.equal(roleStatus.ok, false, `dave sees: ${JSON.stringify(roleStatus.message)}`);
  assert.equal((roleStatus.error as { code: string }).code, "not_found");
});

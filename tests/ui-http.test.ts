// The web view over real HTTP: `peerpost ui` as a child process, requests with exact headers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { appendFileSync, chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { cli, registerSessions, request, startUi, uiEnv, write, type Answer } from "./helpers/ui.js";
import { until } from "./helpers/poll.js";
import { tempDir } from "./helpers/temp.js";
import type { UiState } from "../core/ui/types.js";
import { createTask } from "../core/tasks/tasks.js";

function assertNoCors(answer: Answer, what: string): void {
  const cors = Object.keys(answer.headers).filter((name) => name.startsWith("access-control-"));
  assert.deepEqual(cors, [], `${what} carries CORS headers`);
}

function assertCsp(answer: Answer, what: string): void {
  const csp = String(answer.headers["content-security-policy"] ?? "");
  for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "require-trusted-types-for 'script'"]) assert.ok(csp.includes(directive), `${what}: CSP lacks ${directive}: ${csp}`);
  assert.ok(!csp.includes("unsafe-inline") && !csp.includes("http"), `${what}: CSP allows inline or external: ${csp}`);
}

async function state(port: number, token: string, query = ""): Promise<UiState> {
  const answer = await request(port, `/api/state?token=${token}${query}`);
  assert.equal(answer.status, 200, answer.body);
  return JSON.parse(answer.body) as UiState;
}

test("every request needs the token and the loopback Host; nothing is CORS; every answer has the CSP", async (t) => {
  const ui = await startUi(t);
  assert.match(ui.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{32}$/);
  const ok = await request(ui.port, `/?token=${ui.token}`);
  assert.equal(ok.status, 200);
  assert.match(ok.body, /<script src="\/app\.js\?token=/);
  assert.doesNotMatch(ok.body.replace(/<style>[^<]*<\/style>/, ""), /<script>|<style| style=|https?:\/\/(?!127)/, "the page has no inline script and no other style, and names nothing external");
  // Its one inline stylesheet is what the CSP allows, by hash; its state is JSON data, which runs nothing.
  const style = /<style>([^<]*)<\/style>/.exec(ok.body)?.[1] ?? "";
  assert.ok(String(ok.headers["content-security-policy"]).includes(`style-src 'self' 'sha256-${createHash("sha256").update(style).digest("base64")}'`), "the CSP names the stylesheet's hash");
  assert.match(ok.body, /<script type="application\/json" id="initial-state">\{"version":/);
  const cases: Array<[string, string, Record<string, string>, number]> = [
    ["no token", "/", {}, 401],
    ["no token on the API", "/api/state", {}, 401],
    ["no token on the events", "/events", {}, 401],
    ["no token on an asset", "/app.js", {}, 401],
    ["wrong token", "/?token=wrong", {}, 403],
    ["a token one character off", `/?token=${ui.token.slice(0, -1)}${ui.token.endsWith("A") ? "B" : "A"}`, {}, 403],
    ["a rebound DNS name", `/?token=${ui.token}`, { host: `evil.example:${ui.port}` }, 403],
    ["another loopback port", `/?token=${ui.token}`, { host: `127.0.0.1:${ui.port + 1}` }, 403],
    ["no port", `/?token=${ui.token}`, { host: "localhost" }, 403],
    ["IPv6 loopback", `/?token=${ui.token}`, { host: `[::1]:${ui.port}` }, 403],
    ["a name ending in the address", `/?token=${ui.token}`, { host: `127.0.0.1.nip.io:${ui.port}` }, 403],
    ["cross-site fetch", `/api/state?token=${ui.token}`, { "sec-fetch-site": "cross-site" }, 403],
    ["same-site fetch (another local port)", `/api/state?token=${ui.token}`, { "sec-fetch-site": "same-site" }, 403],
    ["a foreign Origin", `/api/state?token=${ui.token}`, { origin: "http://evil.example" }, 403],
  ];
  for (const [what, path, headers, status] of cases) {
    const answer = await request(ui.port, path, { headers });
    assert.equal(answer.status, status, `${what}: ${answer.body}`);
    assert.doesNotMatch(answer.body, new RegExp(ui.token), `${what}: the refusal leaks the token`);
    assertNoCors(answer, what);
    assertCsp(answer, what);
  }
  const localhost = await request(ui.port, `/?token=${ui.token}`, { headers: { host: `localhost:${ui.port}`, "sec-fetch-site": "same-origin" } });
  assert.equal(localhost.status, 200, "localhost:PORT is this server too");
  const preflight = await request(ui.port, `/api/send?token=${ui.token}`, { method: "OPTIONS", headers: { origin: "http://evil.example", "access-control-request-method": "POST", "access-control-request-headers": "x-peerpost-token, content-type" } });
  assert.ok(preflight.status >= 400, `a preflight is refused (${preflight.status})`);
  assertNoCors(preflight, "a preflight");
  const ownPreflight = await request(ui.port, `/api/send?token=${ui.token}`, { method: "OPTIONS", headers: { origin: `http://127.0.0.1:${ui.port}`, "access-control-request-method": "POST" } });
  assert.equal(ownPreflight.status, 405);
  assertNoCors(ownPreflight, "a same-origin preflight");
  for (const asset of ["/app.js", "/icon.svg"]) {
    const answer = await request(ui.port, `${asset}?token=${ui.token}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers["x-content-type-options"], "nosniff");
    // Two URLs are text, not loads: the SVG namespace, and the markdown library's "please report this" error message.
    assert.doesNotMatch(answer.body.replaceAll("http://www.w3.org/2000/svg", "").replaceAll("https://github.com/markedjs/marked.", ""), /innerHTML|outerHTML|insertAdjacentHTML|document\.write|https?:\/\/[a-z]/i, `${asset} parses no markup and loads nothing external`);
  }
  await assert.rejects(
    new Promise((resolve, reject) => httpRequest({ host: "::1", port: ui.port, path: "/" }, resolve).on("error", reject).end()),
    /ECONNREFUSED|EADDRNOTAVAIL|ENETUNREACH/,
    "not reachable on ::1",
  );
});

/** One raw HTTP/1.1 request with `target` exactly as given (a client library would refuse or normalize it); the status line back. */
function rawStatus(port: number, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`));
    let answer = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("end", () => resolve(answer.split("\r\n")[0] ?? ""));
    socket.on("error", reject);
  });
}

test("a request target that is not a path is refused, and no target stops the server", async (t) => {
  const ui = await startUi(t);
  // Any page the person has open can make the browser send "//" to a local port (an <img> will do).
  // Paths (the URL parser threw on these) need the token like any other; other forms are no request of a page.
  const cases: Array<[string, number]> = [["//", 401], ["///", 401], ["//[", 401], ["/\\", 401], ["//:99999", 401], ["//a b", 400], ["http://127.0.0.1/", 400], ["*", 400]];
  for (const [target, status] of cases) assert.match(await rawStatus(ui.port, target), new RegExp(`^HTTP/1\\.1 ${status} `), `target ${JSON.stringify(target)}`);
  assert.match(await rawStatus(ui.port, `//evil.example/?token=${ui.token}`), /^HTTP\/1\.1 404 /, "a path starting with // names no host");
  const ok = await request(ui.port, `/?token=${ui.token}`);
  assert.equal(ok.status, 200, "the server still answers");
});

test("writes need the token header, a JSON body and the page's origin; they go through the mailbox as --as", async (t) => {
  const env = uiEnv(t);
  const ui = await startUi(t, { env, args: ["--no-open", "--as", "codex:person"] });
  await registerSessions(ui.store, "claude:alice");
  const message = { to: "claude:alice", body: "from the page" };
  const origin = `http://127.0.0.1:${ui.port}`;
  const refused: Array<[string, Promise<Answer>, number]> = [
    ["no token header", write(ui, "/api/send", message, { "x-peerpost-token": "" }), 401],
    ["the token only in the URL", request(ui.port, `/api/send?token=${ui.token}`, { method: "POST", body: JSON.stringify(message), headers: { "content-type": "application/json", origin } }), 401],
    ["a wrong token header", write(ui, "/api/send", message, { "x-peerpost-token": "nope" }), 403],
    ["no Origin", request(ui.port, "/api/send", { method: "POST", body: JSON.stringify(message), headers: { "content-type": "application/json", "x-peerpost-token": ui.token } }), 403],
    ["a foreign Origin", write(ui, "/api/send", message, { origin: "http://evil.example" }), 403],
    ["a cross-site fetch", write(ui, "/api/send", message, { "sec-fetch-site": "cross-site" }), 403],
    ["a form post (text/plain)", write(ui, "/api/send", message, { "content-type": "text/plain" }), 415],
    ["a form post (urlencoded)", write(ui, "/api/send", message, { "content-type": "application/x-www-form-urlencoded" }), 415],
    ["a foreign Host", write(ui, "/api/send", message, { host: `evil.example:${ui.port}`, origin: `http://evil.example:${ui.port}` }), 403],
    ["not JSON", request(ui.port, "/api/send", { method: "POST", body: "{to:", headers: { "content-type": "application/json", "x-peerpost-token": ui.token, origin } }), 400],
    ["an unknown field", write(ui, "/api/send", { ...message, from: "claude:alice" }), 400],
    ["an empty body", write(ui, "/api/send", { to: "claude:alice", body: "" }), 400],
    ["a bad address", write(ui, "/api/send", { to: "alice", body: "x" }), 400],
    ["an unknown session", write(ui, "/api/send", { to: "claude:nobody", body: "x" }), 404],
    ["an unknown write", write(ui, "/api/delete", {}), 404],
  ];
  for (const [what, answer, status] of refused) {
    const result = await answer;
    assert.equal(result.status, status, `${what}: ${result.body}`);
    assertNoCors(result, what);
  }
  assert.equal(ui.store.mailbox.inbox("claude:alice", { unreadOnly: false }).length, 0, "no refused write reached the mailbox");

  const sent = await write(ui, "/api/send", { ...message, anticipation: "reply" });
  assert.equal(sent.status, 200, sent.body);
  const { messageId } = JSON.parse(sent.body) as { messageId: string };
  const [stored] = ui.store.mailbox.inbox("claude:alice");
  assert.equal(stored?.message.id, messageId);
  assert.equal(stored?.message.from, "codex:person");
  assert.equal(stored?.message.fromVerified, false);
  const receipts = ui.store.receipts.query({ kind: "send" }).receipts;
  assert.deepEqual(receipts.map((receipt) => [receipt.host, receipt.from, receipt.messageId]), [["ui", "codex:person", messageId]]);

  // A request to the person: replied from the page once; a second answer and a stranger's message are refused.
  await registerSessions(ui.store, "codex:person");
  // The person's own task: its opening note is a request to themself, kept for the result, not waiting on them.
  const task = await createTask(ui.store, { by: "codex:person", title: "tidy the docs" });
  const asked = await cli(env, "send", "--from", "claude:alice", "--to", "codex:person", "--anticipation", "reply", "--json", "ok to merge?");
  const requestId = (JSON.parse(asked.stdout) as { messageId: string }).messageId;
  await until(async () => (await state(ui.port, ui.token)).mine.some((entry) => entry.id === requestId), 10_000, "the request in the person's list");
  assert.ok(!(await state(ui.port, ui.token)).mine.some((entry) => entry.id === task.messageId), "a task's own note is not waiting on its creator");
  const replied = await write(ui, "/api/resolve", { id: requestId, resolution: "reply", text: "yes" });
  assert.equal(replied.status, 200, replied.body);
  assert.equal(ui.store.mailbox.find(requestId)?.resolved?.resolution, "reply");
  const again = await write(ui, "/api/resolve", { id: requestId, resolution: "decline", text: "no" });
  assert.equal(again.status, 409);
  assert.equal((JSON.parse(again.body) as { error: { code: string } }).error.code, "already_resolved");
  const stranger = await write(ui, "/api/resolve", { id: messageId, resolution: "decline" });
  assert.equal(stranger.status, 403);
  assert.equal((JSON.parse(stranger.body) as { error: { code: string } }).error.code, "wrong_recipient");
  const done = await write(ui, "/api/resolve", { id: requestId, resolution: "done" });
  assert.equal(done.status, 400, "the page only replies and declines");
});

test("without --as the page writes as the person's own user:<name>", async (t) => {
  const ui = await startUi(t, { env: { ...uiEnv(t), PEERPOST_USER: "ana" } });
  await registerSessions(ui.store, "claude:alice");
  assert.equal((await state(ui.port, ui.token)).author, "user:ana");
  const answer = await write(ui, "/api/send", { to: "claude:alice", body: "from a person" });
  assert.equal(answer.status, 200, answer.body);
  const [entry] = ui.store.mailbox.inbox("claude:alice");
  assert.equal(entry?.message.from, "user:ana");
  assert.deepEqual((JSON.parse(answer.body) as { warnings: string[] }).warnings.length, 1, "the recipient is not running: said, as the CLI says it");
});

test("the event stream pushes the state, then after a CLI send only the parts that changed; the state shows it with status, filters and visible bodies", async (t) => {
  const env = uiEnv(t);
  const ui = await startUi(t, { env });
  await registerSessions(ui.store, "claude:alice", "codex:bob");
  const events: string[] = [];
  const stream = httpRequest({ host: "127.0.0.1", port: ui.port, path: `/events?token=${ui.token}`, headers: { host: `127.0.0.1:${ui.port}` } }, (res) => {
    assert.equal(res.headers["content-type"], "text/event-stream; charset=utf-8");
    res.setEncoding("utf8");
    res.on("data", (chunk: string) => events.push(chunk));
  });
  stream.end();
  t.after(() => stream.destroy());
  const deltas = () => [...events.join("").matchAll(/^event: delta\ndata: (.*)$/gm)].map((match) => JSON.parse(match[1]!) as { base: number | null; serial: number; changed: Partial<UiState> });
  await until(() => deltas().length > 0, 10_000, "the first event");
  const [whole] = deltas();
  assert.equal(whole!.base, null, "a stream opened without a state the server still has starts with the whole state");
  assert.ok(whole!.changed.claims && whole!.changed.tasks && whole!.changed.conversations);
  const sent = await cli(env, "send", "--from", "claude:alice", "--to", "codex:bob", "--anticipation", "reply", "--json", "look at \u202Eevil.exe\u202C please");
  assert.equal(sent.code, 0, sent.stderr);
  const { messageId, conversationId } = JSON.parse(sent.stdout) as { messageId: string; conversationId: string };
  await until(() => deltas().some((delta) => delta.changed.conversations?.[0]?.messages[0]?.id === messageId), 10_000, "a delta with the CLI's message");
  const received = deltas();
  const at = received.findIndex((entry) => entry.changed.conversations?.[0]?.messages[0]?.id === messageId);
  const delta = received[at]!;
  assert.equal(delta.base, received[at - 1]!.serial, "each delta starts from the state sent before it");
  assert.equal(delta.changed.conversations?.[0]?.messages[0]?.body, "look at ⟨U+202E⟩evil.exe⟨U+202C⟩ please");
  assert.deepEqual([delta.changed.claims, delta.changed.tasks, delta.changed.setUp], [undefined, undefined, undefined], "parts that did not change are not sent again");
  const shown = await state(ui.port, ui.token);
  const message = shown.conversations[0]?.messages[0];
  assert.equal(message?.id, messageId);
  assert.equal(message?.status, "queued");
  assert.equal(message?.body, "look at ⟨U+202E⟩evil.exe⟨U+202C⟩ please", "bidi controls are shown, not applied");
  const bob = shown.sessions.find((session) => session.address === "codex:bob");
  assert.deepEqual(bob?.waiting.map((entry) => entry.id), [messageId], "the open request waits on bob");
  assert.equal(bob?.cwd, "/work/bob");
  assert.equal(shown.health.logs.find((log) => log.name === "mailbox")?.corrupt, 0);

  await cli(env, "send", "--from", "codex:bob", "--to", "claude:alice", "an unrelated note");
  assert.equal((await state(ui.port, ui.token)).totals.conversations, 2);
  assert.deepEqual((await state(ui.port, ui.token, `&conversation=${conversationId}`)).conversations.map((entry) => entry.id), [conversationId]);
  const searched = await state(ui.port, ui.token, "&q=EVIL.EXE");
  assert.deepEqual(searched.conversations.map((entry) => entry.id), [conversationId], "search ignores case");
  assert.equal(searched.conversations[0]?.messages[0]?.match, true);
  assert.equal((await state(ui.port, ui.token, "&q=nothing-like-this")).conversations.length, 0);
  assert.equal((await state(ui.port, ui.token, "&session=codex:bob")).sessions.length, 1);
  const roleSet = await cli(env, "role", "set", "lead", "codex:bob");
  assert.equal(roleSet.code, 0, roleSet.stderr);
  const byRole = await state(ui.port, ui.token, "&role=lead");
  assert.deepEqual(byRole.sessions.map((session) => [session.address, session.roles]), [["codex:bob", ["lead"]]], "a role given at run time shows");
  assert.ok(byRole.choices.roles.includes("lead"));
  assert.deepEqual(byRole.conversations.map((entry) => entry.id).sort(), (await state(ui.port, ui.token)).conversations.map((entry) => entry.id).sort(), "both threads involve the role's holder");
  const limited = await state(ui.port, ui.token, "&limit=1");
  assert.equal(limited.conversations.length, 1);
  assert.equal(limited.totals.matchedConversations, 2);
  for (const query of ["&session=bob", "&conversation=../x", "&limit=0", `&q=${"x".repeat(201)}`]) assert.equal((await request(ui.port, `/api/state?token=${ui.token}${query}`)).status, 400, query);

  const replied = await cli(env, "reply", messageId, "--as", "codex:bob", "--reply", "done it");
  assert.equal(replied.code, 0, replied.stderr);
  await until(async () => (await state(ui.port, ui.token)).conversations.some((entry) => entry.messages.some((item) => item.id === messageId && item.status === "replied")), 10_000, "the reply in the state");
  const kinds = (await state(ui.port, ui.token)).choices.receiptKinds;
  assert.deepEqual(kinds, ["reply", "send"]);

  // A line that is not a record shows in store health, and the page keeps working.
  appendFileSync(join(env.PEERPOST_HOME!, "mailbox.jsonl"), '{"v":1,"type":"msg","broken":true}\n');
  await until(async () => (await state(ui.port, ui.token)).health.logs.find((log) => log.name === "mailbox")?.corrupt === 1, 10_000, "the corrupt line in store health");
  const health = (await state(ui.port, ui.token)).health.logs.find((log) => log.name === "mailbox");
  assert.ok(health && health.bytes > 0 && health.recentCorrupt.length === 1, JSON.stringify(health));
  const files = (await state(ui.port, ui.token)).health.files.map((file) => file.name);
  assert.ok(["mailbox.jsonl", "receipts.jsonl", "sessions.jsonl"].every((name) => files.includes(name)), files.join(", "));
});

test("the browser is opened with $BROWSER (a list of command lines, the URL at %s) at a one-time code, not the token; a failing opener is reported and serving goes on", async (t) => {
  const dir = tempDir(t);
  const opener = join(dir, "opener.sh");
  const seen = join(dir, "seen");
  writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > '${seen}'\n`);
  chmodSync(opener, 0o755);
  const env = { ...uiEnv(t), BROWSER: opener };
  const ui = await startUi(t, { env, args: [] });
  await until(() => existsSync(seen) && readFileSync(seen, "utf8") !== "", 10_000, "the opener to get the URL");
  const opened = new URL(readFileSync(seen, "utf8"));
  assert.equal(opened.origin, `http://127.0.0.1:${ui.port}`);
  assert.ok(!opened.href.includes(ui.token), "no token in the opener's arguments, which every user can read");
  const code = opened.searchParams.get("open")!;
  assert.match(code, /^[A-Za-z0-9_-]{24}$/);
  const load = (query: string, headers: Record<string, string> = { "sec-fetch-site": "none", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" }) => request(ui.port, `/?${query}`, { headers });
  assert.equal((await load(`open=${code.slice(1)}x`)).status, 401, "a wrong code is no token");
  assert.equal((await load(`open=${code}`, { "sec-fetch-site": "none", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" })).status, 401, "a fetch, not a page load, gets nothing for the code");
  const first = await load(`open=${code}&session=claude:a`);
  assert.equal(first.status, 200, "the opening load");
  assert.match(first.body, new RegExp(`content="0;url=/\\?session=claude%3Aa&amp;token=${ui.token}"`), "it goes on to the page, the token in place of the code");
  assert.equal((await load(`open=${code}`)).status, 401, "the code is used up");
  assert.equal((await load(`token=${ui.token}`)).status, 200);

  // As xdg-open reads it: a list tried in turn, each a command line with the URL at %s.
  const lister = join(dir, "lister.sh");
  const listed = join(dir, "listed");
  writeFileSync(lister, `#!/bin/sh\nprintf '%s|' "$@" > '${listed}'\n`);
  chmodSync(lister, 0o755);
  const listedUi = await startUi(t, { env: { ...uiEnv(t), BROWSER: `${join(dir, "no-such-browser")}:${lister} --new-window %s --flag` }, args: [] });
  await until(() => {
    try {
      const words = readFileSync(listed, "utf8").split("|");
      return words.length === 4 && words[0] === "--new-window" && words[1]!.startsWith(`http://127.0.0.1:${listedUi.port}/?open=`) && words[2] === "--flag";
    } catch {
      return false;
    }
  }, 10_000, "the second opener of the list to get the URL in its place");

  const broken = await startUi(t, { env: { ...uiEnv(t), BROWSER: join(dir, "no-such-browser") }, args: [] });
  await until(() => /could not open a browser/.test(broken.stderr()), 10_000, "the opener failure on stderr");
  assert.equal((await request(broken.port, `/?token=${broken.token}`)).status, 200, "still serving");
});

test("ui stops cleanly on SIGTERM and refuses a bad or taken --port", async (t) => {
  const ui = await startUi(t);
  const exited = new Promise<number | null>((resolve) => ui.child.on("exit", (code) => resolve(code)));
  ui.child.kill("SIGTERM");
  assert.equal(await exited, 0);
  const bad = await cli(uiEnv(t), "ui", "--no-open", "--port", "70000");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--port/);
  const running = await startUi(t);
  const taken = await cli(uiEnv(t), "ui", "--no-open", "--port", String(running.port));
  assert.equal(taken.code, 1);
  assert.match(taken.stderr, /already in use[\s\S]*hint: Pick another --port/);
});

test("npm start opens the web view; host manifests launch the MCP server directly", () => {
  const root = new URL("../../", import.meta.url);
  const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts.start, "node dist/cli.cjs ui");
  for (const host of ["claude-code", "codex", "copilot", "grok"]) {
    const manifest = readFileSync(new URL(`dist/${host}/.mcp.json`, root), "utf8");
    assert.match(manifest, /server\.mjs/, `${host} launches its server bundle`);
    assert.doesNotMatch(manifest, /npm|\bui\b/, `${host} does not go through npm start`);
  }
});

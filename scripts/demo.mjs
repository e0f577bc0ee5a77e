// npm run demo: two real peerpost MCP servers as two sessions (claude:demo-a and codex:demo-b), driven by
// the SDK's stdio client, in a demo state dir of their own (PEERPOST_DEMO_HOME, else <tmp>/peerpost-demo-<uid>,
// emptied first). A asks B with waitForReply, B reads the envelope and replies, A's wait returns the
// reply, and B tells the person (user:<name>) it is done. The conversation stays in the demo state dir:
// the last line is the command that opens the web view on it; `npm run demo -- --ui` opens it at once.
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir, userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const cli = fileURLToPath(new URL("../dist/cli.cjs", import.meta.url));
// One per user: <tmp> is shared by every user of the machine, and another user's dir cannot be emptied.
const uid = process.getuid?.() ?? 0;
// Resolved here, against the dir npm was run from (INIT_CWD; npm runs scripts in the package root): the
// servers take only an absolute PEERPOST_HOME, and the printed command runs from any dir.
const stateDir = process.env.PEERPOST_DEMO_HOME ? resolve(process.env.INIT_CWD ?? process.cwd(), process.env.PEERPOST_DEMO_HOME.replace(/^~(?=\/|$)/, homedir())) : join(tmpdir(), `peerpost-demo-${uid}`);
const openUi = process.argv.includes("--ui");
const say = (who, text) => console.log(`\n[${who}] ${text}`);

const MARK = "made by npm run demo; removed by its next run\n";
/** Whether the dir holds the mark an earlier demo wrote: a regular file with exactly its text (a project's demo/ folder is not it). */
function demoMarked(dir) {
  const mark = join(dir, "demo");
  try {
    return lstatSync(mark).isFile() && readFileSync(mark, "utf8") === MARK;
  } catch {
    return false;
  }
}

// Only a state dir an earlier demo made is emptied: its mailbox names the demo's sessions.
if (existsSync(stateDir)) {
  const owner = lstatSync(stateDir).uid;
  if (owner !== uid) {
    console.error(`${stateDir} belongs to another user (uid ${owner}); set PEERPOST_DEMO_HOME to a path of your own`);
    process.exit(1);
  }
  if (!demoMarked(stateDir)) {
    console.error(`${stateDir} exists and is not a peerpost demo state dir; set PEERPOST_DEMO_HOME to another path`);
    process.exit(1);
  }
  rmSync(stateDir, { recursive: true, force: true });
}
// Marked before anything is written there: a run stopped while its servers start leaves a dir the next run empties.
// Made here, not found: a dir another user slipped in since the check above fails the mkdir (EEXIST).
mkdirSync(dirname(stateDir), { recursive: true });
mkdirSync(stateDir, { mode: 0o700 });
writeFileSync(join(stateDir, "demo"), MARK, { mode: 0o600, flag: "wx" });

// The demo's own settings only: a person's PEERPOST_STORE (a team's database), address or limits stay out of it.
const demoEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("PEERPOST_") || name === "PEERPOST_USER"));
const env = { ...demoEnv, PEERPOST_HOME: stateDir };

async function session(address) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, "serve"], env: { ...env, PEERPOST_ADDRESS: address } });
  const client = new Client({ name: `demo ${address}`, version: "1.0.0" });
  // A server that could not start (or stopped) has said why on stderr, above: the demo ends there, without the SDK's stack trace.
  const stopped = (error) => {
    console.error(`demo: the peerpost server for ${address} stopped (${error instanceof Error ? error.message : String(error)}); its own error, if it gave one, is above.`);
    process.exit(1);
  };
  await client.connect(transport).catch(stopped);
  const call = async (name, args = {}) => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }).catch(stopped);
    if (result.isError) {
      const { code, message, hint } = result.structuredContent?.error ?? {};
      console.error(`demo: ${address}'s ${name} failed: ${code}: ${message}${hint ? `\n${hint}` : ""}`);
      process.exit(1);
    }
    return result.structuredContent;
  };
  await call("health"); // registers the session
  return { client, call };
}

say("demo", `state dir ${stateDir}`);
const a = await session("claude:demo-a");
const b = await session("codex:demo-b");
say("claude:demo-a", "agents →");
console.log((await a.call("agents")).sessions.map((s) => `  ${s.address}${s.self ? " (me)" : ""}`).join("\n"));
say("claude:demo-a", 'message {to: "codex:demo-b", waitForReply: true} "Which port does the dev server use?"');
const asking = a.call("message", { to: "codex:demo-b", message: "Which port does the dev server use?", waitForReply: true, timeoutMs: 60_000 });
const incoming = await b.call("wait", { timeoutMs: 30_000 });
say("codex:demo-b", "wait → a new message, rendered for the model:");
console.log(incoming.message.envelope);
const answerText = "**5173**, the vite default:\n\n```sh\nnpm run dev -- --port 5173\n```";
say("codex:demo-b", `reply {resolution: "reply"} ${JSON.stringify(answerText)}`);
const replied = await b.call("reply", { messageId: incoming.message.id, resolution: "reply", message: answerText });
console.log(`  status: ${replied.status}`);
const answer = await asking;
say("claude:demo-a", `message returned: outcome ${answer.wait.outcome}; the reply, rendered for the model:`);
console.log(answer.wait.reply.envelope);
// As peerpost names the person: a uid without a passwd entry (a container's -u) has no userInfo().
const loginName = () => {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER ?? process.env.LOGNAME ?? "";
  }
};
const person = `user:${process.env.PEERPOST_USER || loginName()}`;
say("codex:demo-b", `message {to: "${person}"} "Told claude:demo-a the dev server's port (5173)."`);
await b.call("message", { to: person, message: "Told claude:demo-a the dev server's port (5173).", anticipation: "fyi" });
await a.client.close();
await b.client.close();
const shellQuoted = (text) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);
const command = `PEERPOST_HOME=${shellQuoted(stateDir)} node ${shellQuoted(cli)} ui`;
say("demo", "done; the conversation is kept in the demo state dir.");
if (!openUi) {
  console.log(`\nSee it in the web view:\n  ${command}`);
  process.exit(0);
}
const ui = spawn(process.execPath, [cli, "ui", ...(process.argv.includes("--no-open") ? ["--no-open"] : [])], { env, stdio: "inherit" });
// Ctrl-C or a kill of the demo stops the web view too.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => ui.kill(signal));
ui.on("exit", (code) => process.exit(code ?? 0));

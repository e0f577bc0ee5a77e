// Traffic for compaction tests: old mail of every kind (resolved, declined, read fyi, expired, open),
// claims and tasks that ended, then recent traffic; and what a reader sees of it, to compare before and
// after a compaction.
import assert from "node:assert/strict";
import { dirname } from "node:path";
import type { Peerpost } from "../../core/peerpost.js";
import { claimPaths, listClaims, releasePaths } from "../../core/claims/claims.js";
import { createTask, listTasks, updateTask } from "../../core/tasks/tasks.js";

const DAY = 86_400_000;

/** Old traffic (resolved, declined, read fyi, expired, and open requests), then recent traffic. */
export async function traffic(peerpost: Peerpost, clock: { now: number }): Promise<string[]> {
  const { mailbox } = peerpost;
  const ids: string[] = [];
  for (let i = 0; i < 60; i++) {
    // Each send a turn's length (PEERPOST_WAKE_TIMEOUT_MS) after the last: sends seconds apart, each side
    // closing a request and then asking back, would be one conversation running out of hops.
    clock.now += 11 * 60_000;
    const [from, to] = i % 2 === 0 ? ["claude:a", "codex:b"] : ["codex:b", "claude:a"];
    const kind = i % 5;
    const { message } = await mailbox.send({
      from, fromVerified: true, to, body: `old #${i}`,
      anticipation: kind === 2 ? "fyi" : "reply",
      ...(kind === 3 ? { replyBy: new Date(clock.now + 60_000).toISOString() } : {}),
    });
    ids.push(message.id);
    if (kind === 0) ids.push((await mailbox.resolve({ id: message.id, by: to, resolution: "reply", text: `answer #${i}` })).reply!.id);
    if (kind === 1) await mailbox.resolve({ id: message.id, by: to, resolution: "decline", text: "no" });
    if (kind === 2) await mailbox.markRead(to, [message.id]);
    // kind 4 stays an open request: it must never move.
  }
  await oldWork(peerpost, clock);
  clock.now += 40 * DAY;
  for (let i = 0; i < 5; i++) ids.push((await mailbox.send({ from: "claude:a", fromVerified: true, to: "codex:b", body: `new #${i}`, anticipation: "reply" })).message.id);
  await claimPaths(peerpost, { holder: "claude:a", cwd: dirname(peerpost.stateDir.path), paths: ["src/standing.ts"] });
  return ids;
}

/** Claims claimed and released or run out, and tasks finished, failed, and one still open with its dependency: lines compaction moves or keeps by their own rules. */
async function oldWork(peerpost: Peerpost, clock: { now: number }): Promise<void> {
  const cwd = dirname(peerpost.stateDir.path);
  for (let i = 0; i < 10; i++) {
    clock.now += 1000;
    await claimPaths(peerpost, { holder: "claude:a", cwd, paths: [`src/${i}.ts`], ttl: "1h" });
    if (i % 3 !== 0) await releasePaths(peerpost, { by: "claude:a", cwd, paths: [`src/${i}.ts`] });
  }
  const finish = async (title: string, status: "done" | "failed", after: string[] = []) => {
    const task = await createTask(peerpost, { by: "claude:a", title, after });
    await updateTask(peerpost, { id: task.id, by: "codex:b", status: "in_progress" });
    return updateTask(peerpost, { id: task.id, by: "codex:b", status });
  };
  const done = await finish("done", "done");
  await finish("after done", "done", [done.id]);
  await finish("failed", "failed");
  const waitedOn = await finish("waited on", "done");
  await createTask(peerpost, { by: "claude:a", title: "open", after: [waitedOn.id] });
}

/** What a reader sees: each message's status, resolution and body, unread inboxes, and the tail from the start. */
export function observe(peerpost: Peerpost, ids: string[]): unknown {
  const { mailbox } = peerpost;
  const messages = ids.map((id) => {
    const message = mailbox.find(id);
    assert.ok(message, `message ${id} is found`);
    return { id, status: mailbox.status(message), resolved: message.resolved ?? null, body: mailbox.body(message), thread: mailbox.thread(message.conversationId).map((m) => m.id) };
  });
  // Unread and still waiting on its recipient: what inboxes and hooks flag (finished messages may move out).
  const unread = ["claude:a", "codex:b"].map((address) => mailbox.inbox(address).filter((entry) => !["replied", "declined", "done", "expired"].includes(entry.status)).map((entry) => entry.message.id));
  return { messages, unread, lines: committedLines(peerpost), claims: listClaims(peerpost), tasks: listTasks(peerpost) };
}

/** Every record the archive (up to its committed end) and the live log hold, as sorted JSON lines. */
export function committedLines(peerpost: Peerpost): string[] {
  const lines: string[] = [];
  peerpost.mailbox.scanArchive(({ record }) => lines.push(JSON.stringify(record)));
  peerpost.mailbox.log.scan(0, ({ record }) => lines.push(JSON.stringify(record)));
  return lines.sort();
}

export function openIds(peerpost: Peerpost, ids: string[]): string[] {
  return ids.filter((id) => {
    const message = peerpost.mailbox.find(id)!;
    return !message.resolved && !(message.replyBy !== undefined && Date.parse(message.replyBy) < peerpost.config.now()) && !(message.anticipation === "fyi" && message.read);
  });
}

// Writes a large, realistic mailbox directly as JSONL: many recipients, most requests resolved, and
// exactly `pendingFor` with one unread request. Much faster than sending through the store.
import { openSync, writeSync, closeSync } from "node:fs";
import { monotonicFactory } from "ulid";

const newId = monotonicFactory();
const KINDS = ["claude", "codex", "copilot", "grok"];

/** `openCount`: leave only that many messages unresolved (evenly spread) instead of every tenth. */
export function generateMailbox(path, { messages, recipients = 1000, pendingFor, openCount }) {
  const openEvery = openCount === undefined ? 10 : Math.max(1, Math.floor(messages / openCount));
  const fd = openSync(path, "w", 0o600);
  const start = Date.parse("2026-06-01T00:00:00Z");
  let buffer = [];
  let bytes = 0;
  const flush = () => {
    const data = Buffer.from(buffer.join(""));
    writeSync(fd, data);
    bytes += data.length;
    buffer = [];
  };
  for (let i = 0; i < messages; i++) {
    const at = new Date(start + i * 1000).toISOString();
    const id = newId(start + i * 1000);
    const to = `${KINDS[i % 4]}:session-${i % recipients}`;
    const from = `${KINDS[(i + 1) % 4]}:session-${(i * 7 + 3) % recipients}`;
    const anticipation = i % 3 === 0 ? "fyi" : "reply";
    buffer.push(JSON.stringify({ v: 1, type: "msg", id, from, fromVerified: true, to, sentAt: at, anticipation, conversationId: id, hop: 1, body: `message ${i}: please look at src/module-${i % 97}.ts and tell me what you think of the change` }) + "\n");
    if (i % openEvery !== openEvery - 1) {
      buffer.push(JSON.stringify({ v: 1, type: "read", id, by: to, at }) + "\n");
      buffer.push(JSON.stringify({ v: 1, type: "resolved", id, resolution: "done", by: to, at }) + "\n");
    }
    if (buffer.length > 5000) flush();
  }
  const id = newId(start + messages * 1000);
  buffer.push(JSON.stringify({ v: 1, type: "msg", id, from: "codex:bench-peer", fromVerified: true, to: pendingFor, sentAt: new Date(start + messages * 1000).toISOString(), anticipation: "reply", conversationId: id, hop: 1, body: "the one pending message" }) + "\n");
  flush();
  closeSync(fd);
  return { bytes, pendingId: id };
}

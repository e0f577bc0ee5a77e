// Mailbox lines written by hand, for the compaction tests that must place each line exactly.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { monotonicFactory } from "ulid";

/** Writes mailbox lines by hand (real records, ids in time order), for what a test must place exactly. */
export function handWrittenLog(stateDir: string) {
  const newId = monotonicFactory();
  const path = join(stateDir, "mailbox.jsonl");
  const lines: string[] = [];
  const iso = (time: number) => new Date(time).toISOString();
  return {
    path,
    lines,
    msg(at: number, fields: { from?: string; to?: string; anticipation?: string; inReplyTo?: string; idempotencyKey?: string; replyBy?: number } = {}): string {
      const id = newId(at);
      lines.push(JSON.stringify({ v: 1, type: "msg", id, from: fields.from ?? "claude:a", fromVerified: true, to: fields.to ?? "codex:b", sentAt: iso(at), anticipation: fields.anticipation ?? "reply", ...(fields.inReplyTo ? { inReplyTo: fields.inReplyTo } : {}), ...(fields.idempotencyKey ? { idempotencyKey: fields.idempotencyKey } : {}), ...(fields.replyBy !== undefined ? { replyBy: iso(fields.replyBy) } : {}), conversationId: fields.inReplyTo ?? id, hop: fields.inReplyTo ? 2 : 1, body: `body of ${id}` }));
      return id;
    },
    event(type: string, id: string, at: number, fields: Record<string, unknown> = {}): void {
      lines.push(JSON.stringify({ v: 1, type, id, ...fields, at: iso(at) }));
    },
    write(): void {
      appendFileSync(path, lines.map((line) => `${line}\n`).join(""), { mode: 0o600 });
    },
  };
}

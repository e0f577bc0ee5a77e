// Mail written straight into a mailbox file, as a peerpost before the per-address index left it: logs
// large enough to test what readers do on their way, in a fraction of the time sends would take.
import { appendFileSync } from "node:fs";
import { monotonicFactory } from "ulid";

/** Appends `bytes` or more of resolved traffic between many sessions straight to the log, as an old peerpost left it (no index). */
export function oldLog(path: string, bytes: number): void {
  const newId = monotonicFactory();
  const start = Date.parse("2026-01-01T00:00:00Z");
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const at = new Date(start + i * 1000).toISOString();
    const id = newId(start + i * 1000);
    const to = `codex:old-${i % 300}`;
    const batch = [
      { v: 1, type: "msg", id, from: `claude:old-${(i * 7) % 300}`, fromVerified: true, to, sentAt: at, anticipation: "reply", conversationId: id, hop: 1, body: `old message ${i} about src/module-${i % 97}.ts` },
      { v: 1, type: "resolved", id, resolution: "done", by: to, at },
    ].map((record) => JSON.stringify(record) + "\n");
    lines.push(...batch);
    size += batch.reduce((sum, line) => sum + Buffer.byteLength(line), 0);
  }
  appendFileSync(path, lines.join(""), { mode: 0o600 });
}

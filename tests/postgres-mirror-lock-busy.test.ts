// A send decides inside the database's transaction holding the log's advisory lock, after bringing this
// machine's mirror up to date under the mirror's own lock. The mirror is brought up to date before that
// lock is taken too, so one machine's busy mirror lock (another process there compacting the mirror or
// copying a batch) does not hold every other machine's sends behind the database-wide lock.
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { tempDir, onCleanup } from "./helpers/temp.js";
import { NO_POSTGRES, testDatabase } from "./helpers/postgres.js";
import { openPeerpost } from "../core/peerpost.js";

function machine(t: TestContext, url: string, extra: Record<string, string> = {}) {
  const home = tempDir(t);
  const stateDir = join(home, "state");
  const peerpost = openPeerpost({ env: { HOME: home, PEERPOST_HOME: stateDir, PEERPOST_STORE: url, ...extra }, home });
  onCleanup(t, () => peerpost.backend.close());
  return { stateDir, peerpost };
}

test("a busy mirror lock on one machine does not hold up sends from the others", async (t) => {
  const url = await testDatabase(t);
  if (!url) return t.skip(NO_POSTGRES);
  const lockfile = (await import("proper-lockfile")).default;
  const laptop = machine(t, url);
  const devbox = machine(t, url);
  await laptop.peerpost.mailbox.send({ from: "claude:laptop", fromVerified: true, to: "codex:devbox", body: "first" });
  // Something new for the laptop's mirror to copy, from the devbox.
  await devbox.peerpost.mailbox.send({ from: "codex:devbox", fromVerified: true, to: "claude:laptop", body: "news" });

  // Another process on the laptop holds its mirror's lock for 6 s (compacting a large mirror, say).
  const release = await lockfile.lock(join(laptop.stateDir, "mirror-mailbox.jsonl"), { realpath: false, stale: 60_000 });
  const released = new Promise<void>((resolve) => setTimeout(() => void release().then(resolve), 6000));
  const laptopSend = laptop.peerpost.mailbox.send({ from: "claude:laptop", fromVerified: true, to: "codex:devbox", body: "second" }).then(
    () => "stored",
    (error: { code?: string }) => `failed ${error.code}`,
  );
  await new Promise((resolve) => setTimeout(resolve, 500));

  // The devbox has nothing to do with the laptop's files: its send goes through at once.
  const startedAt = Date.now();
  await devbox.peerpost.mailbox.send({ from: "codex:devbox", fromVerified: true, to: "claude:laptop", body: "unrelated" });
  const took = Date.now() - startedAt;
  await released;
  assert.equal(await laptopSend, "stored");
  assert.ok(took < 2000, `the devbox's send waited ${took} ms for the laptop's mirror lock (held through the database's advisory lock)`);
});

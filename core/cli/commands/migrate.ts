// peerpost migrate --to postgres://…: copies this state dir's file store into a PostgreSQL store, once and
// idempotently; then PEERPOST_STORE points every process on this machine at it.
import { openPeerpost } from "../../peerpost.js";
import { storeUrlProblem, maskStoreUrl } from "../../store/postgres/url.js";
import { defineCommand } from "../command.js";
import { printJson, table } from "../output.js";

export const migrateCommand = defineCommand({
  name: "migrate",
  summary: "copy this state dir's history into a PostgreSQL store, once",
  usage: "--to postgres://USER@HOST:PORT/DATABASE",
  details:
    "Records are keyed by machine, log and content, so running it again copies only what is new. The password comes from the URL, PG* variables or ~/.pgpass, and is never printed.",
  flags: { to: { type: "string", value: "URL", help: "The PostgreSQL store to copy into (required)." } },
  args: { min: 0, max: 0, name: "" },
  examples: ["peerpost migrate --to postgres://ana@db.internal:5432/peerpost"],
  async run({ flags, json, usageError }) {
    const to = flags.to;
    if (typeof to !== "string" || to.length === 0) throw usageError("migrate needs --to postgres://USER@HOST:PORT/DATABASE");
    const problem = storeUrlProblem(to);
    if (problem !== undefined) throw usageError(`--to ${maskStoreUrl(to)}: ${problem}`);
    // The file store of this state dir, whatever PEERPOST_STORE says.
    const peerpost = openPeerpost({ env: { ...process.env, PEERPOST_STORE: "file" } });
    const [{ openDatabase }, { copyFileStore }] = await Promise.all([import("../../store/postgres/open.js"), import("../../store/postgres/migrate.js")]);
    const database = openDatabase(to, "cli");
    try {
      const copied = await copyFileStore(database, { mailbox: peerpost.mailbox.log, receipts: peerpost.receipts.log, sessions: peerpost.sessions.log, options: { lockStaleMs: peerpost.config.lockStaleMs, lockTimeoutMs: peerpost.config.lockTimeoutMs } }, peerpost.machine());
      if (json) printJson({ ok: true, from: peerpost.stateDir.path, to: maskStoreUrl(to), machine: peerpost.machine(), logs: copied });
      else
        process.stdout.write(
          `copied ${peerpost.stateDir.path} into ${maskStoreUrl(to)} (machine ${peerpost.machine()})\n` +
            table([["LOG", "READ", "COPIED", "ALREADY THERE", "CORRUPT (SKIPPED)"], ...copied.map((log) => [log.log, String(log.read), String(log.copied), String(log.alreadyThere), String(log.corrupt)])]) +
            "Running it again copies only what is new. Set PEERPOST_STORE to the URL for every peerpost process on this machine to use it.\n",
        );
    } finally {
      await database.close();
    }
    return 0;
  },
});

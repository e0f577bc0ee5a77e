// `peerpost migrate --to postgres://…`: copies this state dir's file store into a PostgreSQL store, once
// and idempotently; then PEERPOST_STORE points every process on this machine at it.
import { openPeerpost } from "../peerpost.js";
import { storeUrlProblem, maskStoreUrl } from "../store/postgres/url.js";
import { printJson, table, UsageError } from "./output.js";
import type { Flags } from "./commands.js";

export async function migrate(flags: Flags, json: boolean): Promise<void> {
  const to = flags.to;
  if (typeof to !== "string" || to.length === 0) throw new UsageError("migrate needs --to postgres://user@host:port/database");
  const problem = storeUrlProblem(to);
  if (problem !== undefined) throw new UsageError(`--to ${maskStoreUrl(to)}: ${problem}`);
  // The file store of this state dir, whatever PEERPOST_STORE says.
  const peerpost = openPeerpost({ env: { ...process.env, PEERPOST_STORE: "file" } });
  const [{ openDatabase }, { copyFileStore }] = await Promise.all([import("../store/postgres/open.js"), import("../store/postgres/migrate.js")]);
  const database = openDatabase(to, "cli");
  try {
    const copied = await copyFileStore(database, { mailbox: peerpost.mailbox.log, receipts: peerpost.receipts.log, sessions: peerpost.sessions.log }, peerpost.machine());
    if (json) return printJson({ ok: true, from: peerpost.stateDir.path, to: maskStoreUrl(to), machine: peerpost.machine(), logs: copied });
    process.stdout.write(
      `copied ${peerpost.stateDir.path} into ${maskStoreUrl(to)} (machine ${peerpost.machine()})\n` +
        table([["LOG", "READ", "COPIED", "ALREADY THERE", "CORRUPT (SKIPPED)"], ...copied.map((log) => [log.log, String(log.read), String(log.copied), String(log.alreadyThere), String(log.corrupt)])]) +
        "Running it again copies only what is new. Set PEERPOST_STORE to the URL for every peerpost process on this machine to use it.\n",
    );
  } finally {
    await database.close();
  }
}

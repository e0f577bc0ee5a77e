// Opening the PostgreSQL database for one kind of process: a hook must give up fast and needs one
// connection; a server holds a few and waits longer for a busy database.
import { PostgresDatabase, type Reachability } from "./store.js";

export type ProcessKind = "hook" | "server" | "cli";

const LIMITS: Record<ProcessKind, { connectTimeoutMs: number; statementTimeoutMs: number; poolSize: number }> = {
  // A prompt hook that cannot reach the database stays silent: it must never hold the prompt for long.
  hook: { connectTimeoutMs: 1000, statementTimeoutMs: 1500, poolSize: 1 },
  server: { connectTimeoutMs: 5000, statementTimeoutMs: 15_000, poolSize: 4 },
  cli: { connectTimeoutMs: 5000, statementTimeoutMs: 15_000, poolSize: 2 },
};

export function openDatabase(url: string, kind: ProcessKind): PostgresDatabase {
  return new PostgresDatabase({ url, applicationName: `peerpost-${kind}`, ...LIMITS[kind] });
}

/** One look at a store URL for doctor and health: whether it answers and with which schema. */
export async function probeStore(url: string): Promise<Reachability> {
  const database = openDatabase(url, "cli");
  try {
    return await database.reachability();
  } finally {
    await database.close();
  }
}

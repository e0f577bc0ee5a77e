// Which store is in use and whether it answers, for `health` and `peerpost doctor`. The URL is shown
// masked; the pg driver is loaded only when the store is PostgreSQL.
import type { Config } from "../common/config.js";
import { maskStoreUrl } from "./postgres/url.js";

export interface StoreReport {
  kind: "file" | "postgres";
  /** The state dir for the file store; the masked URL for PostgreSQL. */
  location: string;
  machine: string;
  reachable: boolean;
  schemaVersion: number | null;
  supportedSchemaVersion: number | null;
  error?: string;
  /** The logs whose mirror here a start-over left halfway (PostgreSQL). */
  startingOver?: string[];
}

export async function inspectStore(config: Config, stateDir: string, machine: string): Promise<StoreReport> {
  if (config.store.kind === "file") return { kind: "file", location: stateDir, machine, reachable: true, schemaVersion: null, supportedSchemaVersion: null };
  const { probeStore } = await import("./postgres/open.js");
  const { mirrorsStartingOver } = await import("./postgres/mirror-record.js");
  const probe = await probeStore(config.store.url);
  const report: StoreReport = { kind: "postgres", location: maskStoreUrl(config.store.url), machine, reachable: probe.reachable, schemaVersion: probe.schemaVersion, supportedSchemaVersion: probe.supportedSchemaVersion };
  if (probe.error !== undefined) report.error = probe.error;
  const startingOver = mirrorsStartingOver(stateDir);
  if (startingOver.length > 0) report.startingOver = startingOver;
  return report;
}

/** What is wrong with the store, each with its fix (empty when nothing is). */
export function storeProblems(report: StoreReport): Array<{ problem: string; fix: string }> {
  const halfway = (report.startingOver ?? []).map((log) => ({
    problem: `this machine's mirror of the ${log} (mirror-${log}.jsonl) was left halfway through starting over from another database: a process stopped in it`,
    fix: "Nothing is lost: the database holds every row. The next sync here (any peerpost command, hook or server) starts it over again; `peerpost index-run` does it now.",
  }));
  return [...halfway, ...databaseProblems(report)];
}

function databaseProblems(report: StoreReport): Array<{ problem: string; fix: string }> {
  if (report.kind === "file") return [];
  if (!report.reachable) return [{ problem: `store ${report.location} is not reachable: ${report.error ?? "no answer"}`, fix: "Start the database or fix PEERPOST_STORE (host, port, credentials in the URL, PG* variables or a 0600 ~/.pgpass, sslmode). Sends fail with state_io_error until it answers; hooks stay silent." }];
  if (report.schemaVersion === null) return [{ problem: `store ${report.location} has no peerpost schema yet`, fix: "Nothing to do: the first write creates it (the role needs CREATE on the database)." }];
  if (report.supportedSchemaVersion !== null && report.schemaVersion > report.supportedSchemaVersion)
    return [{ problem: `store ${report.location} has schema version ${report.schemaVersion}, newer than this peerpost's ${report.supportedSchemaVersion}`, fix: "Upgrade peerpost on this machine; it refuses to write into a newer schema." }];
  return [];
}

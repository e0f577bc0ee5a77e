// The store and state dir in lines for people: `peerpost health` and `peerpost doctor` print the same.
import type { inspectState } from "../upkeep/health.js";
import type { StoreReport } from "../store/report.js";

export function storeLine(store: StoreReport): string {
  return `store      ${store.kind} ${store.location}: ${store.reachable ? "reachable" : "NOT reachable"}${store.schemaVersion !== null ? `, schema ${store.schemaVersion}` : ""}; machine ${store.machine}`;
}

export function stateLines(state: ReturnType<typeof inspectState>): string[] {
  const lines = [`state dir  ${state.stateDir.path} (${state.stateDir.source}, mode ${state.stateDir.mode}${state.stateDir.writable ? "" : ", NOT writable"})`];
  for (const [name, log] of Object.entries(state.logs)) lines.push(`  ${name.padEnd(9)} ${log.exists ? `${log.bytes} bytes, mode ${log.mode}, ${log.corrupt} corrupt, lock ${log.lock}` : "not created yet"}`);
  const { archive, marker } = state.storage;
  const compacted = archive.lastCompactedAt === null ? "never compacted" : `last compacted ${archive.lastCompactedAt}`;
  const compacting = marker === null ? "" : `; compaction marker ${Math.round(marker.ageMs / 1000)} s old${state.storage.compactionInterrupted ? " (interrupted: see below)" : " (under way)"}`;
  lines.push(
    `  ${"archive".padEnd(9)} ${archive.bytes} bytes of compacted mail, ${compacted}${compacting}; its index ${archive.indexBytes} bytes, ${archive.indexed ? "current" : "NOT current: see below"}`,
    `  ${"index".padEnd(9)} ${state.storage.index.bytes} bytes; ${state.storage.indexDamage.length > 0 ? `DAMAGED, rebuilt from the log (see below)${state.storage.index.lagBytes === 0 ? "" : `, ${state.storage.index.lagBytes} bytes behind`}` : state.storage.index.lagBytes === 0 ? "current" : `${state.storage.index.lagBytes} bytes behind${state.storage.index.farBehind ? " (too far for readers: see below)" : " (readers catch it up)"}`}`,
  );
  lines.push(`  ${"work".padEnd(9)} ${workLine(state.work.claims)}; tasks folded from the index and the archive (no snapshot)`);
  for (const [name, log] of Object.entries(state.storage.compactedLogs))
    lines.push(`  ${name.padEnd(9)} compaction: live ${log.bytes} bytes, archive ${log.archiveBytes} bytes, last compacted ${log.lastCompacted ?? "never"}${log.compacting ? " (a compaction's marker stands: running, or it died)" : ""}`);
  return lines;
}

/** The claims' snapshot: whether the edit hook starts from it, or why it folds the claims' lines instead. */
function workLine(claims: ReturnType<typeof inspectState>["work"]["claims"]): string {
  if (claims.status === "trusted") return `claims snapshot trusted, up to byte ${claims.offset}`;
  if (claims.status === "missing") return "claims snapshot none yet (the first fold that reads a claim line saves one)";
  return `claims snapshot ${claims.status === "stale" ? "stale" : "INVALID"} (${claims.reason}): readers fold the claims' lines${claims.status === "stale" ? " and save a new one" : ""}`;
}

// Which database a mirror holds the rows of (mirror-<log>.store.json): written when a mirror starts, and
// when it starts over from another database, first as STARTING_OVER, so that a start-over killed halfway
// is done again by the next process, whichever database it is pointed at.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { readStateFile, writeStateFile } from "../../security/trust.js";

/** What the record says while the mirror starts over: no database's, so any database starts it over again. */
export const STARTING_OVER = "(starting over)";

function recordPath(stateDir: string, log: string): string {
  return join(stateDir, `mirror-${log}.store.json`);
}

/** The database the mirror of `log` holds the rows of, as recorded (undefined: none recorded, or unreadable). */
export function recordedStore(stateDir: string, log: string): string | undefined {
  try {
    const value = JSON.parse(readStateFile(recordPath(stateDir, log))) as { store?: unknown };
    return typeof value.store === "string" ? value.store : undefined;
  } catch {
    return undefined;
  }
}

export function recordStore(stateDir: string, log: string, store: string): void {
  writeStateFile(recordPath(stateDir, log), JSON.stringify({ v: 1, store }) + "\n");
}

/** The logs whose mirror a start-over left halfway (a process stopped in it): the next sync starts them over again. */
export function mirrorsStartingOver(stateDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(stateDir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const log = /^mirror-([a-z]+)\.store\.json$/.exec(name)?.[1];
    return log !== undefined && recordedStore(stateDir, log) === STARTING_OVER ? [log] : [];
  });
}

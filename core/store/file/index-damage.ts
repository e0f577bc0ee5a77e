// Damage found in an index's files: noted in <index dir>/damage.json (for health's `index_rebuilt` and
// doctor) when a reader or doctor finds a file that disagrees with its checksum, and the full check of
// every file that doctor runs.
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { readStateFile, writeStateFile } from "../../security/trust.js";
import { IndexDamage, readChecked } from "./checked-file.js";

/** Damage found in the last this long is reported. */
const DAMAGE_REPORTED_MS = 24 * 3_600_000;
/** Notes kept. */
const DAMAGE_NOTES = 20;

export interface IndexDamageNote {
  at: string;
  /** The file, relative to the index's dir (scopes/<hash>.offs). */
  file: string;
  problem: string;
}

function notesPath(dir: string): string {
  return join(dir, "damage.json");
}

/** Damage noted in `dir` in the last `withinMs` (a day by default), oldest first. */
export function damageNotes(dir: string, withinMs = DAMAGE_REPORTED_MS): IndexDamageNote[] {
  let notes: unknown;
  try {
    notes = JSON.parse(readStateFile(notesPath(dir)));
  } catch {
    return [];
  }
  const since = Date.now() - withinMs;
  return Array.isArray(notes) ? (notes as IndexDamageNote[]).filter((note) => typeof note?.file === "string" && typeof note.problem === "string" && !(Date.parse(note.at) < since)) : [];
}

export function noteDamage(dir: string, damage: IndexDamage): IndexDamageNote {
  const note = { at: new Date().toISOString(), file: relative(dir, damage.file), problem: damage.problem };
  try {
    writeStateFile(notesPath(dir), JSON.stringify([...damageNotes(dir, Infinity), note].slice(-DAMAGE_NOTES)));
  } catch {
    // The rebuild matters more than its note.
  }
  return note;
}

/**
 * Checks every `<sub>/*<ext>` file of an index against its checksum file, and that it sits where its
 * owner's file belongs (`placeOf(owner)`: a file swapped in whole, checksum and all). Returns the damage.
 */
export function checkIndexFiles(dir: string, sub: string, ext: string, placeOf: (owner: string) => string): IndexDamage[] {
  let names: string[];
  try {
    names = readdirSync(join(dir, sub));
  } catch {
    return [];
  }
  const found: IndexDamage[] = [];
  const files = new Set(names.filter((name) => name.endsWith(ext) || name.endsWith(`${ext}.sum`)).map((name) => name.replace(/\.sum$/, "")));
  for (const file of files) {
    const path = join(dir, sub, file);
    try {
      let owner: string;
      try {
        owner = (JSON.parse(readStateFile(`${path}.sum`)) as { name: string }).name;
      } catch {
        throw new IndexDamage(path, "has no readable checksum file");
      }
      if (placeOf(owner) !== file) throw new IndexDamage(path, `holds another file (its checksum names ${JSON.stringify(owner)})`);
      readChecked(path, owner);
    } catch (error) {
      if (error instanceof IndexDamage) found.push(error);
      else throw error;
    }
  }
  return found;
}

// `peerpost allow <host>`: peerpost's own tools added to one host's allow list in that host's own
// config file, only when the person asks. What was there before is kept in the state dir
// (allow.json), so `--undo` restores the file byte for byte when nobody edited it since, and otherwise
// removes exactly what was added.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readStateFileIfAny, writeStateFile } from "../../core/security/trust.js";

export interface AllowEdit {
  host: string;
  /** The host's config file that holds its allow list. */
  file: string;
  /** What is allowed, in the host's words (for output and docs). */
  rules: string[];
  isSet(text: string | undefined): boolean;
  add(text: string | undefined): string;
  remove(text: string): string;
}

interface Undo {
  file: string;
  before: string | null;
  after: string;
}

function undoFile(stateDir: string): string {
  return join(stateDir, "allow.json");
}

/** The undo records: a state file, never read through a link or from another user (its `before` goes into a host's config). */
function readUndo(stateDir: string): Record<string, Undo> {
  const text = readStateFileIfAny(undoFile(stateDir));
  try {
    return text === undefined ? {} : (JSON.parse(text) as Record<string, Undo>);
  } catch {
    return {};
  }
}

function readText(file: string): string | undefined {
  return existsSync(file) ? readFileSync(file, "utf8") : undefined;
}

export type AllowOutcome = "added" | "already" | "removed" | "restored" | "absent";

export function allow(edit: AllowEdit, stateDir: string): AllowOutcome {
  const before = readText(edit.file);
  if (edit.isSet(before)) return "already";
  const after = edit.add(before);
  const undo = readUndo(stateDir);
  // Allowed again (a release with a new tool) over a file nobody edited since: undo goes back to before the first.
  const earlier = undo[edit.host];
  const original = earlier && earlier.file === edit.file && earlier.after === before ? earlier.before : (before ?? null);
  undo[edit.host] = { file: edit.file, before: original, after };
  writeStateFile(undoFile(stateDir), `${JSON.stringify(undo, null, 2)}\n`);
  mkdirSync(dirname(edit.file), { recursive: true });
  writeFileSync(edit.file, after, { mode: 0o600 });
  return "added";
}

export function disallow(edit: AllowEdit, stateDir: string): AllowOutcome {
  const now = readText(edit.file);
  const undo = readUndo(stateDir);
  const recorded = undo[edit.host];
  let outcome: AllowOutcome = "absent";
  if (recorded && recorded.file === edit.file && now === recorded.after) {
    if (recorded.before === null) rmSync(edit.file, { force: true });
    else writeFileSync(edit.file, recorded.before);
    outcome = "restored";
  } else if (now !== undefined && edit.isSet(now)) {
    writeFileSync(edit.file, edit.remove(now));
    outcome = "removed";
  }
  if (recorded) {
    delete undo[edit.host];
    writeStateFile(undoFile(stateDir), `${JSON.stringify(undo, null, 2)}\n`);
  }
  return outcome;
}

export function allowIsSet(edit: AllowEdit): boolean {
  try {
    return edit.isSet(readText(edit.file));
  } catch {
    return false;
  }
}

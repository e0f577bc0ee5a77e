// Readers run again and again, each a child of its own, while another child starts an index over: what
// they found in all, and how many start-overs there were.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { collect } from "./children.js";

export interface ReadersSeen {
  answered: number;
  missing: number;
  wrong: string[];
}

/** `rebuilder` prints {rebuilds} when it stops; each `reader()` prints a ReadersSeen. */
export async function readersDuringRebuilds(rebuilder: ChildProcess, reader: () => ChildProcess): Promise<{ rebuilds: number; seen: ReadersSeen }> {
  const rebuilt = collect(rebuilder);
  let running = true;
  void rebuilt.then(() => (running = false));
  const seen: ReadersSeen = { answered: 0, missing: 0, wrong: [] };
  while (running) {
    const read = await collect(reader());
    assert.equal(read.code, 0, read.stderr);
    const found = JSON.parse(read.stdout) as ReadersSeen;
    seen.answered += found.answered;
    seen.missing += found.missing;
    seen.wrong.push(...found.wrong);
  }
  const { code, stdout, stderr } = await rebuilt;
  assert.equal(code, 0, stderr);
  return { rebuilds: (JSON.parse(stdout) as { rebuilds: number }).rebuilds, seen };
}

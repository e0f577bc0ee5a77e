// The claims fold's snapshot: the entries that stand (an expired one too, until a release ends it), one
// line per repository and first path segment, `["<repo>","<segment>",[rows…]]`, in that order. An edit
// hook then starts from the claims that stand instead of folding every claim and release ever written,
// and it finds, parses and checks only the lines of the segments it looks at (a search of the bytes for
// the line's start), not every claim on the machine. Rows, not objects, each checked as the fold writes
// it; each segment's rows in order (holder, then path), so a claim held twice shows as two equal neighbours.
import { acceptsClaimRow } from "../records/record-check.js";
import { StandingClaims, compareRows, firstSegment, type ClaimRow, type ClaimRows, type ClaimSource } from "./standing.js";
import { DamagedSnapshot, type WorkFoldSnapshot } from "./work-fold.js";

type Line = [repo: string, segment: string, rows: ClaimRow[]];

const NEWLINE = 10;

/** The rows of one line, checked; throws DamagedSnapshot naming the first problem. */
function checkedLine(text: string): Line {
  let line: unknown;
  try {
    line = JSON.parse(text);
  } catch {
    throw new DamagedSnapshot("snapshot line is not JSON");
  }
  if (!Array.isArray(line) || line.length !== 3 || typeof line[0] !== "string" || typeof line[1] !== "string" || !Array.isArray(line[2]) || line[2].length === 0)
    throw new DamagedSnapshot("snapshot line is not a segment's claims");
  const [repo, name, rows] = line as [string, string, unknown[]];
  const where = `snapshot line ${JSON.stringify(repo)} ${JSON.stringify(name)}`;
  if (repo.length === 0 || repo.length > 4096) throw new DamagedSnapshot(`${where} names no repository`);
  for (let i = 0; i < rows.length; i++) {
    if (!acceptsClaimRow(rows[i])) throw new DamagedSnapshot(`${where} holds a row that is not a claim`);
    const claim = rows[i] as ClaimRow;
    if (firstSegment(claim[1]) !== name) throw new DamagedSnapshot(`${where} holds ${claim[1]}`);
    const order = i === 0 ? -1 : compareRows(rows[i - 1] as ClaimRow, claim);
    if (order === 0) throw new DamagedSnapshot(`${where} holds ${claim[0]}'s ${claim[1]} twice`);
    if (order > 0) throw new DamagedSnapshot(`${where} holds rows out of order`);
  }
  return line as Line;
}

/** The lines after a snapshot's header: each starts after a newline (the header's own, for the first). */
class SnapshotLines implements ClaimSource {
  constructor(private readonly body: Buffer) {}

  /** The text of each line whose start is `prefix` (a JSON array's opening), in file order. */
  private *linesStarting(prefix: string): Generator<string> {
    const needle = Buffer.from(`\n${prefix}`);
    for (let at = this.body.indexOf(needle); at >= 0 && at + 1 < this.body.length; at = this.body.indexOf(needle, at + 1)) {
      const end = this.body.indexOf(NEWLINE, at + 1);
      if (end < 0) throw new DamagedSnapshot("snapshot ends inside a line");
      yield this.body.toString("utf8", at + 1, end);
    }
  }

  segment(repo: string, name: string): ClaimRow[] | undefined {
    const lines = [...this.linesStarting(`${JSON.stringify([repo, name]).slice(0, -1)},`)];
    if (lines.length > 1) throw new DamagedSnapshot(`snapshot holds ${JSON.stringify(repo)} ${JSON.stringify(name)} twice`);
    return lines.length === 0 ? undefined : checkedLine(lines[0]!)[2];
  }

  repo(repo: string): Map<string, ClaimRow[]> {
    return this.read(this.linesStarting(`${JSON.stringify([repo]).slice(0, -1)},`)).get(repo) ?? new Map();
  }

  all(): ClaimRows {
    if (this.body.length > 0 && this.body[this.body.length - 1] !== NEWLINE) throw new DamagedSnapshot("snapshot ends inside a line");
    return this.read(this.linesStarting(""));
  }

  /** Lines, checked, and in order: by repository, then segment, none twice. */
  private read(lines: Iterable<string>): ClaimRows {
    const rows: ClaimRows = new Map();
    let previous: Line | undefined;
    for (const text of lines) {
      const line = checkedLine(text);
      if (previous && (previous[0] > line[0] || (previous[0] === line[0] && previous[1] >= line[1]))) throw new DamagedSnapshot("snapshot lines out of order");
      let segments = rows.get(line[0]);
      if (!segments) rows.set(line[0], (segments = new Map()));
      segments.set(line[1], line[2]);
      previous = line;
    }
    return rows;
  }
}

export const CLAIMS_SNAPSHOT: WorkFoldSnapshot<StandingClaims> = {
  file: "work-claims.json",
  version: 4,
  encode(state) {
    const lines: string[] = [];
    const repos = [...state.toRows()].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [repo, segments] of repos) for (const [name, rows] of [...segments].sort(([a], [b]) => (a < b ? -1 : 1))) lines.push(`${JSON.stringify([repo, name, rows])}\n`);
    return lines.join("");
  },
  decode: (body) => new StandingClaims(new SnapshotLines(body)),
};

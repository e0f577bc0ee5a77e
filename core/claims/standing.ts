// The claims that stand, by repository, then by first path segment ("*" for a segment with a wildcard):
// a claim is compared only with those that can share its first segment, so a fold of many claims stays
// linear. A state restored from a snapshot reads a segment's rows from it only when something asks for
// that segment: an edit hook looks at one or two segments of one repository, and neither parses nor
// builds an entry for every claim on the machine.

export interface ClaimEntry {
  holder: string;
  repo: string;
  path: string;
  shared: boolean;
  reason?: string;
  /** When the holder first claimed it (a renewal keeps it). */
  since: string;
  until: string;
  /** The claim event that set it last. */
  claimId: string;
}

/** An entry as a snapshot row: the repository and the segment are where the row is kept, not in it. */
export type ClaimRow = [holder: string, path: string, shared: boolean, since: string, until: string, claimId: string, reason?: string];

/** Rows by repository, then by first segment. */
export type ClaimRows = Map<string, Map<string, ClaimRow[]>>;

/** Where a restored state's claims are until they are asked for: a snapshot's lines (snapshot.ts). Each throws when what it reads is damaged. */
export interface ClaimSource {
  /** The rows of one segment of a repository, or undefined when it has none. */
  segment(repo: string, name: string): ClaimRow[] | undefined;
  /** A repository's rows, by segment. */
  repo(repo: string): Map<string, ClaimRow[]>;
  /** Every row. */
  all(): ClaimRows;
}

/** A segment's entries by `${holder}\n${path}`. */
type Segment = Map<string, ClaimEntry>;

export const WILD = "*";

export function firstSegment(path: string): string {
  const slash = path.indexOf("/");
  const segment = slash < 0 ? path : path.slice(0, slash);
  return segment.includes("*") || segment.includes("?") ? WILD : segment;
}

export function rowOf(entry: ClaimEntry): ClaimRow {
  const row: ClaimRow = [entry.holder, entry.path, entry.shared, entry.since, entry.until, entry.claimId];
  if (entry.reason !== undefined) row.push(entry.reason);
  return row;
}

function entryOf(repo: string, [holder, path, shared, since, until, claimId, reason]: ClaimRow): ClaimEntry {
  return reason === undefined ? { holder, repo, path, shared, since, until, claimId } : { holder, repo, path, shared, reason, since, until, claimId };
}

const slot = (holder: string, path: string) => `${holder}\n${path}`;

export class StandingClaims {
  private readonly repos = new Map<string, Map<string, Segment>>();
  /** `${repo}\n${segment}` of the segments already read from the source (or found not in it). */
  private readonly read = new Set<string>();
  /** Repositories whose every segment was read from the source; all of them once `everything` is. */
  private readonly wholeRepos = new Set<string>();
  private everything = false;

  /** `source`: a snapshot's claims, each segment read when it is first asked for. */
  constructor(private readonly source?: ClaimSource) {}

  /** Makes a segment's rows entries, unless it was read before (changes since then are in `repos`). */
  private adopt(repo: string, name: string, rows: ClaimRow[] | undefined): void {
    const key = `${repo}\n${name}`;
    if (this.read.has(key)) return;
    this.read.add(key);
    if (!rows) return;
    const segment = this.segmentMap(repo, name);
    for (const row of rows) segment.set(slot(row[0], row[1]), entryOf(repo, row));
  }

  private segmentMap(repo: string, name: string): Segment {
    let segments = this.repos.get(repo);
    if (!segments) this.repos.set(repo, (segments = new Map()));
    let segment = segments.get(name);
    if (!segment) segments.set(name, (segment = new Map()));
    return segment;
  }

  private segment(repo: string, name: string, create: boolean): Segment | undefined {
    if (this.source && !this.everything && !this.wholeRepos.has(repo) && !this.read.has(`${repo}\n${name}`)) this.adopt(repo, name, this.source.segment(repo, name));
    return create ? this.segmentMap(repo, name) : this.repos.get(repo)?.get(name);
  }

  /** Every segment of a repository, the source's read. */
  private segmentsOf(repo: string): Segment[] {
    if (this.source && !this.everything && !this.wholeRepos.has(repo)) {
      for (const [name, rows] of this.source.repo(repo)) this.adopt(repo, name, rows);
      this.wholeRepos.add(repo);
    }
    return [...(this.repos.get(repo)?.values() ?? [])];
  }

  get(repo: string, holder: string, path: string): ClaimEntry | undefined {
    return this.segment(repo, firstSegment(path), false)?.get(slot(holder, path));
  }

  /** Sets the entry of its holder on its path, replacing one there (and going last, as a new claim does). */
  set(entry: ClaimEntry): void {
    const segment = this.segment(entry.repo, firstSegment(entry.path), true)!;
    const key = slot(entry.holder, entry.path);
    segment.delete(key);
    segment.set(key, entry);
  }

  delete(repo: string, holder: string, path: string): void {
    this.segment(repo, firstSegment(path), false)?.delete(slot(holder, path));
  }

  /** Visits the entries of a repository that may share a path with `path`. */
  candidates(repo: string, path: string, visit: (entry: ClaimEntry) => void): void {
    const name = firstSegment(path);
    const segments = name === WILD ? this.segmentsOf(repo) : [this.segment(repo, name, false), this.segment(repo, WILD, false)];
    for (const segment of segments) if (segment) for (const entry of segment.values()) visit(entry);
  }

  /** Reads every claim the source holds, now: a damaged line shows here rather than in a later read. */
  readAll(): void {
    if (!this.source || this.everything) return;
    for (const [repo, segments] of this.source.all()) if (!this.wholeRepos.has(repo)) for (const [name, rows] of segments) this.adopt(repo, name, rows);
    this.everything = true;
  }

  /** Every entry, by repository. */
  *all(): IterableIterator<ClaimEntry> {
    this.readAll();
    for (const segments of this.repos.values()) for (const segment of segments.values()) yield* segment.values();
  }

  /** The rows a snapshot keeps: by repository and segment, each segment's sorted by holder, then path. */
  toRows(): ClaimRows {
    const rows: ClaimRows = new Map();
    for (const entry of this.all()) {
      let segments = rows.get(entry.repo);
      if (!segments) rows.set(entry.repo, (segments = new Map()));
      const name = firstSegment(entry.path);
      let list = segments.get(name);
      if (!list) segments.set(name, (list = []));
      list.push(rowOf(entry));
    }
    for (const segments of rows.values()) for (const list of segments.values()) list.sort(compareRows);
    return rows;
  }
}

/** Rows in a snapshot's order: by holder, then path. */
export function compareRows(a: ClaimRow, b: ClaimRow): number {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}

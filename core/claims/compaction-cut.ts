// Which claim and release lines a compaction of the mailbox moves to the archive: all of them up to a
// cut, the latest claim or release line such that
//   - it and every claim and release line before it is dated before the cutoff (now minus the retention);
//   - the claims that stand after it (released ones are gone) all ended at their TTL before the cutoff;
//   - no claim line after it is dated before the end of one of those.
// The live log's fold then starts from no claims where the whole log's had only claims that no later line
// saw standing (`isLive` at its own time) and that stand at no time from the cutoff on: every later
// decision (void or not, `since` of a renewal) and every claim that stands now come out the same, and a
// later conflicting claim never wins because an earlier one that stood was moved. Decided from the log
// alone: a holder whose session ended keeps its claims' lines live until their TTL has run out.
import type { ClaimEvent, ReleaseEvent } from "../records/schemas.js";
import { applyClaimEvent, emptyClaims, type ClaimEntry } from "./fold.js";

/** The entries a fold set, by their end, largest on top; an entry since replaced or released is passed over when it comes up. */
class EndsHeap {
  private readonly nodes: Array<{ until: number; entry: ClaimEntry }> = [];

  push(until: number, entry: ClaimEntry): void {
    const nodes = this.nodes;
    nodes.push({ until, entry });
    for (let at = nodes.length - 1; at > 0; ) {
      const parent = (at - 1) >> 1;
      if (nodes[parent]!.until >= nodes[at]!.until) break;
      [nodes[parent], nodes[at]] = [nodes[at]!, nodes[parent]!];
      at = parent;
    }
  }

  /** The largest end among the entries `current` still holds, or -Infinity when it holds none. */
  max(current: (entry: ClaimEntry) => boolean): number {
    while (this.nodes.length > 0 && !current(this.nodes[0]!.entry)) this.pop();
    return this.nodes[0]?.until ?? -Infinity;
  }

  /** How many entries it kept when it last dropped the replaced ones. */
  private kept = 0;

  /** Drops the entries `current` no longer holds once they pile up (claims renewed or released often). */
  prune(current: (entry: ClaimEntry) => boolean): void {
    if (this.nodes.length <= 2 * this.kept + 1024) return;
    const nodes = this.nodes.splice(0).filter((node) => current(node.entry));
    for (const node of nodes) this.push(node.until, node.entry);
    this.kept = this.nodes.length;
  }

  private pop(): void {
    const nodes = this.nodes;
    const last = nodes.pop()!;
    if (nodes.length === 0) return;
    nodes[0] = last;
    for (let at = 0; ; ) {
      const left = 2 * at + 1;
      const right = left + 1;
      let top = at;
      if (left < nodes.length && nodes[left]!.until > nodes[top]!.until) top = left;
      if (right < nodes.length && nodes[right]!.until > nodes[top]!.until) top = right;
      if (top === at) break;
      [nodes[top], nodes[at]] = [nodes[at]!, nodes[top]!];
      at = top;
    }
  }
}

export class ClaimsCut {
  private readonly state = emptyClaims();
  private readonly ends = new EndsHeap();
  /** Whether every claim and release line so far is dated before the cutoff. */
  private allOld = true;
  /**
   * Lines a cut may be after, with the latest end of the claims standing there: a later claim line dated
   * before that end rules a cut out. Kept with both rising: a cut is dropped for a later one that ends no later.
   */
  private readonly cuts: Array<{ offset: number; until: number }> = [];

  constructor(private readonly cutoff: number) {}

  apply(event: ClaimEvent | ReleaseEvent, offset: number): void {
    const at = Date.parse(event.at);
    if (event.type === "claim") while (this.cuts.length > 0 && this.cuts[this.cuts.length - 1]!.until > at) this.cuts.pop();
    applyClaimEvent(this.state, event);
    if (event.type === "claim") for (const path of event.paths) {
      const entry = this.state.get(event.repo, event.holder, path);
      if (entry?.claimId === event.id) this.ends.push(Date.parse(entry.until), entry);
    }
    const current = (entry: ClaimEntry) => this.state.get(entry.repo, entry.holder, entry.path) === entry;
    this.ends.prune(current);
    this.allOld &&= at < this.cutoff;
    if (!this.allOld) return;
    const until = this.ends.max(current);
    if (until >= this.cutoff) return;
    while (this.cuts.length > 0 && this.cuts[this.cuts.length - 1]!.until >= until) this.cuts.pop();
    this.cuts.push({ offset, until });
  }

  /** The offset of the last claim or release line that moves, or -1 when none does. */
  last(): number {
    return this.cuts[this.cuts.length - 1]?.offset ?? -1;
  }
}

// The runs of the wakes log as a fold: which runs are claimed, running, or ended, and how many a session had.
import type { WakeBound, WakeClaim, WakeEnded, WakeForked, WakeHost, WakeReconciled, WakeRecord, WakeStarted } from "./records.js";

export interface WakeState {
  /** The claim as recorded, with a launch's session and first message filled in once bound. */
  claim: WakeClaim;
  started?: WakeStarted;
  bound?: WakeBound;
  host?: WakeHost;
  ended?: WakeEnded;
  /** A fork's new session, and its answer sent back. */
  forked?: WakeForked;
  reconciled?: WakeReconciled;
}

/** The runs of the wakes log. `Wakes.fold` hands out the one it keeps: callers read it, and only within the call that got it. */
export class WakeFold {
  private readonly byId = new Map<string, WakeState>();

  get runs(): ReadonlyMap<string, Readonly<WakeState>> {
    return this.byId;
  }

  apply(record: WakeRecord): void {
    if (record.type === "wake") {
      if (!this.byId.has(record.id)) this.byId.set(record.id, { claim: record });
      return;
    }
    const run = this.byId.get(record.id);
    if (!run) return;
    // The first outcome in log order wins.
    if (record.type === "wake-started") run.started ??= record;
    else if (record.type === "wake-bound") {
      if (run.bound || run.ended) return;
      run.bound = record;
      run.claim = { ...run.claim, address: record.address, sessionId: record.sessionId, messageIds: record.messageIds };
    } else if (record.type === "wake-host") run.host ??= record;
    else if (record.type === "wake-forked") run.forked ??= record;
    else if (record.type === "wake-reconciled") run.reconciled ??= record;
    else run.ended ??= record;
  }

  /** Claims with no outcome whose deadline has not passed. */
  active(now: number): WakeState[] {
    return [...this.runs.values()].filter((run) => !run.ended && Date.parse(run.claim.deadline) > now);
  }

  /** The active run that holds `address`'s own transcript (a wake or launch; a fork runs on a copy), if any. */
  holding(now: number, address: string): WakeState | undefined {
    return this.active(now).find((run) => run.claim.address === address && run.claim.kind !== "fork");
  }

  /** Claims with no outcome past their deadline: their runner died. */
  abandoned(now: number): WakeState[] {
    return [...this.runs.values()].filter((run) => !run.ended && Date.parse(run.claim.deadline) <= now);
  }

  claimsSince(address: string, since: number): WakeState[] {
    return [...this.runs.values()].filter((run) => run.claim.address === address && Date.parse(run.claim.at) >= since);
  }

  /** Message ids a running or successful run already carries: a new wake does not carry them again. */
  carried(now: number): Set<string> {
    const ids = new Set<string>();
    for (const run of this.runs.values()) {
      const live = !run.ended && Date.parse(run.claim.deadline) > now;
      if (live || run.ended?.outcome === "ok") for (const id of run.claim.messageIds) ids.add(id);
    }
    return ids;
  }

  /** Runs of one address (or carrying one message), newest first. */
  runsFor(filter: RunFilter): WakeState[] {
    return runsOf([this], filter);
  }
}

export interface RunFilter {
  address?: string;
  messageId?: string;
}

/** The runs of `folds` that `filter` keeps, newest first, each once (the first fold's, where two hold it: a compaction's swap may leave a run in both files a moment). */
export function runsOf(folds: readonly WakeFold[], filter: RunFilter): WakeState[] {
  const runs = new Map<string, WakeState>();
  for (const fold of folds)
    for (const run of fold.runs.values())
      if (!runs.has(run.claim.id) && (filter.address === undefined || run.claim.address === filter.address) && (filter.messageId === undefined || run.claim.messageIds.includes(filter.messageId))) runs.set(run.claim.id, run);
  return [...runs.values()].sort((a, b) => (a.claim.id < b.claim.id ? 1 : -1));
}

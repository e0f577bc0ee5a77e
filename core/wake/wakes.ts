// The wakes log and its fold: which runs are claimed, running, or ended, and how many a session had.
import { join } from "node:path";
import { JsonlLog } from "../log/log.js";
import { type FileIdentity, type LogOptions } from "../log/types.js";
import { committedArchiveBytes } from "../store/file/compaction-swap.js";
import { SwapFollower } from "../store/file/log-compaction.js";
import { wakeRecordSchema, type WakeBound, type WakeClaim, type WakeEnded, type WakeForked, type WakeHost, type WakeReconciled, type WakeRecord, type WakeStarted } from "./records.js";

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
  runsFor(filter: { address?: string; messageId?: string }): WakeState[] {
    return [...this.runs.values()]
      .filter((run) => (filter.address === undefined || run.claim.address === filter.address) && (filter.messageId === undefined || run.claim.messageIds.includes(filter.messageId)))
      .sort((a, b) => (a.claim.id < b.claim.id ? 1 : -1));
  }
}

/** How long the kept fold outlives its last use. */
const KEPT_FOLD_IDLE_MS = 60_000;

export class Wakes {
  readonly log: JsonlLog<WakeRecord>;
  /** Runs that ended before the retention (wake-retention.ts); read only for what `history` shows. */
  readonly archive: JsonlLog<WakeRecord>;
  readonly outputDir: string;
  readonly swaps: SwapFollower;
  private folded: { fold: WakeFold; file: string; next: number } | undefined;
  /** Drops the kept fold once no call needed it for a while: an idle server holds none (it grows with the log). */
  private dropIdle: NodeJS.Timeout | undefined;

  constructor(stateDir: string, logOptions: LogOptions) {
    this.log = new JsonlLog(join(stateDir, "wakes.jsonl"), wakeRecordSchema, logOptions);
    this.swaps = new SwapFollower(this.log.path);
    this.archive = new JsonlLog(this.swaps.paths.archive, wakeRecordSchema, logOptions);
    this.outputDir = join(stateDir, "wakes");
  }

  /**
   * The fold up to the end of the log. Kept between calls and brought forward by the lines appended
   * since (a long-lived server's status and wake decisions read only those): every record only adds to
   * the fold, so that equals a fold from the start. A replaced or shortened file is folded anew. Dropped
   * after KEPT_FOLD_IDLE_MS without a call.
   */
  fold(): WakeFold {
    this.keepAWhile();
    const identity = this.currentFile();
    if (!identity) {
      this.folded = undefined;
      return new WakeFold();
    }
    const file = `${identity.dev}:${identity.ino}`;
    if (this.folded?.file !== file || identity.size < this.folded.next) this.folded = { fold: new WakeFold(), file, next: 0 };
    const folded = this.folded;
    folded.next = this.log.scan(folded.next, ({ record }) => folded.fold.apply(record), {}, identity).next;
    return folded.fold;
  }

  /** The archive's committed runs and then the live file's, in one fold: every run `status` ever showed. */
  history(): WakeFold {
    const fold = new WakeFold();
    const committed = committedArchiveBytes(this.swaps.paths);
    if (committed > 0) this.archive.scan(0, ({ record }) => fold.apply(record), { until: committed });
    this.currentFile();
    this.log.scan(0, ({ record }) => fold.apply(record));
    return fold;
  }

  /** The live log's file, once what a compaction that swapped another in (and died, or is finishing) left in the old one is brought over. */
  private currentFile(): FileIdentity | undefined {
    const identity = this.log.identity();
    if (!identity || `${identity.dev}:${identity.ino}` === this.folded?.file) return identity;
    this.swaps.check(`${identity.dev}:${identity.ino}`);
    return this.log.identity();
  }

  /** Starts again the countdown after which the kept fold is dropped. */
  private keepAWhile(): void {
    clearTimeout(this.dropIdle);
    this.dropIdle = setTimeout(() => (this.folded = undefined), KEPT_FOLD_IDLE_MS).unref();
  }

  /** Decides under the log's lock on the fold up to the end of the log, and appends what `decide` returns. */
  async decide(decide: (fold: WakeFold) => WakeRecord[]): Promise<void> {
    await this.log.transact(() => decide(this.fold()));
  }

  async append(record: WakeRecord): Promise<void> {
    await this.log.append([record]);
  }
}

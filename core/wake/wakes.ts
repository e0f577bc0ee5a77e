// The wakes log: this machine's runs, folded from the live file (every run of the last retention), and the
// archived ones that a read shows (archived-runs.ts).
import { join } from "node:path";
import { JsonlLog } from "../log/log.js";
import { type FileIdentity, type LogOptions } from "../log/types.js";
import { SwapFollower } from "../store/file/log-compaction.js";
import { wakeRecordSchema, type WakeRecord } from "./records.js";
import { ArchivedRuns } from "./archived-runs.js";
import { runsOf, WakeFold, type WakeState } from "./wake-fold.js";

/** How long the kept fold outlives its last use. */
const KEPT_FOLD_IDLE_MS = 60_000;

export class Wakes {
  readonly log: JsonlLog<WakeRecord>;
  /** Runs that ended before the retention (wake-retention.ts); read only for what `status` and `wake` show. */
  readonly archive: JsonlLog<WakeRecord>;
  readonly archived: ArchivedRuns;
  readonly outputDir: string;
  readonly swaps: SwapFollower;
  private folded: { fold: WakeFold; file: string; next: number } | undefined;
  /** Drops the kept fold once no call needed it for a while: an idle server holds none (it grows with the log). */
  private dropIdle: NodeJS.Timeout | undefined;

  constructor(stateDir: string, logOptions: LogOptions) {
    this.log = new JsonlLog(join(stateDir, "wakes.jsonl"), wakeRecordSchema, logOptions);
    this.swaps = new SwapFollower(this.log.path);
    this.archive = new JsonlLog(this.swaps.paths.archive, wakeRecordSchema, logOptions);
    this.archived = new ArchivedRuns(this.archive, this.swaps.paths, join(stateDir, "index", "wakes-archive"));
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

  /** The runs that carried a message, archived ones too, newest first (what its `status` shows). */
  runsCarrying(messageId: string): WakeState[] {
    return runsOf([this.fold(), this.archived.carrying(messageId)], { messageId });
  }

  /**
   * Each session's newest run: the live file's, else the archive's (a run stays live while it has no
   * outcome, and an ended one moves only past the retention, so a live run is the newer but for a moment).
   * The live file is folded once and the archive looked at only for sessions without a live run.
   */
  lastRuns(addresses: readonly string[]): Map<string, WakeState> {
    const newest = new Map<string, WakeState>();
    for (const run of runsOf([this.fold()], {})) if (run.claim.address !== undefined && !newest.has(run.claim.address)) newest.set(run.claim.address, run);
    if (this.archived.holdsRuns())
      for (const address of addresses) {
        const run = newest.has(address) ? undefined : this.archived.lastOf(address).runsFor({ address })[0];
        if (run) newest.set(address, run);
      }
    return newest;
  }

  /**
   * Whether `address`'s session was started by a launch: peerpost's server came on its host's command line
   * then, and a resume passes it again. A launch is a session's first run, so the archive's first says.
   */
  launched(address: string): boolean {
    const isLaunch = (run: Readonly<WakeState>) => run.claim.kind === "launch" && run.claim.address === address;
    return [...this.fold().runs.values()].some(isLaunch) || (this.archived.holdsRuns() && [...this.archived.firstOf(address).runs.values()].some(isLaunch));
  }

  /** The `count` newest runs, archived ones too. */
  newest(count: number): WakeState[] {
    return runsOf([this.fold(), this.archived.newest(count)], {}).slice(0, count);
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

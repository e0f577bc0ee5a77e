// A fold of one kind of work event (claims, or tasks) kept up to a log offset: it starts from the
// per-address index's lines of its scope, then reads only the lines after them, passing over unparsed
// every line that does not spell one of its event types. A claim check never folds the whole mailbox.
import type { JsonlLog } from "../log/log.js";
import type { Mailbox } from "../mail/mailbox.js";
import type { MailboxEvent } from "../records/schemas.js";

/** The index lags this much before a reader extends it on its way (as a new mail view does). */
const EXTEND_INDEX_AT_BYTES = 64 * 1024;

export interface WorkFoldSpec<S> {
  scope: string;
  types: readonly MailboxEvent["type"][];
  empty: () => S;
  apply: (state: S, event: MailboxEvent, offset: number) => void;
}

export class WorkFold<S> {
  state: S;
  private offset = 0;
  private file: string | undefined;
  private readonly spells: RegExp;

  constructor(
    private readonly mailbox: Mailbox,
    private readonly spec: WorkFoldSpec<S>,
  ) {
    this.state = spec.empty();
    // JSON.stringify writes `"type":"claim"` literally; a body quoting it has its quotes escaped.
    this.spells = new RegExp(`"type":"(?:${spec.types.join("|")})"`);
  }

  private get log(): JsonlLog<MailboxEvent> {
    return this.mailbox.log;
  }

  private start(): void {
    this.state = this.spec.empty();
    this.offset = 0;
    try {
      this.mailbox.extendIndex(EXTEND_INDEX_AT_BYTES);
    } catch {
      // Derived data: without it the scan reads the whole log, passing over what is not ours.
    }
    const indexed = this.mailbox.index.lookup(this.spec.scope);
    if (!indexed) return;
    this.log.readLinesAt(indexed.offsets, (entry) => {
      if (this.spec.types.includes(entry.record.type)) this.spec.apply(this.state, entry.record, entry.offset);
    });
    this.offset = indexed.covered;
  }

  /** Folds what was appended since the last refresh (from the start when the log's file changed). */
  refresh(): S {
    const identity = this.log.identity();
    const file = identity && `${identity.dev}:${identity.ino}`;
    if (file === undefined) {
      this.state = this.spec.empty();
      this.offset = 0;
      this.file = undefined;
      return this.state;
    }
    if (file !== this.file || identity!.size < this.offset) {
      this.start();
      this.file = file;
    }
    const result = this.log.scan(
      this.offset,
      (entry) => {
        if (this.spec.types.includes(entry.record.type)) this.spec.apply(this.state, entry.record, entry.offset);
      },
      { wanted: (line) => this.spells.test(line.toString("latin1")) },
    );
    this.offset = result.next;
    return this.state;
  }
}

const kept = new WeakMap<Mailbox, Map<string, WorkFold<unknown>>>();

/** This process's fold of one kind of work event over a mailbox, kept between calls and brought to the end of the log. */
export function keptFold<S>(mailbox: Mailbox, spec: WorkFoldSpec<S>): S {
  let byScope = kept.get(mailbox);
  if (!byScope) kept.set(mailbox, (byScope = new Map()));
  let fold = byScope.get(spec.scope) as WorkFold<S> | undefined;
  if (!fold) {
    fold = new WorkFold(mailbox, spec);
    byScope.set(spec.scope, fold as WorkFold<unknown>);
  }
  return fold.refresh();
}

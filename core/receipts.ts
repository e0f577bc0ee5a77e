// Receipts: one record per side-effecting action (send, reply, push attempt), with the origin of the
// sender's identity. Queried with filters and cursor paging (the cursor is a log offset).
import { idFactory } from "./ids.js";
import type { JsonlLog } from "./log.js";
import type { LocalStore, StoreFactory } from "./store/local.js";
import { receiptSchema, type ReceiptKind, type ReceiptRecord } from "./schemas.js";
import { PeerpostError } from "./errors.js";

export type ReceiptInput = Omit<ReceiptRecord, "v" | "type" | "id" | "at">;

export interface ReceiptQuery {
  kind?: ReceiptKind | undefined;
  /** Receipts where this address is the sender or the recipient. */
  address?: string | undefined;
  /** ISO time: only receipts at or after it. */
  since?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface ReceiptPage {
  receipts: ReceiptRecord[];
  /** Pass back as `cursor` for the next page; absent at the end. */
  nextCursor?: string;
}

function parseCursor(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  if (!/^\d{1,15}$/.test(cursor))
    throw new PeerpostError("invalid_arguments", `cursor ${JSON.stringify(cursor)} is not a cursor from a receipts result.`, {
      details: { field: "cursor", value: cursor.slice(0, 100) },
      hint: "Pass nextCursor from the previous page unchanged, or leave cursor out for the first page.",
    });
  return Number(cursor);
}

function receiptScopes(receipt: ReceiptRecord): string[] {
  return [receipt.from, receipt.to].filter((address): address is string => typeof address === "string");
}

export class Receipts {
  readonly store: LocalStore<ReceiptRecord>;

  constructor(open: StoreFactory, private readonly now: () => number) {
    this.store = open("receipts", receiptSchema, (scope) => (receipt) => receiptScopes(receipt).includes(scope));
  }

  get log(): JsonlLog<ReceiptRecord> {
    return this.store.log;
  }

  async record(input: ReceiptInput): Promise<ReceiptRecord> {
    const at = this.now();
    const newId = await idFactory();
    const record: ReceiptRecord = { v: 1, type: "receipt", id: newId(at), at: new Date(at).toISOString(), ...input };
    // Written, not fsynced: the action it records is already durable, and a receipt is not worth a second
    // flush per send. Other processes read it at once; only a crash of the machine before the kernel's own
    // write-back (seconds) can lose it, and never the message it is about.
    await this.store.append([{ record, scopes: receiptScopes(record) }], { durability: "eventual" });
    return record;
  }

  query(query: ReceiptQuery): ReceiptPage {
    const limit = query.limit ?? 50;
    const since = query.since === undefined ? undefined : Date.parse(query.since);
    const receipts: ReceiptRecord[] = [];
    let nextCursor: string | undefined;
    const stop = Symbol("page full");
    try {
      this.log.scan(parseCursor(query.cursor), (entry) => {
        const receipt = entry.record;
        if (query.kind !== undefined && receipt.kind !== query.kind) return;
        if (query.address !== undefined && receipt.from !== query.address && receipt.to !== query.address) return;
        if (since !== undefined && Date.parse(receipt.at) < since) return;
        if (receipts.length === limit) {
          nextCursor = String(entry.offset);
          throw stop;
        }
        receipts.push(receipt);
      });
    } catch (error) {
      if (error !== stop) throw error;
    }
    return nextCursor === undefined ? { receipts } : { receipts, nextCursor };
  }
}

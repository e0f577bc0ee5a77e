import { z } from "zod";
import { defineTool } from "../tool.js";
import { escapeVisible } from "../../security/escape.js";
import { ADDRESS_PATTERN } from "../../common/address.js";
import { RECEIPT_KINDS } from "../../records/schemas.js";

const input = z
  .object({
    kind: z.enum(RECEIPT_KINDS).optional().describe("Only receipts of this kind."),
    address: z.string().regex(ADDRESS_PATTERN, "must be an exact address").optional().describe("Only receipts from or to this address."),
    since: z.iso.datetime({ offset: true }).optional().describe("Only receipts at or after this ISO time."),
    limit: z.number().int().min(1).max(500).optional().describe("Page size (default 50)."),
    cursor: z.string().optional().describe("nextCursor from the previous page (the next older receipts)."),
  })
  .strict();

const receipt = z.object({
  id: z.string(),
  kind: z.enum(RECEIPT_KINDS),
  at: z.string(),
  host: z.string(),
  from: z.string(),
  to: z.string(),
  messageId: z.string(),
  delivery: z.string(),
  via: z.string().optional(),
  warnings: z.array(z.string()),
  tags: z.array(z.string()).optional(),
  origin: z.object({ source: z.string(), detail: z.string().optional(), pid: z.number(), cwd: z.string().optional() }),
});

const output = z.object({ receipts: z.array(receipt), nextCursor: z.string().optional() });

export const receiptsTool = defineTool({
  name: "receipts",
  description: "List receipts of what peerpost did: each send, reply, push attempt, wake and launch, with who, to whom, how it was delivered and where the sender's identity came from. Newest first; paged with cursor.",
  input,
  output,
  annotations: { title: "Delivery receipts", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const page = context.peerpost.receipts.query(args);
    // Receipts of any session may be listed; the working dir each sender recorded is shown escaped.
    // Warnings carry what a host printed (a woken run's stderr), tags a run's working dir: escaped too.
    const receipts = page.receipts.map(({ v: _v, type: _type, ...receipt }) => ({
      ...receipt,
      warnings: receipt.warnings.map((warning) => escapeVisible(warning)),
      ...(receipt.tags ? { tags: receipt.tags.map((tag) => escapeVisible(tag)) } : {}),
      origin: { ...receipt.origin, ...(receipt.origin.detail !== undefined ? { detail: escapeVisible(receipt.origin.detail) } : {}), ...(receipt.origin.cwd !== undefined ? { cwd: escapeVisible(receipt.origin.cwd) } : {}) },
    }));
    return { receipts, ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }) };
  },
});

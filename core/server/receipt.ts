// Receipts for side-effecting tools. The action itself is already committed when its receipt is written,
// so a failed receipt is a warning, never an error: an error would invite a retry that sends twice.
import { toErrorValue } from "../errors.js";
import type { ReceiptInput } from "../receipts.js";
import type { ToolContext } from "./tool.js";

export async function recordReceipt(context: ToolContext, input: ReceiptInput): Promise<void> {
  try {
    await context.peerpost.receipts.record(input);
  } catch (error) {
    context.warn({ code: "receipt_not_recorded", message: `The action succeeded, but its receipt could not be written: ${toErrorValue(error).message}` });
  }
}

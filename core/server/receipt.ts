// Receipts for side-effecting calls. The action itself is already committed when its receipt is written,
// so a failed receipt is a warning, never an error: an error would invite a retry that sends twice.
import { toErrorValue } from "../common/errors.js";
import type { Peerpost } from "../peerpost.js";
import type { ReceiptInput } from "../mail/receipts.js";
import type { Warning } from "./results.js";
import type { ToolContext } from "./tool.js";

/** Writes a receipt; returns the warning to show when it could not be written. */
export async function receiptWarning(peerpost: Peerpost, input: ReceiptInput): Promise<Warning | undefined> {
  try {
    await peerpost.receipts.record(input);
    return undefined;
  } catch (error) {
    return { code: "receipt_not_recorded", message: `The action succeeded, but its receipt could not be written (${toErrorValue(error).message}); do not repeat it.` };
  }
}

export async function recordReceipt(context: ToolContext, input: ReceiptInput): Promise<void> {
  const warning = await receiptWarning(context.peerpost, input);
  if (warning) context.warn(warning);
}

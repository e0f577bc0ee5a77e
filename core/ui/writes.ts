// The only writes the web view makes, as the person's address: send a message, and reply to or
// decline a request addressed to them. They go through the same mailbox and receipt calls as the CLI.
import { z } from "zod";
import { parseAddress } from "../common/address.js";
import { PeerpostError } from "../common/errors.js";
import { ANTICIPATIONS } from "../records/schemas.js";
import type { Peerpost } from "../peerpost.js";
import type { ReceiptInput } from "../mail/receipts.js";
import { recipientWarning, resolveRecipient } from "../sessions/recipients.js";

const sendInput = z.strictObject({
  to: z.string(),
  body: z.string().min(1),
  anticipation: z.enum(ANTICIPATIONS).default("fyi"),
  replyToMessageId: z.string().optional(),
});

const resolveInput = z.strictObject({
  id: z.string(),
  resolution: z.enum(["reply", "decline"]),
  text: z.string().optional(),
});

function parse<T>(schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => ({ field: issue.path.map(String).join(".") || "(body)", problem: issue.message }));
  throw new PeerpostError("invalid_arguments", `Invalid request: ${fields.map((field) => `${field.field}: ${field.problem}`).join("; ")}.`, {
    details: { fields },
    hint: "The page sends these fields itself; reload it if it is older than this server.",
  });
}

export class UiWrites {
  constructor(
    private readonly peerpost: Peerpost,
    /** The person's address, or null when there is none (read-only). */
    private readonly author: string | null,
  ) {}

  private requireAuthor(): string {
    if (this.author !== null) return this.author;
    throw new PeerpostError("permission_denied", "This view is read-only: it has no address to write as.", {
      hint: "Restart it with `peerpost ui --as ADDR` to send and answer as ADDR.",
    });
  }

  private receipt(input: Omit<ReceiptInput, "host" | "delivery" | "warnings" | "origin">, warnings: string[] = []): ReceiptInput {
    return { ...input, host: "ui", delivery: "queued", warnings, origin: { source: "explicit", detail: "peerpost ui", pid: process.pid, cwd: process.cwd() } };
  }

  async send(raw: unknown): Promise<{ messageId: string; to: string; conversationId: string; warnings: string[] }> {
    const from = this.requireAuthor();
    const input = parse(sendInput, raw);
    const recipient = await resolveRecipient(this.peerpost, parseAddress(input.to, "to").text);
    const warnings = [recipientWarning(recipient)?.message].filter((warning) => warning !== undefined);
    const { message } = await this.peerpost.mailbox.send({ from, fromVerified: false, to: recipient.address, via: recipient.via, body: input.body, anticipation: input.anticipation, replyToMessageId: input.replyToMessageId });
    await this.peerpost.receipts.record(this.receipt({ kind: "send", from, to: message.to, messageId: message.id }, warnings));
    return { messageId: message.id, to: message.to, conversationId: message.conversationId, warnings };
  }

  async resolve(raw: unknown): Promise<{ messageId: string; resolution: string; replyId: string | null }> {
    const by = this.requireAuthor();
    const input = parse(resolveInput, raw);
    const { message, reply } = await this.peerpost.mailbox.resolve({ id: input.id, by, byVerified: false, resolution: input.resolution, text: input.text });
    await this.peerpost.receipts.record(this.receipt({ kind: "reply", from: by, to: message.from, messageId: reply?.id ?? message.id }));
    return { messageId: message.id, resolution: input.resolution, replyId: reply?.id ?? null };
  }
}

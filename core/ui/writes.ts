// The only writes the web view makes, as the person's address: send a message, reply to or decline a
// request addressed to them, release a claim (one's own, or as a person another's), and act on the task
// board. They go through the same mailbox, receipt, claims and tasks calls as the CLI.
import { z } from "zod";
import { parseAddress } from "../common/address.js";
import { PeerpostError } from "../common/errors.js";
import { ANTICIPATIONS } from "../records/schemas.js";
import type { Peerpost } from "../peerpost.js";
import type { ReceiptInput } from "../mail/receipts.js";
import { recipientWarning, resolveRecipient } from "../sessions/recipients.js";
import { releasePaths } from "../claims/claims.js";
import { createTask, updateTask } from "../tasks/tasks.js";
import { receiptWarning } from "../server/receipt.js";
import { checkDirectCoordination } from "../roles/enforcement.js";
import type { TaskState } from "../tasks/fold.js";
import { requestWake, sendWarnings } from "../wake/request.js";
import type { WakeDeps } from "../wake/waker.js";

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

const releaseInput = z.strictObject({
  /** The claim's repository and exact pattern, as the claims panel shows them. */
  repo: z.string().min(1),
  path: z.string().min(1),
  /** End another holder's claim (a person only), as `peerpost release --force`. */
  force: z.boolean().default(false),
});

const ids = z.array(z.string()).max(100).optional();

/** The task actions of `peerpost task`: add, claim (take), done, fail and block. */
const taskInput = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("add"), title: z.string(), body: z.string().optional(), assignee: z.string().optional(), after: ids }),
  z.strictObject({ action: z.literal("claim"), id: z.string() }),
  z.strictObject({ action: z.enum(["done", "fail", "block"]), id: z.string(), note: z.string().optional(), after: ids }),
]);

const TASK_STATUS = { claim: "in_progress", done: "done", fail: "failed", block: "blocked" } as const;

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
    /** What wakes a dormant recipient of a request, as `peerpost send` does; none: nothing is woken. */
    private readonly wake?: WakeDeps,
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
    const notice = recipientWarning(recipient);
    const warnings = notice ? [notice.message] : [];
    // Role enforcement, as `peerpost send` applies it: refused under enforce before anything is stored.
    const direct = checkDirectCoordination(this.peerpost, from, input.to, recipient.address);
    if (direct) warnings.push(direct.warning.message);
    const { message } = await this.peerpost.mailbox.send({ from, fromVerified: false, to: recipient.address, via: recipient.via, body: input.body, anticipation: input.anticipation, replyToMessageId: input.replyToMessageId });
    // The message is stored: a receipt that cannot be written is a warning, or the person would send it again.
    const unrecorded = await receiptWarning(this.peerpost, this.receipt({ kind: "send", from, to: message.to, messageId: message.id, ...(direct ? { tags: direct.tags } : {}) }, warnings));
    // A request to a session that is not running may wake it (when the wake switch is on), as `peerpost send` does.
    const decision = message.anticipation !== "fyi" && !recipient.alive && recipient.leftFor === undefined && this.wake ? await requestWake(this.peerpost, message.to, this.wake) : undefined;
    const said = [...sendWarnings(notice, decision, message.to).map((warning) => warning.message), ...(direct ? [direct.warning.message] : []), ...(unrecorded ? [unrecorded.message] : [])];
    return { messageId: message.id, to: message.to, conversationId: message.conversationId, warnings: said };
  }

  async resolve(raw: unknown): Promise<{ messageId: string; resolution: string; replyId: string | null; warnings: string[] }> {
    const by = this.requireAuthor();
    const input = parse(resolveInput, raw);
    const { message, reply } = await this.peerpost.mailbox.resolve({ id: input.id, by, byVerified: false, resolution: input.resolution, text: input.text });
    const unrecorded = await receiptWarning(this.peerpost, this.receipt({ kind: "reply", from: by, to: message.from, messageId: reply?.id ?? message.id }));
    return { messageId: message.id, resolution: input.resolution, replyId: reply?.id ?? null, warnings: unrecorded ? [unrecorded.message] : [] };
  }

  async release(raw: unknown): Promise<{ repo: string; released: Array<{ holder: string; path: string }> }> {
    const by = this.requireAuthor();
    const input = parse(releaseInput, raw);
    // The repository's own directory is where the pattern starts, wherever this server runs.
    const result = await releasePaths(this.peerpost, { by, cwd: input.repo, paths: [input.path], force: input.force });
    return { repo: result.repo, released: result.released.map((entry) => ({ holder: entry.holder, path: entry.path })) };
  }

  async task(raw: unknown): Promise<{ task: TaskState }> {
    const by = this.requireAuthor();
    const input = parse(taskInput, raw);
    if (input.action === "add") {
      const assignee = input.assignee?.trim() ? parseAddress(input.assignee.trim(), "assignee").text : undefined;
      return { task: await createTask(this.peerpost, { by, title: input.title, body: input.body, assignee, after: input.after }) };
    }
    const note = input.action === "claim" ? undefined : input.note?.trim() || undefined;
    const after = input.action === "claim" ? undefined : input.after;
    return { task: await updateTask(this.peerpost, { id: input.id, by, status: TASK_STATUS[input.action], note, after }) };
  }
}

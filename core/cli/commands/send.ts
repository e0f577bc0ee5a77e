// peerpost send: one message from an address to another, as a person or a script.
import { ANTICIPATIONS, type Anticipation } from "../../records/schemas.js";
import { receiptWarning } from "../../server/receipt.js";
import type { Warning } from "../../server/results.js";
import { defineCommand } from "../command.js";
import { printJson, printWarning } from "../output.js";
import { addressFlag, addressOrMine, cliOrigin, openStore } from "../store.js";
import { recipientWarning, resolveRecipient, type Recipient } from "../../sessions/recipients.js";
import { requestWake, sendWarnings } from "../../wake/request.js";
import { wakeDeps } from "../../../plugins/wakers.js";
import { closest } from "../suggest.js";
import { checkDirectCoordination } from "../../roles/enforcement.js";
import { PeerpostError } from "../../common/errors.js";
import { MAX_BODY_BYTES } from "../../records/record-values.js";
import { readStdinUpTo } from "../stdin.js";
import { BODY_TOO_LARGE_HINT } from "../../mail/messages.js";
import type { Peerpost } from "../../peerpost.js";

/**
 * Resolves --to exactly; when nothing matches, also offers the nearest known address as "did you mean"
 * (the registry only suggests ids that share a prefix, and a typo can sit anywhere).
 */
async function withCloseAddress(peerpost: Peerpost, to: string): Promise<Recipient> {
  try {
    return await resolveRecipient(peerpost, to);
  } catch (error) {
    const details = error instanceof PeerpostError && error.code === "not_found" ? error.details : undefined;
    if (Array.isArray(details?.similar) && details.similar.length === 0) {
      const near = closest(to, peerpost.sessions.all().map((session) => session.address));
      if (near !== undefined) details.similar.push(near);
    }
    throw error;
  }
}

/** The message `send -` reads: refused once stdin holds more than a message may, without reading the rest. */
function messageOnStdin(): string {
  const text = readStdinUpTo(MAX_BODY_BYTES);
  if (text !== undefined) return text;
  throw new PeerpostError("body_too_large", `The message on stdin is over the limit of ${MAX_BODY_BYTES} bytes of UTF-8.`, {
    details: { field: "message", limit: MAX_BODY_BYTES },
    hint: BODY_TOO_LARGE_HINT,
  });
}

export const sendCommand = defineCommand({
  name: "send",
  summary: "send a message to a session or a role",
  usage: "[--from ADDR] --to ADDR [--anticipation reply|action|fyi] [--reply-to ID] TEXT",
  details:
    "TEXT is the rest of the command line (or - to read it from stdin). Without --anticipation the message is fyi: nothing is expected back.\n" +
    "A message to a session that is not running waits in its mailbox. Messages sent from the command line are marked unverified.",
  flags: {
    from: { type: "string", value: "ADDR", help: "The sender's address.", default: "user:<PEERPOST_USER, else your login name>", complete: "address" },
    to: { type: "string", value: "ADDR", help: "The recipient's exact address, or role:NAME (required).", complete: "address" },
    anticipation: { type: "string", value: "KIND", help: "What you expect back: reply (an answer), action (do it and report), fyi (nothing).", choices: ANTICIPATIONS, default: "fyi" },
    "reply-to": { type: "string", value: "ID", help: "The message this one answers or follows up: keeps its conversation and hop count." },
    "idempotency-key": { type: "string", value: "KEY", help: "Makes a retry safe: a second send with the same key (from the same sender) returns the first message instead of sending again." },
    "allow-self": { type: "boolean", help: "Allow --to to be the same as --from (refused by default)." },
  },
  args: { min: 1, max: Infinity, name: "the message text (or - to read it from stdin)" },
  examples: [
    "peerpost send --from claude:me --to codex:0199a2f3 'Is the build green?' --anticipation reply",
    "git diff | peerpost send --from claude:me --to role:reviewer --anticipation action -",
    "peerpost send --from claude:me --to codex:0199a2f3 --reply-to 01JF3Q0M9C6R2S3T4V5W6X7Y8Z 'Thanks, merged.'",
  ],
  async run({ flags, args, json, usageError }) {
    if (flags.to === undefined) throw usageError("needs --to ADDR (the recipient)");
    const to = addressFlag(flags.to, "--to");
    const body = args.length === 1 && args[0] === "-" ? messageOnStdin() : args.join(" ");
    if (body.length === 0) throw usageError("the message text is empty");
    const peerpost = await openStore();
    // A person sends as themselves (user:<name>) unless they say otherwise.
    const from = addressOrMine(peerpost, flags.from, "--from");
    const recipient = await withCloseAddress(peerpost, to);
    const notice = recipientWarning(recipient);
    const direct = checkDirectCoordination(peerpost, from, to, recipient.address);
    const { message, created } = await peerpost.mailbox.send({
      from,
      fromVerified: false,
      to: recipient.address,
      via: recipient.via,
      body,
      anticipation: (flags.anticipation ?? "fyi") as Anticipation,
      replyToMessageId: flags["reply-to"],
      idempotencyKey: flags["idempotency-key"],
      allowSelf: flags["allow-self"],
    });
    const warnings: Warning[] = direct ? [direct.warning] : [];
    if (!created) warnings.push({ code: "idempotent_replay", message: `A message with this idempotency key was already sent (${message.id}); it was not sent again.` });
    else {
      const warning = await receiptWarning(peerpost, { kind: "send", host: "cli", from, to: message.to, messageId: message.id, delivery: "queued", warnings: [...(notice ? [notice.message] : []), ...(direct ? [direct.warning.message] : [])], ...(direct ? { tags: direct.tags } : {}), origin: cliOrigin(flags.from === undefined ? "user" : "--from") });
      if (warning) warnings.push(warning);
    }
    // A request to a session that is not running may wake it (when the wake switch is on); the runner is detached.
    const decision = created && message.anticipation !== "fyi" && !recipient.alive && recipient.leftFor === undefined ? await requestWake(peerpost, message.to, wakeDeps()) : undefined;
    warnings.push(...sendWarnings(notice, decision, message.to));
    if (json) {
      printJson({ ok: true, messageId: message.id, from, to: message.to, ...(recipient.via ? { via: recipient.via } : {}), conversationId: message.conversationId, hop: message.hop, created, recipientAlive: recipient.alive, ...(decision ? { wake: decision.outcome } : {}), warnings });
      return 0;
    }
    process.stdout.write(`${created ? "sent" : "already sent"} ${message.id} from ${from} to ${message.to}${recipient.via ? ` (${recipient.via})` : ""}, ${message.anticipation}\n`);
    for (const warning of warnings) printWarning(warning.message);
    process.stdout.write(message.anticipation === "fyi" ? "" : `Follow it: peerpost status ${message.id}\n`);
    return 0;
  },
});

// peerpost reply: resolve a message in an address's inbox: answer it, decline it, or mark it done.
import { receiptWarning } from "../../server/receipt.js";
import { defineCommand } from "../command.js";
import { printJson, printWarning } from "../output.js";
import { addressOrMine, cliOrigin, openStore } from "../store.js";
import { ownAddress } from "../../sessions/people.js";

const RESOLUTIONS = ["reply", "decline", "done"] as const;

export const replyCommand = defineCommand({
  name: "reply",
  summary: "answer, decline or close a message you received",
  usage: "ID [--as ADDR] (--reply TEXT | --decline REASON | --done)",
  details: "Exactly one of --reply, --decline, --done. A reply is sent back to the sender as a new message in the same conversation.",
  flags: {
    as: { type: "string", value: "ADDR", help: "The recipient of the message, on whose behalf you answer (needed unless it was sent to you, user:<name>).", complete: "address" },
    reply: { type: "string", value: "TEXT", help: "Answer with this text." },
    decline: { type: "string", value: "REASON", help: "Refuse, saying why." },
    done: { type: "boolean", help: "Close it: nothing needs saying." },
  },
  args: { min: 1, max: 1, name: "the message id (from `peerpost inbox ADDR`)" },
  examples: ["peerpost reply 01JF3Q0M9C6R2S3T4V5W6X7Y8Z --as codex:0199a2f3 --reply 'Yes, green since 10:40.'", "peerpost reply 01JF3Q0M9C6R2S3T4V5W6X7Y8Z --as codex:0199a2f3 --decline 'Not my repository.'"],
  async run({ flags, args, json, usageError }) {
    const chosen = RESOLUTIONS.filter((name) => flags[name] !== undefined);
    if (chosen.length !== 1) throw usageError("needs exactly one of --reply TEXT, --decline REASON, --done");
    const resolution = chosen[0]!;
    const text = resolution === "reply" ? flags.reply : resolution === "decline" ? flags.decline : undefined;
    const peerpost = await openStore();
    // A message sent to this person is answered as them; any other needs --as, naming whom it was sent to.
    const found = flags.as === undefined ? peerpost.mailbox.find(args[0]!) : undefined;
    const own = ownAddress(peerpost);
    // A request that followed a role away from this person is the resolve's to refuse (wrong_recipient, naming the new holder), not an --as to add.
    if (found !== undefined && found.to !== own && !found.handovers?.some((step) => step.from === own)) throw usageError(`needs --as ADDR (the message was sent to ${found.to})`);
    const by = addressOrMine(peerpost, flags.as, "--as");
    const { message, reply: sent } = await peerpost.mailbox.resolve({ id: args[0]!, by, byVerified: false, resolution, text });
    const warning = await receiptWarning(peerpost, { kind: "reply", host: "cli", from: by, to: message.from, messageId: sent?.id ?? message.id, delivery: "queued", warnings: [], origin: cliOrigin(flags.as === undefined ? "user" : "--as") });
    const warnings = warning ? [warning] : [];
    if (json) {
      printJson({ ok: true, messageId: message.id, resolution, replyId: sent?.id ?? null, status: peerpost.mailbox.status(message), warnings });
      return 0;
    }
    const done = resolution === "reply" ? `replied to ${message.id}; the answer is message ${sent!.id} to ${message.from}` : resolution === "decline" ? `declined ${message.id}` : `marked ${message.id} done`;
    process.stdout.write(`${done}\n`);
    for (const item of warnings) printWarning(item.message);
    return 0;
  },
});

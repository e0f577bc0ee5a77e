// peerpost inbox: the messages sent to an address, written out for a person. It does not mark another
// address's mail read (the session it is for still sees it as new); the person's own, shown, is read.
import { renderEnvelope } from "../../mail/envelope.js";
import { describeMessage } from "../../server/projection.js";
import { defineCommand } from "../command.js";
import { printJson, printWarning } from "../output.js";
import { toErrorValue } from "../../common/errors.js";
import { messageBlock } from "../prose.js";
import { addressOrMine, openStore } from "../store.js";
import { ownAddress } from "../../sessions/people.js";

export const inboxCommand = defineCommand({
  name: "inbox",
  summary: "show the messages sent to an address (yours are then read; another's stay unread)",
  usage: "[ADDR] [--all]",
  details: "Shows unread messages, oldest first: sender, time, what it asks for, status, the text, and the command that answers it. Your own mail (user:<name>) shown is marked read, so the next look shows only what is new; another address's mail stays unread for the session it is for. With --json each message carries the envelope a model would see.",
  flags: { all: { type: "boolean", help: "Include messages already read." } },
  args: { min: 0, max: 1, name: "the address whose inbox to show, e.g. claude:abc (default: yours, user:<name>)", complete: "address" },
  examples: ["peerpost inbox", "peerpost inbox codex:0199a2f3", "peerpost inbox claude:me --all --json"],
  async run({ flags, args, json }) {
    const peerpost = await openStore();
    const address = addressOrMine(peerpost, args[0], "address");
    const entries = peerpost.mailbox.inbox(address, { unreadOnly: !flags.all });
    // The person's own mail is read here (or in the web view) and nowhere else: shown, it is read, so the
    // next look shows only what is new, and answers read leave the live mailbox after the retention.
    // Another address's mail stays unread for the session it is for.
    const own = address === ownAddress(peerpost);
    // Best effort: the mail is shown whatever happens to the mark (a shared store away shows the mirror).
    const markOwn = async (): Promise<{ code: string; message: string } | undefined> => {
      if (!own || entries.length === 0) return undefined;
      try {
        await peerpost.mailbox.markRead(address, entries.map((entry) => entry.message.id));
        return undefined;
      } catch (error) {
        return { code: "read_not_recorded", message: `The messages are shown, but marking them read failed (${toErrorValue(error).message}); they show as unread until shown again.` };
      }
    };
    if (json) {
      const unmarked = await markOwn();
      printJson({ ok: true, address, messages: entries.map((entry) => ({ ...describeMessage(entry.message, entry.status), body: entry.body, envelope: renderEnvelope(entry.message, entry.body, peerpost.mailbox.procedure(entry.message)) })), ...(unmarked ? { warnings: [unmarked] } : {}) });
      return 0;
    }
    if (entries.length === 0) {
      process.stdout.write(flags.all ? `no messages to ${address}\n` : `no unread messages to ${address} (--all shows read ones too)\n`);
      return 0;
    }
    const now = peerpost.config.now();
    process.stdout.write(`${entries.length} ${flags.all ? "" : "unread "}message${entries.length === 1 ? "" : "s"} to ${address}\n\n`);
    for (const entry of entries) process.stdout.write(`${messageBlock(entry.message, entry.body, entry.status, now, address)}\n\n`);
    const unmarked = await markOwn();
    if (unmarked) printWarning(unmarked.message);
    return 0;
  },
});

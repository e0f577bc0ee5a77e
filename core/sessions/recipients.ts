// Who a `to` address reaches, exactly and never by guessing: a person (`user:`), a role's run-time holder
// (or nobody yet: then the mail waits at the role), else what the sessions registry knows.
import { parseAddress } from "../common/address.js";
import { roleState } from "../roles/roles.js";
import type { Peerpost } from "../peerpost.js";
import type { SessionEntry } from "./registry.js";
import { findUnseen, registerDiscovered } from "./unseen.js";
import { personKnown } from "./people.js";

export interface Recipient {
  /** The address the message is stored for: a session, a person, or `role:<name>` while nobody holds it. */
  address: string;
  via?: string;
  entry?: SessionEntry;
  alive: boolean;
  /** A `user:` address no message has been sent to or from yet, and not this machine's own person: likely a typo. */
  unknownPerson?: boolean;
  /** The session the recipient's Claude Code process runs now, having left the recipient (/clear, /resume): nothing reads its mail meanwhile. */
  leftFor?: string;
}

/** A registered session as a recipient: not running when its Claude Code process has left it for another. */
function sessionRecipient(peerpost: Peerpost, address: string, entry: SessionEntry, via?: string): Recipient {
  const left = peerpost.sessions.leftFor(entry);
  return { address, entry, alive: entry.alive && left === undefined, ...(via !== undefined ? { via } : {}), ...(left ? { leftFor: left.address } : {}) };
}

export interface RecipientWarning {
  code: "role_unheld" | "recipient_not_running" | "recipient_other_machine" | "recipient_mailbox_only" | "unknown_person";
  message: string;
}

export async function resolveRecipient(peerpost: Peerpost, to: string): Promise<Recipient> {
  const address = parseAddress(to, "to");
  if (address.kind === "user") return { address: to, alive: false, ...(personKnown(peerpost, to) ? {} : { unknownPerson: true }) };
  if (address.kind === "role") {
    const held = roleState(peerpost).roles[address.id];
    if (held) {
      if (held.holder === undefined) return { address: to, via: to, alive: false };
      const entry = peerpost.sessions.get(held.holder);
      return entry ? sessionRecipient(peerpost, held.holder, entry, to) : { address: held.holder, via: to, alive: false };
    }
  }
  const found = peerpost.sessions.resolveRecipient(to, () => findUnseen(peerpost, to));
  if (found.discovered) await registerDiscovered(peerpost, found.discovered);
  return sessionRecipient(peerpost, found.address, found.entry, found.via);
}

/** What the sender should know about where its message waits. */
export function recipientWarning(recipient: Recipient): RecipientWarning | undefined {
  if (recipient.unknownPerson)
    return { code: "unknown_person", message: `No one has used ${recipient.address} before: check the name (it was sent, and waits for \`peerpost inbox ${recipient.address}\`).` };
  if (recipient.via !== undefined && recipient.address === recipient.via)
    return { code: "role_unheld", message: `Nobody holds ${recipient.via} now; the message waits until someone takes the role (\`peerpost role set\`).` };
  if (!recipient.entry) return undefined;
  // A pid names a process only on its own machine: from here a session of another one is neither running nor not.
  if (!recipient.entry.local)
    return { code: "recipient_other_machine", message: `${recipient.address} runs on machine ${recipient.entry.machine ?? "?"}, whose sessions this machine cannot see running or not; the message waits in its mailbox for it there.` };
  if (recipient.leftFor !== undefined) {
    const held = recipient.via?.startsWith("role:") ? ` Give the role to the session running now: \`peerpost role set ${recipient.via.slice("role:".length)} ${recipient.leftFor}\`.` : ` Send to ${recipient.leftFor} to reach the session running now.`;
    return { code: "recipient_not_running", message: `${recipient.address} is not running now: its Claude Code process left it for ${recipient.leftFor} (/clear or /resume). The message waits in its mailbox until that conversation is resumed.${held}` };
  }
  if (!recipient.alive) return { code: "recipient_not_running", message: `${recipient.address} is not running now; the message waits in its mailbox until it starts again.` };
  if (recipient.entry.push === undefined || recipient.entry.push === "none")
    return { code: "recipient_mailbox_only", message: `${recipient.address} has no live push: it sees the message at its next prompt (its hooks) or when its agent calls read.` };
  return undefined;
}

/**
 * Refuses a setting for a session nobody knows (`not_found`, with the sessions whose id is close): a typo
 * in `wake on`, `push on` or `override-policy` would store a rule that never applies. People and roles
 * pass: a role's policy may come before its first holder.
 */
export function checkSettingTarget(peerpost: Peerpost, target: string): void {
  const kind = parseAddress(target, "target").kind;
  if (kind !== "user" && kind !== "role") peerpost.sessions.resolveRecipient(target, () => findUnseen(peerpost, target));
}

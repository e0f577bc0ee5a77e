// The people peerpost knows: this machine's own person (user:<PEERPOST_USER or login name>), and every
// `user:` address a message was sent to or from. A name outside them is likely a typo.
import type { Peerpost } from "../peerpost.js";
import { join } from "node:path";
import { MailboxView } from "../mail/view.js";
import { snapshotFileName } from "../mail/snapshots.js";
import { isPerson, userAddress } from "./user.js";

export function ownAddress(peerpost: Peerpost): string | undefined {
  try {
    return userAddress(peerpost.config);
  } catch {
    return undefined;
  }
}

/** Whether `address` (a `user:` address) is this person's own or has sent or received a message. */
export function personKnown(peerpost: Peerpost, address: string): boolean {
  if (address === ownAddress(peerpost)) return true;
  // Every view keeps all role mail too: only a message from or to the person counts.
  if (Object.values(peerpost.mailbox.view(address).state.messages).some((message) => message.from === address || message.to === address)) return true;
  // Finished mail that compaction moved to the archive counts as well: the person has been written to or from.
  const quoted = `"${address}"`;
  let archived = false;
  peerpost.mailbox.archivedScope(address, (line) => line.includes(quoted), ({ record }) => {
    if (record.type === "msg" && (record.from === address || record.to === address)) archived = true;
  });
  return archived;
}

/** Every `user:` address in the mailbox (sender or recipient), and this machine's own person when it has mail; sorted. */
export function peopleWithMail(peerpost: Peerpost): string[] {
  const whole = new MailboxView(peerpost.mailbox.log, undefined, join(peerpost.stateDir.path, "cache", snapshotFileName(undefined)));
  whole.refresh();
  const people = new Set<string>();
  for (const message of Object.values(whole.state.messages)) for (const address of [message.from, message.to]) if (isPerson(address)) people.add(address);
  return [...people].sort();
}

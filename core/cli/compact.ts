// `peerpost compact [--json]`: moves finished messages older than PEERPOST_RETENTION_DAYS from the live
// mailbox into its archive now, instead of waiting for a server to do it past PEERPOST_COMPACT_AT_BYTES.
import { openPeerpost } from "../peerpost.js";
import { printJson } from "./output.js";

export async function compact(json: boolean): Promise<void> {
  const peerpost = openPeerpost({});
  const result = await peerpost.mailbox.compact();
  // The index of the replaced log starts over; build it now rather than in the next hook.
  peerpost.mailbox.indexAll();
  if (json) printJson({ ok: true, retentionDays: peerpost.config.retentionDays, archive: peerpost.mailbox.compaction.archive, ...result });
  else
    process.stdout.write(
      result.movedMessages === 0
        ? `nothing to compact: no finished message is older than ${peerpost.config.retentionDays} days\n`
        : `moved ${result.movedMessages} messages (${result.movedLines} lines) to ${peerpost.mailbox.compaction.archive}; live mailbox ${result.liveBytesBefore} → ${result.liveBytesAfter} bytes\n`,
    );
}

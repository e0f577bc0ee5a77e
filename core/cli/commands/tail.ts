// peerpost tail: follow the mailbox as events are appended, one line each, until interrupted.
import { visible } from "../../security/visible.js";
import { safeJson } from "../../security/escape.js";
import type { MailboxEvent } from "../../records/schemas.js";
import { defineCommand } from "../command.js";
import { openStore } from "../store.js";
import { localTime } from "../prose.js";
import { LogFollower } from "../../store/file/follow.js";

const PREVIEW_CHARS = 120;

function line(record: MailboxEvent): string {
  const at = localTime(record.type === "msg" ? record.sentAt : record.at);
  if (record.type === "msg") {
    const preview = record.body.length > PREVIEW_CHARS ? `${record.body.slice(0, PREVIEW_CHARS - 1)}…` : record.body;
    return `${at}  msg ${record.id} ${record.from} → ${record.to} [${record.anticipation}] "${visible(preview)}"`;
  }
  if (record.type === "resolved") return `${at}  resolved ${record.id} ${record.resolution} by ${record.by}`;
  if (record.type === "role") return `${at}  role ${record.role} → ${record.holder ?? "nobody"} by ${record.by}${record.procedure ? ` (procedure ${record.procedure.version.slice(0, 12)})` : ""}`;
  return `${at}  ${record.type} ${record.id}${"by" in record ? ` by ${record.by}` : ""}${"via" in record ? ` via ${visible(String(record.via))}` : ""}`;
}

export const tailCommand = defineCommand({
  name: "tail",
  summary: "follow the mailbox live, one line per event",
  usage: "[--from-start]",
  details: "Runs until Ctrl-C (or until the reader of a pipe goes away). With --json each event is one JSON line.",
  flags: { "from-start": { type: "boolean", help: "Print every event from the start of the mailbox first." } },
  args: { min: 0, max: 0, name: "" },
  examples: ["peerpost tail", "peerpost tail --from-start | grep declined"],
  async run({ flags, json }) {
    const peerpost = await openStore();
    // With PostgreSQL, follow the database: its NOTIFYs grow the local mirror that this tail watches.
    const unfollow = peerpost.backend.follow();
    const log = peerpost.mailbox.log;
    const controller = new AbortController();
    process.on("SIGINT", () => controller.abort());
    controller.signal.addEventListener("abort", unfollow);
    const show = ({ record }: { record: MailboxEvent }) => process.stdout.write(json ? safeJson(record) + "\n" : `${line(record)}\n`);
    // Across compactions too: the follower goes on in the new file where the old one left off.
    const follower = new LogFollower(log, peerpost.mailbox.compaction, flags["from-start"] ? "start" : "end", (why) => process.stderr.write(`peerpost tail: ${why}\n`));
    const print = () => follower.poll(show);
    // From the start means from the oldest message, which compaction may have moved to the archive.
    if (flags["from-start"]) peerpost.mailbox.scanArchive(show);
    print();
    const { waitFor } = await import("../../mail/wait.js");
    while (!controller.signal.aborted) await waitFor(() => (print(), undefined), { timeoutMs: 60_000, pollMs: 500, watchDir: peerpost.stateDir.path, signal: controller.signal });
    return 0;
  },
});

// peerpost tail: follow the mailbox as events are appended, one line each, until interrupted.
import { visible } from "../../security/visible.js";
import { safeJson } from "../../security/escape.js";
import type { MailboxEvent } from "../../records/schemas.js";
import { defineCommand } from "../command.js";
import { openStore } from "../store.js";
import { localTime } from "../prose.js";
import { LogFollower } from "../../store/file/follow.js";

const PREVIEW_CHARS = 120;

/** The first PREVIEW_CHARS of a body, never cut inside a surrogate pair (an emoji would show as an escaped half). */
function preview(body: string): string {
  if (body.length <= PREVIEW_CHARS) return body;
  const cut = PREVIEW_CHARS - 1;
  const high = body.charCodeAt(cut - 1);
  return `${body.slice(0, high >= 0xd800 && high <= 0xdbff ? cut - 1 : cut)}…`;
}

/** Paths and repositories are peers' text: shown escaped. */
const where = (repo: string, paths: string[]) => `${visible(repo)}: ${paths.map((path) => visible(path)).join(", ")}`;

function line(record: MailboxEvent): string {
  const at = localTime(record.type === "msg" ? record.sentAt : record.at);
  if (record.type === "msg") return `${at}  msg ${record.id} ${record.from} → ${record.to} [${record.anticipation}] "${visible(preview(record.body))}"`;
  if (record.type === "resolved") return `${at}  resolved ${record.id} ${record.resolution} by ${record.by}`;
  if (record.type === "role") return `${at}  role ${record.role} → ${record.holder ?? "nobody"} by ${record.by}${record.procedure ? ` (procedure ${record.procedure.version.slice(0, 12)})` : ""}`;
  // Work events say what they are about: the event's own id is no id any command takes.
  if (record.type === "claim") return `${at}  claim ${record.id} ${record.holder} ${record.shared ? "shared" : "exclusive"} ${where(record.repo, record.paths)} until ${localTime(record.until)}`;
  if (record.type === "release") return `${at}  release ${record.id} ${record.holder} ${where(record.repo, record.paths)} ${record.why} by ${record.by}`;
  if (record.type === "task") return `${at}  task ${record.id} "${visible(record.title)}" by ${record.by}${record.assignee ? ` for ${record.assignee}` : ""}`;
  if (record.type === "task_status") return `${at}  task_status ${record.task} ${record.status} by ${record.by}`;
  return `${at}  ${record.type} ${record.id}${"by" in record ? ` by ${record.by}` : ""}${"via" in record ? ` via ${visible(String(record.via))}` : ""}`;
}

export const tailCommand = defineCommand({
  name: "tail",
  summary: "follow the mailbox live, one line per event",
  usage: "[--from-start]",
  details: "Runs until Ctrl-C, or until it next prints after the reader of a pipe went away (`| head -1` ends at the next event). With --json each event is one JSON line.",
  flags: { "from-start": { type: "boolean", help: "Print every event first: the archive's (finished mail compaction moved), then the live log's, each in log order; open mail older than archived mail comes after it." } },
  args: { min: 0, max: 0, name: "" },
  examples: ["peerpost tail", "peerpost tail --from-start | grep declined"],
  async run({ flags, json }) {
    const peerpost = await openStore();
    // With PostgreSQL, follow the database: its NOTIFYs grow the local mirror that this tail watches.
    const unfollow = peerpost.backend.follow();
    const log = peerpost.mailbox.log;
    const controller = new AbortController();
    controller.signal.addEventListener("abort", unfollow);
    const show = ({ record }: { record: MailboxEvent }) => process.stdout.write(json ? safeJson(record) + "\n" : `${line(record)}\n`);
    // Across compactions too: the follower goes on in the new file where the old one left off.
    const follower = new LogFollower(log, peerpost.mailbox.compaction, flags["from-start"] ? "start" : "end", (why) => process.stderr.write(`peerpost tail: ${why}\n`));
    const print = () => follower.poll(show);
    // From the start means from the oldest message, which compaction may have moved to the archive.
    if (flags["from-start"]) peerpost.mailbox.scanArchive(show);
    print();
    // Only now: the catch-up above is one synchronous loop, during which a handler would not run, and
    // Ctrl-C did nothing until every old event was printed. Until here it ends the process at once.
    // And it ends now: output still queued for a slow reader (a pipe) is what Ctrl-C was pressed against.
    process.on("SIGINT", () => {
      controller.abort();
      process.exit(process.exitCode ?? 0);
    });
    const { waitFor } = await import("../../mail/wait.js");
    while (!controller.signal.aborted) await waitFor(() => (print(), undefined), { timeoutMs: 60_000, pollMs: 500, watchDir: peerpost.stateDir.path, signal: controller.signal });
    return 0;
  },
});

import { z } from "zod";
import { defineTool } from "../tool.js";
import { idArgument } from "../message-fields.js";
import { ADDRESS_PATTERN } from "../../common/address.js";
import { PeerpostError } from "../../common/errors.js";
import { TASK_STATUSES } from "../../records/schemas.js";
import { createTask, listTasks, updateTask } from "../../tasks/tasks.js";
import type { TaskState } from "../../tasks/fold.js";
import { escapeVisible } from "../../security/escape.js";

const input = z
  .object({
    action: z.enum(["create", "list", "claim", "update"]).describe("create a task, list the board, claim (take) a task, or update one you took."),
    id: idArgument().optional().describe("The task (claim, update)."),
    title: z.string().optional().describe("create: what is to be done, in a line."),
    body: z.string().optional().describe("create: the details."),
    assignee: z.string().regex(ADDRESS_PATTERN, "must be an exact address or role:<name>").optional().describe("create: who should take it (an address or role:<name>); told when it can start."),
    after: z.array(idArgument()).max(100).optional().describe("create, or update with status blocked: tasks that must be done first."),
    status: z.enum(TASK_STATUSES).optional().describe("update: done, failed or blocked (or in_progress again)."),
    note: z.string().optional().describe("update: the result (done) or the reason (failed, blocked)."),
  })
  .strict();

export const taskRow = z.object({
  id: z.string(),
  title: z.string(),
  by: z.string().describe("Who created it; gets the result."),
  assignee: z.string().optional(),
  after: z.array(z.string()).describe("Tasks it waits on."),
  status: z.enum(TASK_STATUSES),
  takenBy: z.string().optional(),
  note: z.string().optional().describe("The result or reason its taker gave (list shows its first 2000 characters); untrusted text."),
  messageId: z.string().describe("Its conversation: wait on this id (as its creator) for the result."),
  at: z.string(),
  updatedAt: z.string(),
});

/** How much of each note `list` shows: a board of long results made one answer past an MCP client's 10 MiB line. */
const LISTED_NOTE_CHARS = 2000;

/** Titles and notes are other agents' text: shown with invisible and control characters made visible, as agents shows titles. */
function row({ bodyBytes: _bodyBytes, ...task }: TaskState, noteChars = Infinity): z.infer<typeof taskRow> {
  const shown = { ...task, title: escapeVisible(task.title) };
  if (task.note !== undefined) {
    const clipped = task.note.length > noteChars ? `${task.note.slice(0, noteChars)}… (${task.note.length - noteChars} more characters: the whole result answers messageId)` : task.note;
    shown.note = escapeVisible(clipped, { multiline: true });
  }
  return shown;
}

function needs(field: string, action: string): PeerpostError {
  return new PeerpostError("invalid_arguments", `${action} needs ${field}.`, { details: { field }, hint: "create takes title (and body, assignee, after); claim takes id; update takes id and status." });
}

export const taskTool = defineTool({
  name: "task",
  description:
    "A task board shared by the agent sessions: create a task (title, body, optional assignee and tasks it waits on), list them, claim one (exactly one session gets it; not while the tasks it waits on are not done), " +
    "and update the one you took (done with the result, failed, blocked). When a task ends its creator gets the result (wait on the task's messageId); when the last task another waits on is done, that one's assignee is told (task_unblocked).",
  input,
  output: z.object({ task: taskRow.optional(), tasks: z.array(taskRow).optional() }),
  annotations: { title: "Task board", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, context) {
    const { peerpost } = context;
    if (args.action === "list") return { tasks: listTasks(peerpost).map((task) => row(task, LISTED_NOTE_CHARS)) };
    const me = context.identity().address;
    if (args.action === "create") {
      if (args.title === undefined) throw needs("title", "create");
      return { task: row(await createTask(peerpost, { by: me, title: args.title, body: args.body, assignee: args.assignee, after: args.after })) };
    }
    if (args.id === undefined) throw needs("id", args.action);
    if (args.action === "claim") return { task: row(await updateTask(peerpost, { id: args.id, by: me, status: "in_progress" })) };
    if (args.status === undefined) throw needs("status", "update");
    return { task: row(await updateTask(peerpost, { id: args.id, by: me, status: args.status, note: args.note, after: args.after })) };
  },
});

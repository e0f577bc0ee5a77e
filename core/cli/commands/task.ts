// peerpost task add|list|claim|done|fail|block: the task board from the command line, as a person or
// for a session (--as).
import { createTask, listTasks, updateTask } from "../../tasks/tasks.js";
import type { TaskState } from "../../tasks/fold.js";
import { defineCommand } from "../command.js";
import { printJson, table } from "../output.js";
import { addressFlag, addressOrMine, openStore } from "../store.js";
import { visible } from "../../security/visible.js";

const ACTIONS = ["add", "list", "claim", "done", "fail", "block"] as const;

/** One line for a person: the title, which any agent wrote, with what could rewrite the screen made visible. */
function describe(task: TaskState): string {
  return `task ${task.id} ${task.status}${task.takenBy ? ` (taken by ${task.takenBy})` : ""}: ${visible(task.title)}${task.after.length > 0 ? `, after ${task.after.join(", ")}` : ""}`;
}

export const taskCommand = defineCommand({
  name: "task",
  summary: "the task board: add, list, claim, done, fail, block",
  usage: "add TITLE… [--body TEXT] [--assignee ADDR] [--after ID,…] | list | claim ID | done ID [RESULT…] | fail ID [REASON…] | block ID [REASON…] [--after ID,…]",
  details:
    "A task is claimed exactly once, and not while the tasks it waits on are not done. done and fail send the result to the task's creator, as the answer to the task's first message (wait on its messageId); " +
    "when the last task another waits on is done, its assignee (else its creator) gets an fyi task_unblocked.",
  flags: {
    body: { type: "string", value: "TEXT", help: "add: the details.", actions: ["add"] },
    assignee: { type: "string", value: "ADDR", help: "add: who should take it (an address or role:NAME).", complete: "address", actions: ["add"] },
    after: { type: "string", value: "ID,…", help: "add, block: tasks that must be done first (comma-separated ids).", actions: ["add", "block"] },
    as: { type: "string", value: "ADDR", help: "Act for this address instead of yourself.", default: "user:<PEERPOST_USER, else your login name>", complete: "address" },
  },
  args: { min: 1, max: Infinity, name: "an action and its arguments", complete: ACTIONS },
  examples: ["peerpost task add 'Fix the parser' --assignee role:reviewer", "peerpost task claim 01JF3Q0M9C6R2S3T4V5W6X7Y8Z", "peerpost task done 01JF3Q0M9C6R2S3T4V5W6X7Y8Z 'merged in abc123'"],
  async run({ flags, args, json, usageError }) {
    const [action, ...rest] = args as [string, ...string[]];
    if (!(ACTIONS as readonly string[]).includes(action)) throw usageError(`needs one of ${ACTIONS.join(", ")}, not ${JSON.stringify(action)}`);
    const peerpost = await openStore();
    const by = addressOrMine(peerpost, flags.as, "--as");
    const after = flags.after === undefined ? undefined : flags.after.split(",").map((id) => id.trim()).filter(Boolean);
    if (action === "list") {
      const tasks = listTasks(peerpost);
      if (json) printJson({ ok: true, tasks });
      else process.stdout.write(tasks.length === 0 ? "no tasks\n" : table([["ID", "STATUS", "TAKEN BY", "ASSIGNEE", "AFTER", "TITLE"], ...tasks.map((task) => [task.id, task.status, task.takenBy ?? "", task.assignee ?? "", task.after.join(","), task.title])]));
      return 0;
    }
    let task: TaskState;
    if (action === "add") {
      if (rest.length === 0) throw usageError("add needs a title");
      task = await createTask(peerpost, { by, title: rest.join(" "), body: flags.body, assignee: flags.assignee === undefined ? undefined : addressFlag(flags.assignee, "--assignee"), after });
    } else {
      const [id, ...words] = rest;
      if (id === undefined) throw usageError(`${action} needs the task's id`);
      const note = words.length > 0 ? words.join(" ") : undefined;
      const status = action === "claim" ? "in_progress" : action === "done" ? "done" : action === "fail" ? "failed" : "blocked";
      task = await updateTask(peerpost, { id, by, status, note, after });
    }
    if (json) printJson({ ok: true, task });
    else process.stdout.write(`${describe(task)}\n`);
    return 0;
  },
});

// peerpost role set NAME ADDR [--procedure FILE] | role clear NAME: a person gives roles at run time;
// each change is one role event in the mailbox log, and open requests follow the holder.
import { changeRole, holderWarning, type RoleRow } from "../../roles/roles.js";
import { userAddress } from "../../sessions/user.js";
import { defineCommand } from "../command.js";
import { printJson, printWarning } from "../output.js";
import { openStore } from "../store.js";

export function describeRole(row: RoleRow): string {
  return `role:${row.role} ${row.holder ? `held by ${row.holder}` : "held by nobody (its mail waits)"}${row.procedure ? `, procedure ${row.procedure.version.slice(0, 12)}` : ""}`;
}

export const roleCommand = defineCommand({
  name: "role",
  summary: "give a role to a session (its open requests follow), or clear it",
  usage: "set NAME ADDR [--procedure FILE] | clear NAME",
  details: "A role is reached as role:NAME. Setting it moves its open requests to the new holder; clearing it keeps its mail waiting until someone takes the role. The procedure (a text file, default roles/NAME.md in the state dir) is shown to the holder once per version.",
  flags: { procedure: { type: "string", value: "FILE", help: "set: instructions for the holder of the role (UTF-8 text, at most 64 KiB).", complete: "file", actions: ["set"] } },
  args: { min: 2, max: 3, name: "set NAME ADDR, or clear NAME", complete: ["set", "clear"] },
  examples: ["peerpost role set reviewer codex:0199a2f3 --procedure review.md", "peerpost role clear reviewer"],
  async run({ flags, args, json, usageError }) {
    const [action, name, holder] = args as [string, string, string | undefined];
    if (action !== "set" && action !== "clear") throw usageError(`needs set NAME ADDR or clear NAME, not ${JSON.stringify(action)}`);
    if (action === "set" && holder === undefined) throw usageError("set needs the holder's address, e.g. peerpost role set reviewer codex:abc");
    if (action === "clear" && holder !== undefined) throw usageError(`clear takes only the role name, not ${JSON.stringify(holder)}`);
    const peerpost = await openStore();
    const warning = holderWarning(peerpost, action === "set" ? holder : undefined);
    const row = await changeRole(peerpost, { role: name, holder: action === "set" ? holder : undefined, by: userAddress(peerpost.config), procedureFile: flags.procedure });
    if (json) printJson({ ok: true, role: row, warnings: warning ? [warning] : [] });
    else {
      process.stdout.write(`${describeRole(row)}\n`);
      if (warning) printWarning(warning.message);
    }
    return 0;
  },
});

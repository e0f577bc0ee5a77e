// peerpost roles: every role with its holder, since when, its procedure and the requests it has.
import { listRoles } from "../../roles/roles.js";
import { defineCommand } from "../command.js";
import { printJson, table } from "../output.js";
import { openStore } from "../store.js";
import { when } from "../prose.js";

export const rolesCommand = defineCommand({
  name: "roles",
  summary: "list roles: holder, since, procedure, open and waiting requests",
  usage: "",
  flags: {},
  args: { min: 0, max: 0, name: "" },
  examples: ["peerpost roles", "peerpost roles --json"],
  async run({ json }) {
    const peerpost = await openStore();
    const rows = listRoles(peerpost);
    if (json) {
      printJson({ ok: true, roles: rows });
      return 0;
    }
    if (rows.length === 0) process.stdout.write("no roles (set one with `peerpost role set NAME ADDR`)\n");
    else
      process.stdout.write(
        table([
          ["ROLE", "HOLDER", "SINCE", "PROCEDURE", "OPEN", "WAITING"],
          ...rows.map((row) => [`role:${row.role}`, row.holder ?? "(nobody)", row.since ? when(row.since, peerpost.config.now()) : "", row.procedure ? row.procedure.version.slice(0, 12) : row.source === "env" ? "(PEERPOST_ROLES)" : "", String(row.open), String(row.queued)]),
        ]),
      );
    return 0;
  },
});

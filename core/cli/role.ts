// `peerpost role set NAME ADDR [--procedure FILE]`, `peerpost role clear NAME` and `peerpost roles`:
// a person gives roles at run time; each change is one role event in the mailbox log.
import { openPeerpost } from "../peerpost.js";
import { changeRole, listRoles, type RoleRow } from "../roles.js";
import { userAddress } from "../user.js";
import { printJson, table, UsageError } from "./output.js";
import { discoverAll } from "../../plugins/discovery.js";
import type { Flags } from "./commands.js";

function describe(row: RoleRow): string {
  return `role:${row.role} ${row.holder ? `held by ${row.holder}` : "held by nobody (its mail waits)"}${row.procedure ? `, procedure ${row.procedure.version.slice(0, 12)}` : ""}`;
}

export async function role(args: string[], flags: Flags, json: boolean): Promise<void> {
  const [action, name, holder, ...extra] = args;
  if (action !== "set" && action !== "clear") throw new UsageError("role needs set NAME ADDR [--procedure FILE] or clear NAME");
  if (!name) throw new UsageError(`role ${action} needs a role name`);
  if (action === "set" && !holder) throw new UsageError("role set needs the holder's address, e.g. peerpost role set reviewer codex:abc");
  if (extra.length > 0 || (action === "clear" && holder)) throw new UsageError(`role ${action}: unexpected ${JSON.stringify((action === "clear" ? [holder, ...extra] : extra).join(" "))}`);
  const procedureFile = typeof flags.procedure === "string" ? flags.procedure : undefined;
  const peerpost = openPeerpost({ discover: discoverAll });
  const row = await changeRole(peerpost, { role: name, holder: action === "set" ? holder : undefined, by: userAddress(peerpost.config), procedureFile });
  if (json) printJson({ ok: true, role: row });
  else process.stdout.write(`${describe(row)}\n`);
}

export function roles(json: boolean): void {
  const rows = listRoles(openPeerpost({}));
  if (json) {
    printJson({ ok: true, roles: rows });
    return;
  }
  if (rows.length === 0) process.stdout.write("no roles (set one with `peerpost role set NAME ADDR`)\n");
  else
    process.stdout.write(
      table([
        ["ROLE", "HOLDER", "SINCE", "PROCEDURE", "OPEN", "WAITING"],
        ...rows.map((row) => [`role:${row.role}`, row.holder ?? "(nobody)", row.since ?? "", row.procedure ? row.procedure.version.slice(0, 12) : row.source === "env" ? "(PEERPOST_ROLES)" : "", String(row.open), String(row.queued)]),
      ]),
    );
}

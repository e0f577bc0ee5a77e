import { z } from "zod";
import { defineTool } from "../tool.js";
import { listRoles } from "../../roles/roles.js";

const input = z.object({}).strict();

export const roleRow = z.object({
  role: z.string(),
  holder: z.string().nullable().describe("The session (or person) holding the role; null while nobody does: its mail waits."),
  source: z.enum(["runtime", "env"]).describe("runtime: set by the user with `peerpost role set`; env: the holder took it from PEERPOST_ROLES."),
  since: z.string().nullable(),
  by: z.string().nullable(),
  procedure: z.object({ version: z.string(), bytes: z.number(), source: z.string() }).nullable(),
  open: z.number().describe("Open reply/action requests to the role waiting on its holder."),
  queued: z.number().describe("Messages to the role waiting for someone to take it."),
});

export const rolesTool = defineTool({
  name: "roles",
  description:
    "List the roles on this machine (role:<name> addresses): who holds each, since when, its procedure version and its open requests. " +
    "Message a role as role:<name>: requests follow the role when the user gives it to another session. Only the user changes roles.",
  input,
  output: z.object({ roles: z.array(roleRow) }),
  annotations: { title: "List roles", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(_args, context) {
    return { roles: listRoles(context.peerpost) };
  },
});

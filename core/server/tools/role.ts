import { z } from "zod";
import { defineTool } from "../tool.js";
import { changeRole, holderWarning } from "../../roles/roles.js";
import { ADDRESS_PATTERN } from "../../common/address.js";
import { roleRow } from "./roles.js";

const input = z
  .object({
    role: z.string().describe("The role name (letters, digits, '.', '_' and '-')."),
    holder: z.string().regex(ADDRESS_PATTERN, "must be an exact address").optional().describe("The session to give the role to, as the agents tool lists it; leave it out to clear the role."),
  })
  .strict();

/** Only in a server the user started with PEERPOST_ROLE_ADMIN=1: the switch is the user's, never an argument. */
export const roleTool = defineTool({
  name: "role",
  description:
    "Give a role to a session or clear it (leave holder out). The user enabled this for this session by starting peerpost with PEERPOST_ROLE_ADMIN=1. " +
    "Open requests to the role follow the new holder. The procedure comes from roles/<name>.md in peerpost's state dir, if present.",
  input,
  output: z.object({ role: roleRow }),
  annotations: { title: "Set or clear a role", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, context) {
    // Asked first: once the role is given, the person counts as known.
    const warning = holderWarning(context.peerpost, args.holder);
    const role = await changeRole(context.peerpost, { role: args.role, holder: args.holder, by: context.identity().address });
    return { role, ...(warning ? { warnings: [warning] } : {}) };
  },
});

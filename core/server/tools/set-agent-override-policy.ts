import { z } from "zod";
import { defineTool } from "../tool.js";
import { mailOwner } from "../claimed.js";
import { ADDRESS_PATTERN } from "../../common/address.js";
import { setOverridePolicy } from "../../wake/overrides.js";

const senders = z
  .array(z.string().regex(/^(\*|[a-z]+:[A-Za-z0-9][A-Za-z0-9._-]{0,127})$/, "must be *, an address or role:<name>"))
  .max(64)
  .optional();

const input = z
  .object({
    target: z.string().regex(ADDRESS_PATTERN, "must be your own address or role:<name> of a role you hold").describe("Whose policy: your own session's address, or role:<name> of a role you hold."),
    model: senders.describe("Who may change the model by message: addresses, role:<name>, or * for anyone. [] allows nobody; leave out to keep."),
    effort: senders.describe("Who may change the reasoning effort by message (as model)."),
    cwd: senders.describe("Who may change the working dir by message (as model); it must stay inside the session's workspace."),
  })
  .strict();

const output = z.object({ target: z.string(), policy: z.record(z.string(), z.array(z.string())) });

export const setAgentOverridePolicyTool = defineTool({
  name: "set_agent_override_policy",
  description:
    "Decide which senders may change your session's model, reasoning effort or working dir with a message (message's settings argument), for your own address or a role you hold. " +
    "Allowed changes persist for your later headless runs and are reported with their expected cost; others are refused with permission_denied before anything is sent.",
  input,
  output,
  annotations: { title: "Set the override policy", readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    // Not for a claimed identity: another running host serves that session, and its policy is its own.
    const me = mailOwner(context, "set the override policy of");
    const policy = setOverridePolicy(context.peerpost, me.address, args.target, { model: args.model, effort: args.effort, cwd: args.cwd });
    return { target: args.target, policy };
  },
});

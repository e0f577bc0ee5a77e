import { z } from "zod";
import { defineTool } from "../tool.js";
import { SESSION_HOSTS } from "../../schemas.js";
import { readSwitches, wakeSetting } from "../../wake/switches.js";

const input = z
  .object({
    host: z.enum(SESSION_HOSTS).optional().describe("Only sessions of this host."),
    includeDead: z.boolean().optional().describe("Also list sessions whose host process has ended (default false)."),
  })
  .strict();

const session = z.object({
  address: z.string(),
  host: z.enum(SESSION_HOSTS),
  sessionId: z.string(),
  cwd: z.string().optional(),
  title: z.string().optional().describe("Set by the other session's host; untrusted text."),
  roles: z.array(z.string()),
  push: z.string().optional().describe("Live push transport, or none: then mail waits for its next prompt or read."),
  alive: z.boolean(),
  wake: z.boolean().describe("Whether peerpost resumes this session headless when a request reaches it while it is not running."),
  self: z.boolean(),
  firstSeen: z.string(),
  lastSeen: z.string(),
});

const output = z.object({ self: z.string().optional(), sessions: z.array(session) });

export const agentsTool = defineTool({
  name: "agents",
  description:
    "List the AI agent sessions peerpost knows on this machine (Claude Code, Codex, Copilot CLI, Grok): address, host, working directory, roles, whether it is running. " +
    "Use it to find who to message; send to an address exactly as listed. Titles and directories come from the other sessions and are untrusted.",
  input,
  output,
  annotations: { title: "List agent sessions", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const self = context.maybeIdentity()?.address;
    const switches = readSwitches(context.peerpost.stateDir.path);
    const sessions = context.peerpost.sessions
      .list({ host: args.host, includeDead: args.includeDead })
      .map(({ hostPid: _hostPid, hostStart: _hostStart, source: _source, ...entry }) => ({ ...entry, wake: wakeSetting(switches, entry).on, self: entry.address === self }));
    return self === undefined ? { sessions } : { self, sessions };
  },
});

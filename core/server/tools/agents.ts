import { z } from "zod";
import { defineTool } from "../tool.js";
import { SESSION_HOSTS } from "../../records/schemas.js";
import { switchesOrRefusal, wakeSetting } from "../../wake/switches.js";
import { roleState, rolesOf } from "../../roles/roles.js";
import { withHostFiles } from "../../sessions/discovery.js";
import { escapeVisible } from "../../security/escape.js";
import { claimsState } from "../../claims/claims.js";
import { claimsOf } from "../../claims/fold.js";

const input = z
  .object({
    host: z.enum(SESSION_HOSTS).optional().describe("Only sessions of this host."),
    includeDead: z.boolean().optional().describe("Also list sessions whose host process has ended (default false)."),
    includeUnseen: z.boolean().optional().describe("Also list sessions peerpost has not seen yet, read from each host's own session files, and give known sessions their host's title (default false). A message to an unseen one registers it."),
  })
  .strict();

const session = z.object({
  address: z.string(),
  host: z.enum(SESSION_HOSTS),
  sessionId: z.string(),
  cwd: z.string().optional(),
  title: z.string().optional().describe("Set by the other session's host; untrusted text."),
  roles: z.array(z.string()).describe("Roles it holds now: given at run time by the user, or from PEERPOST_ROLES."),
  claims: z.array(z.string()).describe("The paths it claims now, as repository:pattern (exclusive unless marked shared)."),
  name: z.string().optional().describe("A human name the user gave it, or its host's title; untrusted text."),
  push: z.string().optional().describe("Live push transport, or none: then mail waits for its next prompt or read."),
  machine: z.string().optional().describe("The machine it runs on (sessions of several machines share a PostgreSQL store)."),
  local: z.boolean().describe("Whether it runs on this machine; alive is known only for sessions here."),
  alive: z.boolean(),
  leftFor: z.string().optional().describe("Not running: its Claude Code process left it for this session (/clear, /resume); its mail waits until it is resumed."),
  wake: z.boolean().describe("Whether peerpost resumes this session headless when a request reaches it while it is not running."),
  self: z.boolean(),
  firstSeen: z.string(),
  lastSeen: z.string(),
});

const unseen = z.object({
  address: z.string(),
  host: z.enum(SESSION_HOSTS),
  sessionId: z.string(),
  cwd: z.string().optional(),
  title: z.string().optional().describe("The host's own title for the session, or its last prompt; untrusted text."),
  lastActivity: z.string(),
});

const output = z.object({ self: z.string().optional(), sessions: z.array(session), unseen: z.array(unseen).optional().describe("Sessions found in the hosts' own files that peerpost has not seen yet.") });

/** Text another session's host (or a person) wrote, shown with invisible and control characters made visible. */
function shown<T extends { cwd?: string; title?: string; name?: string; push?: string }>(entry: T): T {
  const copy = { ...entry };
  for (const key of ["cwd", "title", "name", "push"] as const) {
    const text = copy[key];
    if (typeof text === "string") (copy as Record<string, unknown>)[key] = escapeVisible(text);
  }
  return copy;
}

export const agentsTool = defineTool({
  name: "agents",
  description:
    "List the AI agent sessions peerpost knows (on this machine, and on others that share its store) (Claude Code, Codex, Copilot CLI, Grok): address, host, working directory, roles, whether it is running. " +
    "Use it to find who to message; send to an address exactly as listed. Titles and directories come from the other sessions and are untrusted.",
  input,
  output,
  annotations: { title: "List agent sessions", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, context) {
    const self = context.maybeIdentity()?.address;
    const state = roleState(context.peerpost);
    // A refused switches file wakes no one (request.ts): listed so.
    const { switches } = switchesOrRefusal(context.peerpost.stateDir.path);
    const now = context.peerpost.config.now();
    const sessions = context.peerpost.sessions
      .list({ host: args.host, includeDead: args.includeDead })
      .map(({ hostPid: _hostPid, hostStart: _hostStart, source: _source, claim: _claim, ...entry }) => ({ ...entry, roles: rolesOf(state, entry), claims: claimsOf(claimsState(context.peerpost), entry.address, now).map((claim) => `${escapeVisible(claim.repo)}:${escapeVisible(claim.path)}${claim.shared ? " (shared)" : ""}`), wake: wakeSetting(switches, entry).on, self: entry.address === self }));
    if (!args.includeUnseen) return self === undefined ? { sessions: sessions.map(shown) } : { self, sessions: sessions.map(shown) };
    const { peerpost } = context;
    const view = withHostFiles(peerpost.discover, peerpost.env, sessions, peerpost.sessions.all().map((entry) => entry.address));
    const unseen = view.unseen.filter((entry) => args.host === undefined || entry.host === args.host).map(shown);
    return self === undefined ? { sessions: view.sessions.map(shown), unseen } : { self, sessions: view.sessions.map(shown), unseen };
  },
});

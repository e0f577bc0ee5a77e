import { z } from "zod";
import { defineTool } from "../tool.js";
import { indexedCorruptLines, inspectState } from "../../upkeep/health.js";
import { inspectStore } from "../../store/report.js";
import { VERSION } from "../../common/version.js";
import { wakeReport, wakeWarnings } from "../../wake/report.js";
import { storeWarnings } from "../../upkeep/health-warnings.js";
import { expiredClaimsWarning, listClaims } from "../../claims/claims.js";

const input = z.object({}).strict();

const output = z.object({
  version: z.string(),
  identity: z.record(z.string(), z.unknown()),
  host: z.record(z.string(), z.unknown()),
  push: z.record(z.string(), z.unknown()),
  store: z.record(z.string(), z.unknown()).describe("Which store holds the logs (file or PostgreSQL, URL masked), whether it answers, its schema version and this machine's id."),
  state: z.record(z.string(), z.unknown()),
  cache: z.record(z.string(), z.unknown()),
  wake: z.record(z.string(), z.unknown()),
  roles: z.object({ enforcement: z.enum(["off", "warn", "enforce"]), source: z.string() }).describe("Role enforcement (PEERPOST_ROLE_ENFORCEMENT) and where its value came from."),
  claims: z.object({ standing: z.number(), expiredUnreleased: z.number() }).describe("Standing claims on files, and claims past their TTL that nobody released (they no longer keep anyone out)."),
});

export const healthTool = defineTool({
  name: "health",
  description: "Report peerpost's health: version, store (file or PostgreSQL) and whether it answers, state dir and permissions, this session's address and where it came from, host adapter, live push state, log sizes, corrupt lines and cache state. Use it when something does not work.",
  input,
  output,
  annotations: { title: "peerpost health", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(_args, context) {
    const { peerpost } = context;
    const identity = context.maybeIdentity();
    const view = identity ? peerpost.mailbox.view(identity.address) : undefined;
    const state = inspectState(peerpost, indexedCorruptLines(peerpost));
    const store = await inspectStore(peerpost.config, peerpost.stateDir.path, peerpost.machine());
    const wake = wakeReport(peerpost, identity?.address);
    const warnings = [...storeWarnings(state, store), ...wakeWarnings(wake)];
    const claims = listClaims(peerpost);
    const expired = expiredClaimsWarning(claims);
    if (expired !== undefined) warnings.push(expired);
    const report = context.identityReport();
    for (const key of ["claim", "refusedClaim"] as const)
      if (typeof report[key] === "string") warnings.push({ code: "identity_claimed", message: `${report[key]} A session moves to another host only when its own host has ended.` });
    if (view?.cacheProblem !== undefined)
      warnings.push({ code: "snapshot_rebuilt", message: `This session's cached view could not be trusted (${view.cacheProblem}); it was rebuilt from the mailbox log, which is unaffected. \`peerpost doctor\` lists invalid snapshots.` });
    return {
      version: VERSION,
      identity: report,
      host: { adapter: context.adapter.host, sessionHost: context.adapter.sessionHost ?? null, ...(context.adapter.describe?.({ env: process.env, meta: undefined, hostProcess: undefined, sessions: peerpost.sessions }) ?? {}) },
      push: context.push ? { ...context.push.state() } : { transport: "none", available: false, reason: "this host has no push transport; mail waits for read and the hooks" },
      store: { ...store },
      state: { ...state },
      wake: { ...wake },
      roles: { enforcement: peerpost.config.roleEnforcement.mode, source: peerpost.config.roleEnforcement.source },
      claims: { standing: claims.claims.length, expiredUnreleased: claims.expired.length },
      cache: view ? { scope: view.scope ?? null, state: view.cacheState, ...(view.cacheProblem !== undefined ? { problem: view.cacheProblem } : {}), offset: view.offset, messages: Object.keys(view.state.messages).length } : { state: "no identity yet" },
      warnings,
    };
  },
});

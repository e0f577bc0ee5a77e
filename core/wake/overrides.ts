// Settings a message may change for its recipient's headless runs (model, effort, working dir), where
// the recipient's override policy allows that sender. Policies and the settings they let through are kept
// in the state dir (overrides.json, 0600), like the wake switches: a policy is keyed by an address or
// role:<name>; each setting names the senders it allows ("*" for anyone, an address, or role:<name> for
// its holder). An allowed change persists: every later wake of the session runs with it.
import { realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { PeerpostError } from "../common/errors.js";
import { parseAddress } from "../common/address.js";
import { readJsonStateFile, updateJsonFile } from "../security/file-lock.js";
import { roleState, rolesOf } from "../roles/roles.js";
import type { Peerpost } from "../peerpost.js";
import type { SessionEntry } from "../sessions/registry.js";
import { checkRunSettings } from "./settings.js";
import type { RunSettings, Waker } from "./waker.js";

export const OVERRIDE_SETTINGS = ["model", "effort", "cwd"] as const;
export type OverrideSetting = (typeof OVERRIDE_SETTINGS)[number];
export type OverridePolicy = Partial<Record<OverrideSetting, string[]>>;

export interface SessionOverrides extends RunSettings {
  cwd?: string | undefined;
  /** The directory a cwd change must stay inside: the session's own, when the first change was made. */
  workspace: string;
  by: string;
  at: string;
}

interface OverridesFile {
  policies: Record<string, OverridePolicy>;
  sessions: Record<string, SessionOverrides>;
}

const overridesPath = (stateDir: string) => join(stateDir, "overrides.json");

/** The overrides as set; none where the file is missing. A damaged file, or a link, a FIFO or another user's file in its place, is refused (file-lock.ts, trust.ts). */
export function readOverrides(stateDir: string): OverridesFile {
  const parsed = readJsonStateFile(overridesPath(stateDir), ["policies", "sessions"]) as Partial<OverridesFile>;
  return { policies: parsed.policies ?? {}, sessions: parsed.sessions ?? {} };
}

/** Changes the overrides as `change` does, read and written under a lock: changes made at once each stay. */
function updateOverrides<R>(stateDir: string, change: (file: OverridesFile) => R): R {
  return updateJsonFile(overridesPath(stateDir), () => readOverrides(stateDir), change);
}

function heldRoles(peerpost: Peerpost, address: string): string[] {
  return rolesOf(roleState(peerpost), { address, roles: peerpost.sessions.get(address)?.roles ?? [] }).map((role) => `role:${role}`);
}

/**
 * Sets the policy of `target` (the caller's own address, or a role it holds; any, for a person). A setting left out keeps
 * its senders; an empty list allows nobody. Returns the policy now in force.
 */
export function setOverridePolicy(peerpost: Peerpost, caller: string, target: string, change: OverridePolicy): OverridePolicy {
  // A person (the command line) sets any session's or role's policy, as people give roles.
  if (!caller.startsWith("user:") && target !== caller && !heldRoles(peerpost, caller).includes(target))
    throw new PeerpostError("permission_denied", `${caller} may set the override policy of its own session or of a role it holds, not of ${target}.`, {
      details: { reason: "not_own_target", target },
      hint: `Use target ${caller}${heldRoles(peerpost, caller).map((role) => ` or ${role}`).join("")}.`,
    });
  for (const setting of OVERRIDE_SETTINGS) checkSenders(change[setting], setting);
  return updateOverrides(peerpost.stateDir.path, (file) => {
    const policy = { ...file.policies[target] };
    for (const setting of OVERRIDE_SETTINGS) if (change[setting] !== undefined) policy[setting] = [...new Set(change[setting])].sort();
    file.policies[target] = policy;
    return policy;
  });
}

/** The most senders one setting names. */
const MAX_SENDERS = 64;

/** Senders are `*` or addresses (role:<name> included), as the command line and the tool both take them. */
function checkSenders(senders: readonly string[] | undefined, setting: string): void {
  if (senders === undefined) return;
  if (senders.length > MAX_SENDERS)
    throw new PeerpostError("invalid_arguments", `${setting}: at most ${MAX_SENDERS} senders; this names ${senders.length}.`, { details: { field: setting, count: senders.length }, hint: "Name a role (role:<name>) for a group of senders, or * for anyone." });
  for (const sender of senders) if (sender !== "*") parseAddress(sender, setting);
}

export interface OverridePlan {
  address: string;
  change: RunSettings & { cwd?: string };
  workspace: string;
  expectedCost: string[];
}

function refused(setting: OverrideSetting, from: string, targets: string[]): PeerpostError {
  return new PeerpostError("permission_denied", `The override policy of ${targets.join(" / ")} does not let ${from} change its ${setting}. Nothing was sent.`, {
    details: { reason: "override_not_allowed", setting, targets },
    hint: "The recipient (or a holder of its role) allows it with set_agent_override_policy; or send without settings.",
  });
}

/** A directory inside `workspace`, by real path (no symlink leads out), or the error that says why not. */
export function insideWorkspace(cwd: string, workspace: string): string {
  let real: string;
  try {
    real = realpathSync(cwd);
    if (!isAbsolute(cwd) || !statSync(real).isDirectory()) throw new Error("not a directory");
  } catch {
    throw new PeerpostError("invalid_arguments", `cwd ${JSON.stringify(cwd)} is not an existing directory (absolute path).`, { details: { fields: [{ field: "settings.cwd", problem: "not an existing absolute directory" }] }, hint: "Give the absolute path of a directory inside the session's workspace." });
  }
  const base = realpathSync(workspace);
  const path = relative(base, real);
  if (path.startsWith("..") || isAbsolute(path))
    throw new PeerpostError("permission_denied", `cwd ${cwd} is outside the session's workspace ${workspace}. Nothing was sent.`, { details: { reason: "cwd_outside_workspace", cwd, workspace }, hint: `Give a directory inside ${workspace}.` });
  return real;
}

/**
 * Checks a message's settings change before anything is stored: the recipient is a session, its policy
 * (by address, the role it was reached through, or a role it holds) allows the sender each setting, its
 * host can change them, and a cwd stays inside its workspace.
 */
export function planOverride(peerpost: Peerpost, waker: Waker | undefined, from: string, recipient: { address: string; via?: string | undefined; entry?: SessionEntry | undefined }, change: RunSettings & { cwd?: string | undefined }): OverridePlan {
  const entry = recipient.entry;
  if (!entry)
    throw new PeerpostError("invalid_arguments", `Settings change a session's runs; ${recipient.address} is not a session.`, { details: { fields: [{ field: "settings", problem: "the recipient is not a session" }] }, hint: "Send settings to a session's address, or to a role someone holds." });
  const file = readOverrides(peerpost.stateDir.path);
  const targets = [...new Set([entry.address, ...(recipient.via ? [recipient.via] : []), ...heldRoles(peerpost, entry.address)])];
  const senders = new Set([from, "*", ...heldRoles(peerpost, from)]);
  for (const setting of OVERRIDE_SETTINGS)
    if (change[setting] !== undefined && !targets.some((target) => (file.policies[target]?.[setting] ?? []).some((allowed) => senders.has(allowed)))) throw refused(setting, from, targets);
  const settings = checkRunSettings(entry.host, waker, { model: change.model, effort: change.effort });
  const previous = file.sessions[entry.address];
  const workspace = previous?.workspace ?? entry.cwd;
  const planned: OverridePlan["change"] = { ...settings };
  if (change.cwd !== undefined) {
    if (!waker?.settings.cwdOnResume) throw new PeerpostError("unsupported", `${entry.host} cannot change a session's working dir: ${waker?.settings.cwdWhy ?? "peerpost cannot run it"}.`, { details: { host: entry.host, setting: "cwd" }, hint: "Leave cwd out, or launch a new session in that directory." });
    if (workspace === undefined) throw new PeerpostError("unsupported", `${entry.address} has no recorded working directory, so no workspace a cwd must stay inside.`, { details: { setting: "cwd" }, hint: "Leave cwd out." });
    planned.cwd = insideWorkspace(change.cwd, workspace);
  }
  return { address: entry.address, change: planned, workspace: workspace ?? "", expectedCost: expectedCost(entry.address, planned, lastRunInput(peerpost, entry.address)) };
}

/** The input tokens of the session's newest headless run that reported usage: about the size of its history then. */
function lastRunInput(peerpost: Peerpost, address: string): number | undefined {
  return peerpost.wakes.fold().runsFor({ address }).find((run) => run.ended?.usage)?.ended?.usage?.input;
}

/** What a change costs, said before the next run pays it; with a number where a past run reported one. */
function expectedCost(address: string, change: OverridePlan["change"], lastInput: number | undefined): string[] {
  const costs: string[] = [];
  const size = lastInput === undefined ? "" : ` (its last headless run read ${lastInput} input tokens; expect at least that many uncached)`;
  if (change.model)
    costs.push(`model ${change.model}: the next run of ${address} reads its whole history again without the prompt cache (a cache is per model)${size}, at ${change.model}'s uncached input price; later turns are billed at ${change.model}'s prices`);
  if (change.effort) costs.push(`effort ${change.effort}: every later turn spends reasoning tokens at that level (higher effort: more output tokens and time per turn); the prompt cache is kept`);
  if (change.cwd) costs.push(`cwd ${change.cwd}: no token cost; later runs work in that directory`);
  return costs;
}

/** Stores an allowed change (after its message was stored): later wakes of the session run with it. */
export function persistOverride(peerpost: Peerpost, plan: OverridePlan, by: string): SessionOverrides {
  return updateOverrides(peerpost.stateDir.path, (file) => {
    const merged: SessionOverrides = { ...file.sessions[plan.address], ...plan.change, workspace: plan.workspace, by, at: new Date(peerpost.config.now()).toISOString() };
    file.sessions[plan.address] = merged;
    return merged;
  });
}

/** The persisted settings a wake of `address` runs with. */
export function sessionOverrides(stateDir: string, address: string): SessionOverrides | undefined {
  return readOverrides(stateDir).sessions[address];
}

// The wake, launch and terminal push switches, kept in the state dir (wake.json, 0600). A rule names all
// sessions, a host, or one address; the most specific rule that is set decides. Turning a wake rule off
// turns off everything it covers (narrower rules that were on are cleared); turning one on keeps the
// narrower rules that say off, as exceptions, and names them.
import { join } from "node:path";
import { readJsonStateFile, updateJsonFile } from "../security/file-lock.js";
import { SESSION_HOSTS, type SessionHost } from "../records/schemas.js";

export interface Switches {
  /** "all", a host name, or an address → on/off. */
  wake: Record<string, boolean>;
  launch: boolean;
  /** Per terminal transport ("tmux", "pty"): "all", a host name, or an address → on/off. */
  push: Record<string, Record<string, boolean>>;
}

/** What each terminal transport does where no rule is set: tmux types only when turned on; `peerpost run` is itself the asking. */
export const PUSH_DEFAULTS: Record<string, boolean> = { tmux: false, pty: true };

/** The switches' file: wake, launch and push rules. */
export function switchFile(stateDir: string): string {
  return join(stateDir, "wake.json");
}

/**
 * The switches as set; none set where the file is missing. A damaged file, or a link, a FIFO or another
 * user's file in its place, is refused with a code (file-lock.ts, trust.ts), never guessed at or waited on.
 */
export function readSwitches(stateDir: string): Switches {
  const parsed = readJsonStateFile(switchFile(stateDir), ["wake", "push"]) as { wake?: Record<string, unknown>; launch?: unknown; push?: Record<string, unknown> };
  const push: Record<string, Record<string, boolean>> = {};
  for (const [transport, rules] of Object.entries(parsed.push ?? {})) if (typeof rules === "object" && rules !== null) push[transport] = booleans(rules as Record<string, unknown>);
  return { wake: booleans(parsed.wake ?? {}), launch: parsed.launch === true, push };
}

/** No switch set: every rule at its default. */
export function noSwitches(): Switches {
  return { wake: {}, launch: false, push: {} };
}

/**
 * The switches for a reader that goes on without them when the file is refused (trust.ts): none set, with
 * the refusal, which the reader reports in its own way.
 */
export function switchesOrRefusal(stateDir: string): { switches: Switches; refusal?: unknown } {
  try {
    return { switches: readSwitches(stateDir) };
  } catch (error) {
    return { switches: noSwitches(), refusal: error };
  }
}

function booleans(rules: Record<string, unknown>): Record<string, boolean> {
  const kept: Record<string, boolean> = {};
  for (const [target, on] of Object.entries(rules)) if (typeof on === "boolean") kept[target] = on;
  return kept;
}

/**
 * Changes the switches as `change` does to them, read and written under a lock: two commands at once
 * (`wake off A`, `wake off B`) each keep their change. Returns what `change` returns.
 */
export function updateSwitches<R>(stateDir: string, change: (switches: Switches) => R): R {
  return updateJsonFile(switchFile(stateDir), () => readSwitches(stateDir), change);
}

/** Whether waking is on for this session, and which rule said so. */
export function wakeSetting(switches: Switches, session: { address: string; host: SessionHost }): { on: boolean; rule: string } {
  return ruleFor(switches.wake, session, false);
}

/** Whether a terminal transport may type into this session, and which rule said so. */
export function pushSetting(switches: Switches, transport: string, session: { address: string; host: SessionHost }): { on: boolean; rule: string } {
  return ruleFor(switches.push[transport] ?? {}, session, PUSH_DEFAULTS[transport] ?? false);
}

function ruleFor(rules: Record<string, boolean>, session: { address: string; host: SessionHost }, fallback: boolean): { on: boolean; rule: string } {
  for (const rule of [session.address, session.host, "all"]) {
    const on = rules[rule];
    if (on !== undefined) return { on, rule };
  }
  return { on: fallback, rule: "default" };
}

/** The rules a target covers besides itself: every other rule under "all"; under a host, the addresses of its sessions. */
function narrowerRules(switches: Switches, target: string, hostOf: (address: string) => SessionHost | undefined): string[] {
  const rules = Object.keys(switches.wake).filter((rule) => rule !== target);
  if (target === "all") return rules;
  if (!SESSION_HOSTS.includes(target as SessionHost)) return [];
  return rules.filter((rule) => !SESSION_HOSTS.includes(rule as SessionHost) && rule !== "all" && hostOf(rule) === target);
}

export interface WakeRuleChange {
  /** Narrower rules that were on and are gone, because the rule that covers them was turned off. */
  cleared: string[];
  /** Narrower rules that still say off under a rule turned on. */
  exceptions: string[];
}

/** Sets one wake rule (target: "all", a host or an address). hostOf names the host of a session's address. */
export function setWakeRule(switches: Switches, target: string, on: boolean, hostOf: (address: string) => SessionHost | undefined): WakeRuleChange {
  const narrower = narrowerRules(switches, target, hostOf);
  const cleared = on ? [] : narrower.filter((rule) => switches.wake[rule] === true);
  for (const rule of cleared) delete switches.wake[rule];
  switches.wake[target] = on;
  return { cleared, exceptions: on ? narrower.filter((rule) => switches.wake[rule] === false) : [] };
}

/** The rules that are on, in words ("codex, claude-code:…"), or undefined when waking is off everywhere. */
export function rulesOn(wake: Switches["wake"]): string | undefined {
  const on = Object.entries(wake).filter(([, value]) => value).map(([rule]) => rule);
  return on.length > 0 ? on.join(", ") : undefined;
}

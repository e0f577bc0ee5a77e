// The wake and launch switches, kept in the state dir (wake.json, 0600). Off by default. A wake rule
// names all sessions, a host, or one address; the most specific rule that is set decides.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeStateFile } from "../security/trust.js";
import { ioError } from "../common/errors.js";
import type { SessionHost } from "../records/schemas.js";

export interface Switches {
  /** "all", a host name, or an address → on/off. */
  wake: Record<string, boolean>;
  launch: boolean;
}

function switchFile(stateDir: string): string {
  return join(stateDir, "wake.json");
}

export function readSwitches(stateDir: string): Switches {
  try {
    const parsed = JSON.parse(readFileSync(switchFile(stateDir), "utf8")) as { v?: number; wake?: Record<string, unknown>; launch?: unknown };
    const wake: Record<string, boolean> = {};
    for (const [target, on] of Object.entries(parsed.wake ?? {})) if (typeof on === "boolean") wake[target] = on;
    return { wake, launch: parsed.launch === true };
  } catch {
    return { wake: {}, launch: false };
  }
}

export function writeSwitches(stateDir: string, switches: Switches): void {
  const path = switchFile(stateDir);
  try {
    writeStateFile(path, JSON.stringify({ v: 1, ...switches }, null, 2) + "\n");
  } catch (error) {
    throw ioError("write", path, error);
  }
}

/** Whether waking is on for this session, and which rule said so. */
export function wakeSetting(switches: Switches, session: { address: string; host: SessionHost }): { on: boolean; rule: string } {
  for (const rule of [session.address, session.host, "all"]) {
    const on = switches.wake[rule];
    if (on !== undefined) return { on, rule };
  }
  return { on: false, rule: "default" };
}

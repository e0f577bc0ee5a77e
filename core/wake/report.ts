// The wake set-up for `health` and `doctor`: switches, settings, runs under way, and this session's setting.
import type { Peerpost } from "../peerpost.js";
import { switchesOrRefusal, wakeSetting } from "./switches.js";
import { readOverrides } from "./overrides.js";
import { toErrorValue, type ErrorValue } from "../common/errors.js";
import type { HealthWarning } from "../upkeep/health-warnings.js";

export interface WakeReport {
  /** Why the switches file was refused (trust.ts, a damaged file): none apply meanwhile. */
  switchesError?: ErrorValue;
  /** Why the settings overrides file was refused: every wake and launch is refused meanwhile. */
  overridesError?: ErrorValue;
  switches: Record<string, boolean>;
  launch: boolean;
  settings: Record<string, unknown>;
  running: Array<{ id: string; kind: string; address: string | undefined; since: string }>;
  self?: { on: boolean; rule: string };
}

/** `read`, `overridesError`: the switches and the overrides' refusal as the caller read them already (doctor), so that one report reads each file once. */
export function wakeReport(peerpost: Peerpost, address?: string, read = switchesOrRefusal(peerpost.stateDir.path), overridesError = overridesRefusal(peerpost.stateDir.path)): WakeReport {
  // A switches file refused is reported, not the whole report lost.
  const { switches, refusal } = read;
  const now = peerpost.config.now();
  const report: WakeReport = {
    ...(refusal !== undefined ? { switchesError: toErrorValue(refusal) } : {}),
    ...(overridesError !== undefined ? { overridesError: toErrorValue(overridesError) } : {}),
    switches: switches.wake,
    launch: switches.launch,
    settings: { ...peerpost.config.wake, staleMs: peerpost.config.staleMs },
    running: peerpost.wakes.fold().active(now).map((run) => ({ id: run.claim.id, kind: run.claim.kind, address: run.claim.address, since: run.claim.at })),
  };
  const entry = address === undefined ? undefined : peerpost.sessions.get(address);
  if (entry) report.self = wakeSetting(switches, entry);
  return report;
}

/** What refused overrides.json (another owner, a link, damaged), or undefined. */
export function overridesRefusal(stateDir: string): unknown {
  try {
    readOverrides(stateDir);
    return undefined;
  } catch (error) {
    return error;
  }
}

/** The health warnings of a refused switches or overrides file: what stops meanwhile, and the fix. */
export function wakeWarnings(report: WakeReport): HealthWarning[] {
  const said = (error: ErrorValue, stops: string) => `${error.message} ${stops} until it is fixed.${error.hint ? ` ${error.hint}` : ""}`;
  return [
    ...(report.switchesError ? [{ code: "wake_switches_refused", message: said(report.switchesError, "No session is woken, launched or typed into") }] : []),
    ...(report.overridesError ? [{ code: "wake_overrides_refused", message: said(report.overridesError, "No session is woken") }] : []),
  ];
}

// The wake set-up for `health` and `doctor`: switches, settings, runs under way, and this session's setting.
import type { Peerpost } from "../peerpost.js";
import { switchesOrRefusal, wakeSetting } from "./switches.js";
import { toErrorValue } from "../common/errors.js";

export function wakeReport(peerpost: Peerpost, address?: string): Record<string, unknown> {
  // A switches file refused (trust.ts) is reported, not the whole report lost: none apply meanwhile.
  const { switches, refusal } = switchesOrRefusal(peerpost.stateDir.path);
  const now = peerpost.config.now();
  const report: Record<string, unknown> = {
    ...(refusal !== undefined ? { switchesError: toErrorValue(refusal) } : {}),
    switches: switches.wake,
    launch: switches.launch,
    settings: { ...peerpost.config.wake, staleMs: peerpost.config.staleMs },
    running: peerpost.wakes.fold().active(now).map((run) => ({ id: run.claim.id, kind: run.claim.kind, address: run.claim.address, since: run.claim.at })),
  };
  const entry = address === undefined ? undefined : peerpost.sessions.get(address);
  if (entry) report.self = wakeSetting(switches, entry);
  return report;
}

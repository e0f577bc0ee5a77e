// `peerpost wake [on|off all|HOST|ADDR]`: the wake switch (off by default) and the runs so far.
import { openPeerpost, type Peerpost } from "../peerpost.js";
import { parseAddress } from "../common/address.js";
import { SESSION_HOSTS, type SessionHost } from "../records/schemas.js";
import { readSwitches, setWakeRule, updateSwitches, wakeSetting, type WakeRuleChange } from "../wake/switches.js";
import { describeRun } from "../wake/describe.js";
import { checkSettingTarget } from "../sessions/recipients.js";
import { printJson, table, UsageError } from "./output.js";

function checkTarget(target: string | undefined): string {
  if (target === undefined) throw new UsageError("wake on|off needs a target: all, a host (claude-code, codex, copilot, grok) or an address", "wake");
  if (target === "all" || SESSION_HOSTS.includes(target as SessionHost)) return target;
  return parseAddress(target, "target").text;
}

export function wakeList(peerpost: Peerpost): { switches: Record<string, boolean>; launch: boolean; sessions: Array<{ address: string; wake: boolean; rule: string }>; runs: Array<Record<string, unknown>> } {
  const switches = readSwitches(peerpost.stateDir.path);
  const now = peerpost.config.now();
  return {
    switches: switches.wake,
    launch: switches.launch,
    sessions: peerpost.sessions.list({ includeDead: true }).map((session) => {
      const setting = wakeSetting(switches, session);
      return { address: session.address, wake: setting.on, rule: setting.rule };
    }),
    runs: peerpost.wakes.newest(20).map((run) => describeRun(run, now)),
  };
}

export function wakeCommand(args: string[], json: boolean): void {
  const peerpost = openPeerpost({});
  const [action, target] = args;
  let change: WakeRuleChange | undefined;
  if (action !== undefined) {
    if (action !== "on" && action !== "off") throw new UsageError("usage: peerpost wake [on|off all|HOST|ADDR]", "wake");
    const hosts = new Map(peerpost.sessions.list({ includeDead: true }).map((session) => [session.address, session.host]));
    const rule = checkTarget(target);
    if (action === "on" && rule.includes(":")) checkSettingTarget(peerpost, rule);
    change = updateSwitches(peerpost.stateDir.path, (switches) => setWakeRule(switches, rule, action === "on", (address) => hosts.get(address)));
  }
  const listed = wakeList(peerpost);
  if (json) return printJson({ ok: true, ...listed, ...change });
  if (change && change.cleared.length > 0) process.stdout.write(`cleared the narrower rules that were on: ${change.cleared.join(", ")}\n`);
  for (const rule of change?.exceptions ?? []) process.stdout.write(`still off by a narrower rule: ${rule} (to wake it too: peerpost wake on ${rule})\n`);
  const rules = Object.entries(listed.switches);
  process.stdout.write(`wake: ${rules.length === 0 ? "off everywhere (the default)" : rules.map(([rule, on]) => `${rule} ${on ? "on" : "off"}`).join(", ")}; launch: ${listed.launch ? "on" : "off"}\n`);
  if (listed.sessions.length > 0) process.stdout.write(table([["ADDRESS", "WAKE", "RULE"], ...listed.sessions.map((session) => [session.address, session.wake ? "on" : "off", session.rule])]));
  if (listed.runs.length > 0) process.stdout.write("recent runs\n" + table([["ID", "KIND", "ADDRESS", "STATE", "DETAIL"], ...listed.runs.map((run) => [String(run.id), String(run.kind), String(run.address ?? "(not named)"), String(run.state), String(run.reason ?? run.report ?? "")])]));
}

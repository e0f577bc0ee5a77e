// `peerpost push [on|off tmux|pty [all|HOST|ADDR]]`: the terminal push switches (tmux off by default,
// the `peerpost run` wrapper on) and what they say for each known session.
import { openPeerpost } from "../peerpost.js";
import { parseAddress } from "../common/address.js";
import { SESSION_HOSTS, type SessionHost } from "../records/schemas.js";
import { PUSH_DEFAULTS, pushSetting, readSwitches, updateSwitches } from "../wake/switches.js";
import { checkSettingTarget } from "../sessions/recipients.js";
import { printJson, table, UsageError } from "./output.js";

export const PUSH_TRANSPORTS = Object.keys(PUSH_DEFAULTS);

function checkTarget(target: string | undefined): string {
  if (target === undefined || target === "all" || SESSION_HOSTS.includes(target as SessionHost)) return target ?? "all";
  return parseAddress(target, "target").text;
}

export function pushCommand(args: string[], json: boolean): void {
  const peerpost = openPeerpost({});
  const [action, transport, target] = args;
  let switches = readSwitches(peerpost.stateDir.path);
  if (action !== undefined) {
    if ((action !== "on" && action !== "off") || transport === undefined || !PUSH_TRANSPORTS.includes(transport)) throw new UsageError(`usage: peerpost push [on|off ${PUSH_TRANSPORTS.join("|")} [all|HOST|ADDR]]`, "push");
    const rule = checkTarget(target);
    if (action === "on" && rule.includes(":")) checkSettingTarget(peerpost, rule);
    switches = updateSwitches(peerpost.stateDir.path, (changed) => {
      (changed.push[transport] ??= {})[rule] = action === "on";
      return changed;
    });
  }
  const sessions = peerpost.sessions.list({ includeDead: false }).map((session) => ({
    address: session.address,
    ...Object.fromEntries(PUSH_TRANSPORTS.map((name) => [name, pushSetting(switches, name, session)])),
  })) as Array<{ address: string } & Record<string, { on: boolean; rule: string }>>;
  if (json) return printJson({ ok: true, switches: switches.push, defaults: PUSH_DEFAULTS, sessions });
  for (const name of PUSH_TRANSPORTS) {
    const rules = Object.entries(switches.push[name] ?? {});
    process.stdout.write(`${name}: ${rules.length === 0 ? `${PUSH_DEFAULTS[name] ? "on" : "off"} everywhere (the default)` : rules.map(([rule, on]) => `${rule} ${on ? "on" : "off"}`).join(", ")}\n`);
  }
  if (sessions.length > 0) process.stdout.write(table([["ADDRESS", ...PUSH_TRANSPORTS.map((name) => name.toUpperCase())], ...sessions.map((session) => [session.address, ...PUSH_TRANSPORTS.map((name) => `${session[name]!.on ? "on" : "off"} (${session[name]!.rule})`)])]));
}

// `peerpost doctor`: the state dir, its logs and locks, recent hook errors, and each host's install,
// with a fix for every problem found.
import { openPeerpost } from "../peerpost.js";
import { inspectState } from "../health.js";
import { inspectStore, storeProblems, type StoreReport } from "../store/report.js";
import { toErrorValue } from "../errors.js";
import { VERSION } from "../version.js";
import { inspectHosts, type HostReport } from "../../plugins/inspect.js";
import { printJson } from "./output.js";
import { wakeReport } from "../wake/report.js";
import { readSwitches, wakeSetting } from "../wake/switches.js";
import type { SessionHost } from "../schemas.js";

export interface Problem {
  problem: string;
  fix: string;
}

export async function doctor(json: boolean): Promise<number> {
  const problems: Problem[] = [];
  let state: ReturnType<typeof inspectState> | undefined;
  let store: StoreReport | undefined;
  try {
    const peerpost = openPeerpost({});
    state = inspectState(peerpost);
    store = await inspectStore(peerpost.config, peerpost.stateDir.path, peerpost.machine());
    problems.push(...storeProblems(store));
  } catch (error) {
    const value = toErrorValue(error);
    problems.push({ problem: `${value.code}: ${value.message}`, fix: value.hint ?? "See the error above." });
  }
  if (state) {
    if (!state.stateDir.private) problems.push({ problem: `state dir ${state.stateDir.path} has mode ${state.stateDir.mode}`, fix: `chmod 700 ${state.stateDir.path}` });
    if (!state.stateDir.writable) problems.push({ problem: `state dir ${state.stateDir.path} is not writable`, fix: "Fix its owner and permissions, or point PEERPOST_HOME elsewhere." });
    for (const [name, log] of Object.entries(state.logs)) {
      if (log.mode !== undefined && log.mode !== "0600") problems.push({ problem: `${log.path} has mode ${log.mode}`, fix: `chmod 600 ${log.path}` });
      if (log.corrupt > 0)
        problems.push({
          problem: `${name}: ${log.corrupt} line(s) are not valid records (first at byte ${log.recentCorrupt[0]?.offset ?? "?"}: ${log.recentCorrupt[0]?.reason ?? ""})`,
          fix: "They are skipped and kept; nothing needs doing unless you edited the file by hand. Inspect them with: tail -c +<offset+1> " + log.path + " | head -1",
        });
      if (log.tornTail) problems.push({ problem: `${name}: the last line is incomplete (a writer stopped mid-line)`, fix: "The next write repairs it automatically." });
      if (log.lock === "stale") problems.push({ problem: `${log.path}.lock is stale (its holder stopped)`, fix: "The next write takes it over; or remove it: rmdir " + log.path + ".lock" });
    }
    for (const line of state.recentErrors) problems.push({ problem: `recent error: ${line}`, fix: "Hooks and servers log failures here instead of breaking the prompt; report it if it repeats." });
  }
  const hosts: HostReport[] = inspectHosts();
  for (const host of hosts) for (const fix of host.fixes) problems.push({ problem: `${host.host}: needs attention`, fix });
  // The wake set-up per host: the switch as a host-wide rule sets it, and whether the CLI a wake runs is there.
  const peerpost = state ? openPeerpost({}) : undefined;
  const switches = peerpost ? readSwitches(peerpost.stateDir.path) : { wake: {}, launch: false };
  const wake = hosts.map((host) => ({ host: host.host, ...wakeSetting(switches, { address: "", host: host.host as SessionHost }) }));
  for (const entry of wake) {
    const host = hosts.find((candidate) => candidate.host === entry.host);
    if (entry.on && host && host.cli === null) problems.push({ problem: `${entry.host}: waking is on, but its CLI is not on PATH, so a wake would fail`, fix: `Install the ${entry.host} CLI, or turn waking off: peerpost wake off ${entry.host}` });
  }
  if (json) {
    printJson({ ok: problems.length === 0, version: VERSION, store: store ?? null, state: state ?? null, hosts, wake: peerpost ? { ...wakeReport(peerpost), hosts: wake } : null, problems });
  } else {
    process.stdout.write(`peerpost ${VERSION}\n`);
    if (store)
      process.stdout.write(
        `store      ${store.kind} ${store.location}: ${store.reachable ? "reachable" : "NOT reachable"}${store.schemaVersion !== null ? `, schema ${store.schemaVersion}` : ""}; machine ${store.machine}\n`,
      );
    if (state) {
      process.stdout.write(`state dir  ${state.stateDir.path} (${state.stateDir.source}, mode ${state.stateDir.mode}${state.stateDir.writable ? "" : ", NOT writable"})\n`);
      for (const [name, log] of Object.entries(state.logs)) process.stdout.write(`  ${name.padEnd(9)} ${log.exists ? `${log.bytes} bytes, mode ${log.mode}, ${log.corrupt} corrupt, lock ${log.lock}` : "not created yet"}\n`);
    }
    process.stdout.write("hosts\n");
    for (const host of hosts)
      process.stdout.write(`  ${host.host.padEnd(11)} cli ${host.cli ?? "not on PATH"}${host.official === false ? " (not the official CLI)" : ""}; plugin ${host.pluginInstalled === null ? "unknown" : host.pluginInstalled ? `installed${host.pluginVersion ? ` ${host.pluginVersion}` : ""}` : "not installed"}; hooks: ${host.hooks}; push: ${host.push}\n`);
    process.stdout.write(`wake       ${wake.map((entry) => `${entry.host} ${entry.on ? "on" : "off"}`).join(", ")}; launch ${switches.launch ? "on" : "off"} (peerpost wake on|off all|HOST|ADDR)\n`);
    process.stdout.write(problems.length === 0 ? "no problems found\n" : `${problems.length} problem(s):\n${problems.map((item) => `  - ${item.problem}\n    fix: ${item.fix}`).join("\n")}\n`);
  }
  return problems.length === 0 ? 0 : 1;
}

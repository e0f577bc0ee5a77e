// peerpost doctor: the state dir, its logs and locks, recent errors, and each host: set up or not. A host
// whose CLI is here but where peerpost is not set up is information (with the command that sets it up),
// not a problem: only problems make doctor exit 1.
import { openPeerpost, type Peerpost } from "../../peerpost.js";
import { INTERRUPTED_AFTER_MS, inspectState } from "../../upkeep/health.js";
import { shellWord } from "../../common/shell-word.js";
import { inspectStore, storeProblems, type StoreReport } from "../../store/report.js";
import { toErrorValue } from "../../common/errors.js";
import { VERSION } from "../../common/version.js";
import { inspectHosts, type HostReport } from "../../../plugins/inspect.js";
import { defineCommand } from "../command.js";
import { printJson } from "../output.js";
import { marketplaceSource, selfCommand } from "../source.js";
import { stateLines, storeLine } from "../health-lines.js";
import { visible } from "../../security/visible.js";
import { overridesRefusal, wakeReport } from "../../wake/report.js";
import { noSwitches, rulesOn, switchesOrRefusal, wakeSetting } from "../../wake/switches.js";
import type { SessionHost } from "../../records/schemas.js";
import { liveLines, liveReport } from "../live-report.js";

interface Problem {
  problem: string;
  fix: string;
}

type State = ReturnType<typeof inspectState>;

/**
 * What the logs hold that readers pass over: lines that are no valid record, and a last line a writer
 * stopped in. Nothing is lost and nothing can be done (the log is append-only; compaction keeps them), so
 * they are notes: a crashed writer's fragment must not make doctor fail for good.
 */
function stateNotes(state: State): string[] {
  const notes: string[] = [];
  for (const [name, log] of Object.entries(state.logs)) {
    if (log.corrupt > 0) {
      // The report keeps the latest few with their offsets: the first of them is the log's first only when it holds them all.
      const all = log.corrupt <= log.recentCorrupt.length;
      const shown = all ? log.recentCorrupt[0] : log.recentCorrupt.at(-1);
      const inspect = shown ? `tail -c +${shown.offset + 1} ${shellWord(log.path)} | head -1` : `less ${shellWord(log.path)}`;
      notes.push(`${name}: ${log.corrupt} line(s) are not valid records (${all ? "first" : "latest"} at byte ${shown?.offset ?? "?"}: ${shown?.reason ?? ""}). Readers skip them and nothing is lost; a writer that stopped mid-line leaves one, a hand edit others. Inspect it with: ${inspect}`);
    }
    if (log.tornTail) notes.push(`${name}: the last line is incomplete (a writer stopped mid-line). The next write closes it off as a line of its own that readers skip; nothing is lost.`);
  }
  return notes;
}

function stateProblems(state: State): Problem[] {
  const problems: Problem[] = [];
  // Fixes are pasted into a shell: every path in them quoted where it needs it (a space in PEERPOST_HOME).
  if (!state.stateDir.private) problems.push({ problem: `state dir ${state.stateDir.path} has mode ${state.stateDir.mode}`, fix: `chmod 700 ${shellWord(state.stateDir.path)}` });
  if (!state.stateDir.writable) problems.push({ problem: `state dir ${state.stateDir.path} is not writable`, fix: "Fix its owner and permissions, or point PEERPOST_HOME elsewhere." });
  for (const log of Object.values(state.logs)) {
    if (log.mode !== undefined && log.mode !== "0600") problems.push({ problem: `${log.path} has mode ${log.mode}`, fix: `chmod 600 ${shellWord(log.path)}` });
    if (log.lock === "stale") problems.push({ problem: `${log.path}.lock is stale (its holder stopped)`, fix: `The next write takes it over; or remove it: rmdir ${shellWord(`${log.path}.lock`)}` });
  }
  if (state.storage.compactionInterrupted)
    problems.push({ problem: "a compaction of the mailbox stopped before it finished (its marker is still there)", fix: "Reads are unaffected. Run `peerpost compact`: it completes or undoes the interrupted one, then compacts." });
  for (const [name, log] of Object.entries(state.storage.compactedLogs))
    if (log.markerAgeMs !== null && log.markerAgeMs > INTERRUPTED_AFTER_MS)
      problems.push({ problem: `a compaction of the ${name} log stopped before it finished (its marker is still there, ${Math.round(log.markerAgeMs / 1000)} s old)`, fix: "Reads are unaffected. Run `peerpost compact`: it completes or undoes the interrupted one, then compacts." });
  if (!state.storage.archive.indexed && !state.storage.compactionInterrupted)
    problems.push({ problem: "the archive's index does not reach its end (an archive from before the index, or a compaction stopped before indexing it), so `status` of an archived message scans the whole archive", fix: "Run `peerpost compact`, or `peerpost status` once: each builds it (the latter in the background)." });
  if (state.storage.index.farBehind)
    problems.push({ problem: `the mailbox index lags ${state.storage.index.lagBytes} bytes behind the log (a log from before the index), so each new session's hooks fold the whole log`, fix: "Start any host session with peerpost (its server builds the index in the background), or run `peerpost compact`." });
  for (const damage of state.storage.indexDamage)
    problems.push({ problem: `index file ${damage.file} ${damage.problem} (found ${damage.at})`, fix: "Nothing to do: readers stopped trusting that index and rebuild it from the log, which holds all mail. If it repeats, look for what else writes in the state dir (a sync tool, a backup restore, a failing disk)." });
  for (const snapshot of state.snapshots.invalid)
    problems.push({ problem: `cached view ${snapshot.path} is invalid (${snapshot.reason})`, fix: `Readers ignore it and rebuild from the mailbox log; remove it to stop the rebuild: rm ${shellWord(snapshot.path)}` });
  const claims = state.work.claims;
  if (claims.status === "invalid")
    problems.push({ problem: `the claims' snapshot ${claims.path} is invalid (${claims.reason})`, fix: `Readers ignore it and fold the claims' lines of the log; remove it to stop that: rm ${shellWord(claims.path)}` });
  for (const line of state.recentErrors) problems.push({ problem: `recent error: ${line}`, fix: "Hooks and servers log failures in logs/errors.log instead of breaking the prompt; report it if it repeats. An error counts here for a day." });
  return problems;
}

function hostLine(host: HostReport): string {
  const name = host.host.padEnd(11);
  if (host.cli === null && !host.pluginInstalled) return `  ${name} not installed (no ${host.host === "claude-code" ? "claude" : host.host} on PATH)`;
  if (!host.pluginInstalled) return `  ${name} not set up${host.cli ? ` (${host.cli})` : ""}${host.setUp ? `\n  ${"".padEnd(11)} to set up: ${host.setUp}` : ""}`;
  return `  ${name} set up: plugin${host.pluginVersion ? ` ${host.pluginVersion}` : ""}; hooks: ${host.hooks}; push: ${host.push}`;
}

/** A failure as a problem doctor lists, with its hint as the fix. */
function problemOf(error: unknown): { problem: string; fix: string } {
  const value = toErrorValue(error, "cli");
  return { problem: `${value.code}: ${value.message}`, fix: value.hint ?? "See the error above." };
}

export const doctorCommand = defineCommand({
  name: "doctor",
  summary: "check the state dir and each host's set-up, with a fix for every problem",
  usage: "",
  details: "Exits 1 only when something is wrong. A host whose CLI is installed but where peerpost is not set up is reported with the command that sets it up; it is not a problem.",
  flags: {},
  args: { min: 0, max: 0, name: "" },
  examples: ["peerpost doctor", "peerpost doctor --json"],
  async run({ json }) {
    const problems: Problem[] = [];
    let state: State | undefined;
    let store: StoreReport | undefined;
    let opened: Peerpost | undefined;
    try {
      opened = openPeerpost({});
      state = inspectState(opened);
      problems.push(...stateProblems(state));
      store = await inspectStore(opened.config, opened.stateDir.path, opened.machine());
      problems.push(...storeProblems(store));
    } catch (error) {
      problems.push(problemOf(error));
    }
    const hosts = inspectHosts(marketplaceSource(), process.env, selfCommand());
    for (const host of hosts) for (const fix of host.fixes) problems.push({ problem: `${host.host}: needs attention`, fix });
    // The wake set-up per host: the switch as a host-wide rule sets it, and whether the CLI a wake runs is there.
    const peerpost = state ? opened : undefined;
    const read = peerpost ? switchesOrRefusal(peerpost.stateDir.path) : { switches: noSwitches() };
    const { switches, refusal } = read;
    if (refusal !== undefined) problems.push(problemOf(refusal));
    const overridesError = peerpost ? overridesRefusal(peerpost.stateDir.path) : undefined;
    if (overridesError !== undefined) problems.push(problemOf(overridesError));
    const wake = hosts.map((host) => ({ host: host.host, ...wakeSetting(switches, { address: "", host: host.host as SessionHost }) }));
    for (const entry of wake) {
      const host = hosts.find((candidate) => candidate.host === entry.host);
      if (entry.on && host && host.cli === null) problems.push({ problem: `${entry.host}: waking is on, but its CLI is not on PATH, so a wake would fail`, fix: `Install the ${entry.host} CLI, or turn waking off: peerpost wake off ${entry.host}` });
    }
    const setUp = hosts.filter((host) => host.pluginInstalled);
    const notes = [...(state ? stateNotes(state) : []), ...hosts.flatMap((host) => host.notes.map((note) => `${host.host}: ${note}`))];
    if (hosts.every((host) => host.cli === null) && setUp.length === 0) notes.push("No host CLI (claude, codex, copilot, grok) is on PATH, so nothing is set up. Install one, then run `peerpost doctor` again for the command that sets peerpost up in it.");
    else if (setUp.length === 0) notes.push("peerpost is not set up in any host yet: run the \"to set up\" command above for the host you use.");
    const live = await liveReport(peerpost, process.env);
    if (json) {
      printJson({ ok: problems.length === 0, version: VERSION, store: store ?? null, state: state ?? null, hosts, wake: peerpost ? { ...wakeReport(peerpost, undefined, read, overridesError), hosts: wake } : null, live, notes, problems });
      return problems.length === 0 ? 0 : 1;
    }
    const out: string[] = [`peerpost ${VERSION}`];
    if (store) out.push(storeLine(store));
    if (state) out.push(...stateLines(state));
    out.push("hosts", ...hosts.map(hostLine));
    out.push(`wake       ${wake.map((entry) => `${entry.host} ${entry.on ? "on" : "off"}`).join(", ")}; rules on: ${rulesOn(switches.wake) ?? "none"}; launch ${switches.launch ? "on" : "off"} (peerpost wake off all turns every rule off)`);
    out.push(...liveLines(live));
    for (const note of notes) out.push(`note: ${note}`);
    out.push(problems.length === 0 ? "no problems found" : `${problems.length} problem(s):\n${problems.map((item) => `  - ${item.problem}\n    fix: ${item.fix}`).join("\n")}`);
    process.stdout.write(visible(`${out.join("\n")}\n`, true));
    return problems.length === 0 ? 0 : 1;
  },
});

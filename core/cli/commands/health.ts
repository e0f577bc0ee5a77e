// peerpost health: what the `health` tool reports, for a person at a terminal (no session of their own):
// version, store, state dir and logs, the wake switches, and warnings. `doctor` adds the hosts and fixes.
import { openPeerpost } from "../../peerpost.js";
import { indexedCorruptLines, inspectState } from "../../upkeep/health.js";
import { inspectStore } from "../../store/report.js";
import { VERSION } from "../../common/version.js";
import { wakeReport, wakeWarnings } from "../../wake/report.js";
import { rulesOn } from "../../wake/switches.js";
import { visible } from "../../security/visible.js";
import { storeWarnings } from "../../upkeep/health-warnings.js";
import { expiredClaimsWarning, listClaims } from "../../claims/claims.js";
import { defineCommand } from "../command.js";
import { printJson } from "../output.js";
import { stateLines, storeLine } from "../health-lines.js";

export const healthCommand = defineCommand({
  name: "health",
  summary: "the health report: version, store, state dir, logs and wake switches",
  usage: "",
  details: "The `health` tool's report for people. Exits 1 when there is a warning; `peerpost doctor` checks the hosts too and gives a fix for each problem.",
  flags: {},
  args: { min: 0, max: 0, name: "" },
  examples: ["peerpost health", "peerpost health --json"],
  async run({ json }) {
    const peerpost = openPeerpost({});
    const state = inspectState(peerpost, indexedCorruptLines(peerpost));
    const store = await inspectStore(peerpost.config, peerpost.stateDir.path, peerpost.machine());
    const wake = wakeReport(peerpost);
    const warnings = [...storeWarnings(state, store), ...wakeWarnings(wake)];
    // The tool's claims count and role enforcement too: this is its report for people.
    const claims = listClaims(peerpost);
    const expired = expiredClaimsWarning(claims);
    if (expired !== undefined) warnings.push(expired);
    const roles = { enforcement: peerpost.config.roleEnforcement.mode, source: peerpost.config.roleEnforcement.source };
    if (json) {
      printJson({ ok: warnings.length === 0, version: VERSION, store: { ...store }, state: { ...state }, wake, roles, claims: { standing: claims.claims.length, expiredUnreleased: claims.expired.length }, warnings });
      return warnings.length === 0 ? 0 : 1;
    }
    const wakeLine = wake.switchesError ? "off: its switches cannot be read (see the warning)" : `rules on: ${rulesOn(wake.switches) ?? "none (off everywhere)"}; launch ${wake.launch ? "on" : "off"}`;
    const out = [`peerpost ${VERSION}`, storeLine(store), ...stateLines(state), `wake       ${wakeLine}`, `roles      enforcement ${roles.enforcement} (${roles.source})`];
    out.push(warnings.length === 0 ? "no warnings" : `${warnings.length} warning(s):\n${warnings.map((warning) => `  - ${warning.code}: ${warning.message}`).join("\n")}`);
    process.stdout.write(visible(`${out.join("\n")}\n`, true));
    return warnings.length === 0 ? 0 : 1;
  },
});

// What `peerpost doctor` says about live delivery: each running session's transport (as its server last
// reported it), and per host whether `peerpost allow` is set.
import type { Peerpost } from "../peerpost.js";
import { ALLOW_HOSTS, allowTarget } from "../../plugins/allow.js";
import { allowIsSet } from "../../plugins/shared/allow-file.js";

export interface LiveReport {
  sessions: Array<{ address: string; push: string }>;
  allow: Array<{ host: string; allow: "set" | "not set" | "unsupported"; file?: string }>;
}

export async function liveReport(peerpost: Peerpost | undefined, env: NodeJS.ProcessEnv): Promise<LiveReport> {
  // The tool list is the MCP server's: loaded here, so no other command loads the server.
  const { TOOLS } = await import("../server/server.js");
  const sessions = (peerpost?.sessions.list({}) ?? []).filter((entry) => entry.alive).map((entry) => ({ address: entry.address, push: entry.push ?? "not reported" }));
  const allow = ALLOW_HOSTS.map((host) => {
    const target = allowTarget(host, env, TOOLS.map((tool) => tool.name));
    if ("unsupported" in target) return { host, allow: "unsupported" as const };
    return { host, allow: allowIsSet(target.edit) ? ("set" as const) : ("not set" as const), file: target.edit.file };
  });
  return { sessions, allow };
}

export function liveLines(report: LiveReport): string[] {
  const running = report.sessions.length === 0 ? "no running session" : report.sessions.map((entry) => `${entry.address} ${entry.push}`).join(", ");
  return [`live       ${running}`, `allow      ${report.allow.map((entry) => `${entry.host} ${entry.allow}`).join(", ")} (peerpost allow [--undo] HOST)`];
}

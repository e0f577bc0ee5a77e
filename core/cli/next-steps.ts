// What a person does next when there is nothing to show yet: set peerpost up in a host whose CLI is on
// PATH (the exact command), or, with none, install one; `peerpost doctor` checks the result.
import { inspectHosts } from "../../plugins/inspect.js";
import { marketplaceSource, selfCommand } from "./source.js";

export interface HostSteps {
  /** The set-up commands for the hosts found on PATH where peerpost is not set up yet. */
  setUp: Array<{ host: string; command: string }>;
  /** The hosts whose CLI is on PATH with peerpost set up: a session started there shows up. */
  ready: string[];
  /** The hosts whose CLI is on PATH where peerpost's set-up needs a fix first (`peerpost doctor` names it). */
  attention: string[];
}

/** `self`: how a shell runs this peerpost (selfCommand), which the set-up commands call. */
export function hostSteps(self = selfCommand()): HostSteps {
  const hosts = inspectHosts(marketplaceSource(), process.env, self);
  return {
    setUp: hosts.flatMap((host) => (host.setUp ? [{ host: host.host, command: host.setUp }] : [])),
    // A set-up with a fix pending (a disabled plugin, untrusted hooks) shows no session yet: not ready.
    ready: hosts.filter((host) => host.cli !== null && host.pluginInstalled === true && host.fixes.length === 0).map((host) => host.host),
    attention: hosts.filter((host) => host.cli !== null && host.fixes.length > 0).map((host) => host.host),
  };
}

/** A few lines of prose, each ending in a newline. */
export function nextSteps(): string {
  const self = selfCommand();
  const { setUp: commands, ready, attention } = hostSteps(self);
  if (commands.length > 0)
    return `Set peerpost up in your agents, then start a session there:\n${commands.map((entry) => `  ${entry.host}: ${entry.command}\n`).join("")}Check the result with: ${self} doctor\n`;
  if (attention.length > 0) return `peerpost needs a fix in ${attention.join(", ")} before a session there shows here: \`peerpost doctor\` prints it.\n`;
  // Every host CLI on PATH already has peerpost: what is missing is a session, not an install.
  if (ready.length > 0) return `peerpost is set up in ${ready.join(", ")}: start a session there and it shows here. \`peerpost doctor\` shows each host's set-up.\n`;
  return "No host CLI (claude, codex, copilot, grok) is on PATH: install one, then `peerpost doctor` prints the command that sets peerpost up in it.\n";
}

// What a person does next when there is nothing to show yet: set peerpost up in a host whose CLI is on
// PATH (the exact command), or, with none, install one; `peerpost doctor` checks the result.
import { inspectHosts } from "../../plugins/inspect.js";
import { marketplaceSource } from "./source.js";

/** The set-up commands for the hosts found on PATH where peerpost is not set up yet. */
export function setUpCommands(): Array<{ host: string; command: string }> {
  return inspectHosts(marketplaceSource()).flatMap((host) => (host.setUp ? [{ host: host.host, command: host.setUp }] : []));
}

/** A few lines of prose, each ending in a newline. */
export function nextSteps(): string {
  const commands = setUpCommands();
  if (commands.length > 0)
    return `Set peerpost up in your agents, then start a session there:\n${commands.map((entry) => `  ${entry.host}: ${entry.command}\n`).join("")}Check the result with: peerpost doctor\n`;
  return "No host CLI without peerpost (claude, codex, copilot, grok) is on PATH: install one, or start a session in a host that has peerpost. `peerpost doctor` shows each host's set-up.\n";
}

// peerpost serve: the MCP server on stdio, what a host starts (and what `npm start` runs).
import type { HostName } from "../../common/config.js";
import { defineCommand } from "../command.js";

const HOSTS = ["claude-code", "codex", "copilot", "grok", "generic"] as const satisfies readonly HostName[];

export const serveCommand = defineCommand({
  name: "serve",
  summary: "run the MCP server on stdio (hosts start it; you rarely do)",
  usage: "[--host claude-code|codex|copilot|grok|generic]",
  details: "It speaks JSON-RPC on stdin/stdout to an MCP client and runs until stdin closes. The host plugins start it themselves; by hand, set PEERPOST_ADDRESS to give it a session address.",
  flags: { host: { type: "string", value: "HOST", help: "Which host's identity and push rules to follow.", choices: HOSTS, default: "PEERPOST_HOST, else generic" } },
  args: { min: 0, max: 0, name: "" },
  examples: ["PEERPOST_ADDRESS=claude:test peerpost serve", "peerpost serve --host codex"],
  json: false,
  async run({ flags, usageError }) {
    const host = (flags.host ?? process.env.PEERPOST_HOST ?? "generic") as HostName;
    if (!HOSTS.includes(host)) throw usageError(`PEERPOST_HOST must be one of ${HOSTS.join(", ")}, not ${JSON.stringify(host)}`);
    // Loaded here, so the other commands never load the MCP server and the host adapters.
    const [{ serveStdio }, { ADAPTERS }, { discoverAll }, { wakeDeps }] = await Promise.all([
      import("../../server/server.js"),
      import("../../../plugins/hosts.js"),
      import("../../../plugins/discovery.js"),
      import("../../../plugins/wakers.js"),
    ]);
    // A host named here is taken as said; only the plugin bundles detect their host from the environment.
    await serveStdio(ADAPTERS[host], process.env, { discover: discoverAll, wake: wakeDeps() });
    return undefined;
  },
});

// peerpost allow [--undo] <host>: peerpost's own tools on the host's allow list, the host's own way, so a
// pushed or woken turn does not stop at an approval prompt. Only when the person runs it; never wider.
import { openPeerpost } from "../../peerpost.js";
import { PeerpostError } from "../../common/errors.js";
import { ALLOW_HOSTS, allowTarget } from "../../../plugins/allow.js";
import { allow, disallow } from "../../../plugins/shared/allow-file.js";
import { defineCommand } from "../command.js";
import { printJson } from "../output.js";

const SAID = {
  added: "added",
  already: "already set; nothing changed",
  restored: "removed (the file is as it was before)",
  removed: "removed peerpost's entries (the file was edited since, so only those went)",
  absent: "was not set; nothing changed",
} as const;

export const allowCommand = defineCommand({
  name: "allow",
  summary: "let a host run peerpost's own tools without asking (so a pushed turn never stalls); --undo takes it back",
  usage: "[--undo] claude-code|codex|copilot|grok",
  details: "Adds exactly peerpost's tools to the host's own allow list (Claude Code: permissions.allow in settings.json; Codex: approval_mode per tool in config.toml; Grok: [permission] allow in config.toml; Copilot CLI has no such list). It runs only when you ask, and --undo restores the file.",
  flags: { undo: { type: "boolean", help: "Remove what `peerpost allow` added." } },
  args: { min: 1, max: 1, name: "the host", complete: ALLOW_HOSTS },
  examples: ["peerpost allow claude-code", "peerpost allow --undo codex"],
  async run({ args, flags, json, usageError }) {
    const host = args[0]!;
    if (!(ALLOW_HOSTS as readonly string[]).includes(host)) throw usageError(`unknown host ${JSON.stringify(host)}; one of ${ALLOW_HOSTS.join(", ")}`);
    // The tool list is the MCP server's: loaded here, so no other command loads the server.
    const { TOOLS } = await import("../../server/server.js");
    const target = allowTarget(host, process.env, TOOLS.map((tool) => tool.name));
    if ("unsupported" in target) throw new PeerpostError("unsupported", `peerpost cannot allow its tools in ${host}'s configuration.`, { hint: target.unsupported });
    const { edit } = target;
    const stateDir = openPeerpost({}).stateDir.path;
    let outcome;
    try {
      outcome = flags.undo ? disallow(edit, stateDir) : allow(edit, stateDir);
    } catch (error) {
      // A refused state file (allow.json) says so itself: the host's file is not the problem.
      if (error instanceof PeerpostError) throw error;
      throw new PeerpostError("invalid_arguments", `${edit.file} could not be changed: ${(error as Error).message}`, { hint: "Fix the file by hand (it must stay valid for the host), then run the command again." });
    }
    if (json) printJson({ ok: true, host, file: edit.file, rules: edit.rules, outcome });
    else process.stdout.write(`${host}: ${edit.rules.length === 1 ? edit.rules[0] : `${edit.rules.length} rules`} in ${edit.file}: ${SAID[outcome]}\n`);
    return 0;
  },
});

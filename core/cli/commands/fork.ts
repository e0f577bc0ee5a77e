// peerpost fork ADDR TEXT [--model M] [--effort E] [--cwd DIR] [--keep]: run TEXT on a copy of a
// session's history; the answer comes back to that session as one message.
import { resolve } from "node:path";
import { parseAddress } from "../../common/address.js";
import { resolveRecipient } from "../../sessions/recipients.js";
import { userAddress } from "../../sessions/user.js";
import { forkSession } from "../../wake/fork.js";
import { wakeDeps } from "../../../plugins/wakers.js";
import { defineCommand } from "../command.js";
import { printJson } from "../output.js";
import { openStore } from "../store.js";

export const forkCommand = defineCommand({
  name: "fork",
  summary: "run a message on a copy of a session's history, optionally on another model",
  usage: "ADDR TEXT [--model M] [--effort E] [--cwd DIR] [--keep]",
  details:
    "Claude Code (--resume --fork-session), Codex (codex exec fork) and Grok (--fork-session) sessions; Copilot CLI cannot fork. The original keeps its transcript, model and prompt cache. " +
    "The fork runs detached within the wake budget; its final answer comes back to ADDR as one message with <fork thread model effort status/>. Follow it with `peerpost wake` or `peerpost inbox ADDR`.",
  flags: {
    model: { type: "string", value: "M", help: "The fork's model, through the host's own flag." },
    effort: { type: "string", value: "E", help: "The fork's reasoning effort, through the host's own flag." },
    cwd: { type: "string", value: "DIR", help: "The fork's working dir, inside the session's own (Codex only).", complete: "file" },
    keep: { type: "boolean", help: "Keep the fork session when it completes (a failed one is always kept)." },
    from: { type: "string", value: "ADDR", help: "Who asks for the fork.", default: "user:<PEERPOST_USER, else your login name>", complete: "address" },
  },
  args: { min: 2, max: Infinity, name: "the session's address and the message text", complete: "address" },
  examples: ["peerpost fork claude:0199a2f3-… 'Review this plan critically' --model opus --effort high", "peerpost fork codex:0199a2f3-… 'Try the other approach' --keep"],
  async run({ flags, args, json }) {
    const [address, ...words] = args as [string, ...string[]];
    const peerpost = await openStore();
    const from = typeof flags.from === "string" ? parseAddress(flags.from, "--from").text : userAddress(peerpost.config);
    const session = await resolveRecipient(peerpost, parseAddress(address, "ADDR").text);
    const forked = await forkSession(peerpost, wakeDeps(), { from, fromVerified: false, session, text: words.join(" "), settings: { model: flags.model, effort: flags.effort }, cwd: flags.cwd === undefined ? undefined : resolve(flags.cwd), keep: Boolean(flags.keep) });
    if (json) printJson({ ok: true, ...forked });
    else process.stdout.write(`forking ${session.address} (run ${forked.runId}${forked.forkAddress ? `, fork ${forked.forkAddress}` : ""}); its answer comes back to ${session.address}\n`);
    return 0;
  },
});

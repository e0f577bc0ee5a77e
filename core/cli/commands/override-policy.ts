// peerpost override-policy TARGET [--model SENDERS] [--effort SENDERS] [--cwd SENDERS]: a person decides
// who may change a session's (or a role holder's) model, effort or working dir by message.
import { parseAddress } from "../../common/address.js";
import { readOverrides, setOverridePolicy, type OverridePolicy } from "../../wake/overrides.js";
import { userAddress } from "../../sessions/user.js";
import { checkSettingTarget } from "../../sessions/recipients.js";
import { defineCommand } from "../command.js";
import { printJson } from "../output.js";
import { openStore } from "../store.js";

/** "a,b" → ["a","b"]; "none" → [] (nobody); each sender is *, an address or role:NAME. */
function senders(value: string | undefined, flag: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (value === "none") return [];
  return value.split(",").map((sender) => sender.trim()).filter(Boolean).map((sender) => (sender === "*" ? sender : parseAddress(sender, flag).text));
}

export const overridePolicyCommand = defineCommand({
  name: "override-policy",
  summary: "who may change a session's model, effort or working dir by message",
  usage: "TARGET [--model SENDERS] [--effort SENDERS] [--cwd SENDERS]",
  details:
    "TARGET is a session's address or role:NAME. SENDERS is a comma-separated list of addresses, role:NAME or * (anyone); none allows nobody; a setting left out keeps its list. " +
    "Without flags, prints the policy. An allowed change persists for the session's later headless runs; a cwd must stay inside its workspace.",
  flags: {
    model: { type: "string", value: "SENDERS", help: "Who may change the model." },
    effort: { type: "string", value: "SENDERS", help: "Who may change the reasoning effort." },
    cwd: { type: "string", value: "SENDERS", help: "Who may change the working dir." },
  },
  args: { min: 1, max: 1, name: "the target address or role:NAME", complete: "address" },
  examples: ["peerpost override-policy codex:0199a2f3 --model claude:lead --effort '*'", "peerpost override-policy role:reviewer --cwd none"],
  async run({ flags, args, json }) {
    const target = parseAddress(args[0]!, "TARGET").text;
    const peerpost = await openStore();
    const change: OverridePolicy = { model: senders(flags.model, "--model"), effort: senders(flags.effort, "--effort"), cwd: senders(flags.cwd, "--cwd") };
    const setting = Object.values(change).some((value) => value !== undefined);
    if (setting) checkSettingTarget(peerpost, target);
    const policy = setting ? setOverridePolicy(peerpost, userAddress(peerpost.config), target, change) : (readOverrides(peerpost.stateDir.path).policies[target] ?? {});
    if (json) printJson({ ok: true, target, policy });
    else process.stdout.write(`${target}: ${["model", "effort", "cwd"].map((setting) => `${setting} by ${(policy as Record<string, string[]>)[setting]?.join(",") || "nobody"}`).join("; ")}\n`);
    return 0;
  },
});

// peerpost name ADDR NAME: give a session a name people use (shown by agents, found by resolve).
import { nameSession } from "../../sessions/names.js";
import { defineCommand } from "../command.js";
import { printJson } from "../output.js";
import { openStore } from "../store.js";

export const nameCommand = defineCommand({
  name: "name",
  summary: "give a session a name people use",
  usage: "ADDR NAME",
  details: "NAME is the rest of the line: letters, digits, spaces, '.', '_' and '-' (up to 64). It is a label for people; --to still takes the exact address.",
  flags: {},
  args: { min: 2, max: Infinity, name: "an address and a name, e.g. codex:abc api server", complete: "address" },
  examples: ["peerpost name codex:0199a2f3 api server"],
  async run({ args, json }) {
    const [address, ...words] = args as [string, ...string[]];
    const entry = await nameSession(await openStore(), address, words.join(" "));
    if (json) printJson({ ok: true, session: entry });
    else process.stdout.write(`${entry.address} is now named ${JSON.stringify(entry.name)}\n`);
    return 0;
  },
});

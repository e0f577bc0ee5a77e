// dist/cli-start.cjs, which dist/cli.cjs (the `peerpost` command) and dist/cli.mjs require: runs the command line
// through V8's code cache, as the hooks run theirs: the light program (cli-light.cjs, built from
// light.ts) for the commands it has, the full one (cli-program.cjs, from cli.ts) for the rest
// (light-words.ts). Compiling the ~1.3 MB full program was more than half of a short command's time;
// reading and loading it, even from the cache, still a third.
import { join } from "node:path";
import { CodeCache } from "../common/code-cache.js";
import { programFor } from "./light-words.js";

// Each command keeps a cache of the functions it ran; flags alone (--version, --help) share one. A word
// that turns out to name no command (a typo) gets none, so typos do not fill the cache dir.
const word = process.argv[2] ?? "";
const named = /^[a-z][a-z-]{0,27}$/.test(word);
const cache = CodeCache.forEnvironment(process.env, named ? `cli-${word}` : "cli");
let program: { COMMAND_WORDS?: readonly string[] } | undefined;
process.on("exit", () => {
  if (!named || program?.COMMAND_WORDS?.includes(word)) cache.save();
});
program = cache.load(join(__dirname, programFor(word))) as typeof program;

// Entry of dist/<host>/hooks.cjs, the same for every host: runs the host's hook program for the event
// (hook-program.cjs or edit-program.cjs beside it: programs.ts) through the code cache, and saves what it
// compiled when the hook exits.
import { join } from "node:path";
import { CodeCache } from "../core/common/code-cache.js";
import { programFile } from "./programs.js";

const cache = CodeCache.forEnvironment(process.env, process.argv[2] ?? "");
// Hooks end with process.exit once their answer is written; the cache is written after that.
process.on("exit", () => cache.save());
try {
  cache.load(join(__dirname, programFile(process.argv[2] ?? "")));
} catch {
  // A program that cannot load (a broken install) must not break the prompt either: no output, exit 0.
  process.exit(0);
}

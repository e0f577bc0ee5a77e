// The TypeScript sources below a folder (declaration files and node_modules left out), for the scripts
// that read or transpile every source file.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

export function typescriptSources(dir, found = []) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) typescriptSources(path, found);
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) found.push(path);
  }
  return found;
}

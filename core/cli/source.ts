// Where this peerpost came from, as a host's `plugin marketplace add` takes it: the clone's own path
// when it holds the marketplace catalogues, else the repository named in package.json.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { shellWord } from "../common/shell-word.js";
import { findOnPath } from "../wake/host-binary.js";

/** The package root: the CLI's programs run from <root>/dist/. */
function packageRoot(): string {
  return fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
}

export function marketplaceSource(root = packageRoot()): string {
  if (existsSync(join(root, ".claude-plugin", "marketplace.json"))) return root;
  try {
    const url = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { repository?: { url?: string } }).repository?.url ?? "";
    const match = /github\.com[/:]([^/]+\/[^/.]+)/.exec(url);
    if (match) return match[1]!;
  } catch {
    // No package.json beside the CLI: fall through to the clone's path.
  }
  return root;
}

/** How a person runs this peerpost from a shell: `peerpost` when it is on PATH, else node and this CLI's
 * path (the README's "node dist/cli.cjs" from a clone), so a printed command that calls it runs as pasted. */
export function selfCommand(env: NodeJS.ProcessEnv = process.env, root = packageRoot()): string {
  const found = findOnPath("peerpost", env.PATH);
  // Only a `peerpost` that is this CLI: another install on PATH (an older global one) would run instead.
  return found !== undefined && sameFile(found, join(root, "dist", "cli.cjs")) ? "peerpost" : `node ${shellWord(join(root, "dist", "cli.cjs"))}`;
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

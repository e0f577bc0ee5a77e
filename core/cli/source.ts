// Where this peerpost came from, as a host's `plugin marketplace add` takes it: the clone's own path
// when it holds the marketplace catalogues, else the repository named in package.json.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

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

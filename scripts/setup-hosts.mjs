// Installs the pinned host CLIs (tests/hosts/package-lock.json) that the end-to-end tests drive.
// Runs `npm install --no-save` (versions are pinned exactly; `npm ci` would refuse the lock file because
// some hosts list per-platform packages that are not published for every platform) only when the lock
// file changed since the last install. Install scripts are skipped:
// some would write into the real home directory, and the CLIs run without them.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL("../tests/hosts", import.meta.url));
const stamp = join(dir, "node_modules", ".peerpost-installed");
const lockHash = createHash("sha256").update(readFileSync(join(dir, "package-lock.json"))).digest("hex");

if (existsSync(stamp) && readFileSync(stamp, "utf8") === lockHash) {
  console.error("host CLIs already installed");
} else {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["install", "--prefix", dir, "--no-save", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], { stdio: "inherit" });
  if (result.status !== 0) {
    console.error("installing the host CLIs failed; end-to-end tests will be skipped or fail");
    process.exit(result.status ?? 1);
  }
  linkClaudeBinary();
  writeFileSync(stamp, lockHash);
}

/**
 * Claude Code's package ships a stub in bin/ that its install script replaces with the native binary
 * from the platform package (a hard link inside node_modules; it touches nothing else). Run just that.
 */
function linkClaudeBinary() {
  const pkg = join(dir, "node_modules", "@anthropic-ai", "claude-code");
  if (!existsSync(join(pkg, "install.cjs"))) return;
  const result = spawnSync(process.execPath, ["install.cjs"], { cwd: pkg, stdio: "inherit", env: { PATH: process.env.PATH ?? "" } });
  if (result.status !== 0) {
    console.error("linking the Claude Code binary failed; its end-to-end tests will be skipped");
    process.exit(result.status ?? 1);
  }
}

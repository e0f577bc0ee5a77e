// The edit-hook row of `npm run bench`: Claude Code's PreToolUse hook (whole process) checking a Write
// against 1,000 live claims in the repository, one of which refuses it, vs bare `node -e 0`. Target ≤ 1.3×.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const CLAIMS = 1_000;
const PER_HOLDER = 100;

export async function benchClaimsHook({ root, work, runs, report, median, timeProcess, openPeerpost }) {
  console.error(`\nPreToolUse hook (claude-code), whole process, ${CLAIMS} live claims in the repository, vs bare node -e 0 (${runs} runs each, interleaved)`);
  const { claimPaths } = await import(join(root, ".build/core/claims/claims.js"));
  const home = join(work, "claims-home");
  const repo = join(work, "claims-repo");
  mkdirSync(join(repo, ".git"), { recursive: true });
  const env = { PATH: process.env.PATH, HOME: home };
  const peerpost = openPeerpost({ env, home });
  for (let holder = 0; holder < CLAIMS / PER_HOLDER; holder++) {
    const paths = Array.from({ length: PER_HOLDER }, (_, i) => `pkg${holder * PER_HOLDER + i}/**`);
    await claimPaths(peerpost, { holder: `user:p${holder}`, cwd: repo, paths, ttl: "1d" });
  }
  await peerpost.backend.close();
  const hook = join(root, "dist/claude-code/hooks.cjs");
  const input = JSON.stringify({ session_id: "bench-editor", cwd: repo, hook_event_name: "PreToolUse", tool_name: "Write", tool_input: { file_path: join(repo, "pkg500", "x.ts"), content: "x" } });
  const check = (run) => {
    if (!run.stdout.includes("claimed exclusively by user:p5")) throw new Error(`the hook did not refuse the claimed path: ${run.stdout}`);
  };
  check(timeProcess(process.execPath, [hook, "pre-tool"], { input, env }));
  const base = [];
  const hooked = [];
  const rss = [];
  for (let i = 0; i < runs; i++) {
    base.push(timeProcess(process.execPath, ["-e", "0"], { env }).elapsed);
    const run = timeProcess(process.execPath, [hook, "pre-tool"], { input, env });
    check(run);
    hooked.push(run.elapsed);
    rss.push(run.rss);
  }
  report(`PreToolUse hook, ${CLAIMS} claims, median ms`, median(hooked), "node -e 0 median ms", median(base), `(target ≤ 1.3×; refuses the edit; peak RSS ${median(rss)} KiB)`);
}

// Which program the CLI's loader (core/cli/start.ts) runs for a command line: the words here, the
// light program's commands (light-commands.ts), and the version flags go to dist/cli-light.cjs;
// everything else (serve, ui, help, a typo) to the full dist/cli-program.cjs. A list of its own, not
// light-commands.ts, so the loader does not bundle the commands (tests/cli-programs.test.ts keeps the two equal).
export const LIGHT_WORDS: ReadonlySet<string> = new Set([
  "send",
  "inbox",
  "reply",
  "status",
  "agents",
  "tail",
  "role",
  "override-policy",
  "roles",
  "claim",
  "release",
  "claims",
  "guard",
  "task",
  "name",
  "resolve",
  "wake",
  "launch",
  "fork",
  "push",
  "run",
  "sessions",
  "hooks",
  "shim",
  "compact",
  "migrate",
  "health",
  "wake-run",
  "index-run",
  "version",
  "--version",
  "-v",
]);

/** The program file (beside the loader in dist/) that runs the command line whose first word is `word`. */
export function programFor(word: string): "cli-light.cjs" | "cli-program.cjs" {
  return LIGHT_WORDS.has(word) ? "cli-light.cjs" : "cli-program.cjs";
}

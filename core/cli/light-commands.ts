// The commands of the light program (dist/cli-light.cjs): every command that needs neither the MCP
// server (its SDK, zod and ajv) nor the web view's page, nor every command's declaration (help,
// completion). A third of the full program's size, so a short command reads and loads a third.
// registry.ts lists these among the rest; light-words.ts routes their words here (core/cli/start.ts).
import type { Command } from "./command.js";
import { sendCommand } from "./commands/send.js";
import { inboxCommand } from "./commands/inbox.js";
import { replyCommand } from "./commands/reply.js";
import { statusCommand } from "./commands/status.js";
import { agentsCommand } from "./commands/agents.js";
import { tailCommand } from "./commands/tail.js";
import { wakeCommand } from "./commands/wake.js";
import { pushCommand } from "./commands/push.js";
import { runCommand } from "./commands/run.js";
import { launchCommand } from "./commands/launch.js";
import { hooksCommand } from "./commands/hooks.js";
import { wakeRunCommandLine } from "./commands/wake-run.js";
import { indexRunCommandLine } from "./commands/index-run.js";
import { roleCommand } from "./commands/role.js";
import { overridePolicyCommand } from "./commands/override-policy.js";
import { forkCommand } from "./commands/fork.js";
import { sessionsCommand } from "./commands/sessions.js";
import { rolesCommand } from "./commands/roles.js";
import { nameCommand } from "./commands/name.js";
import { claimCommand } from "./commands/claim.js";
import { releaseCommand } from "./commands/release.js";
import { claimsCommand } from "./commands/claims.js";
import { guardCommand } from "./commands/guard.js";
import { taskCommand } from "./commands/task.js";
import { resolveCommand } from "./commands/resolve.js";
import { compactCommand } from "./commands/compact.js";
import { migrateCommand } from "./commands/migrate.js";
import { healthCommand } from "./commands/health.js";
import { shimCommand } from "./commands/shim.js";

/** In the order `peerpost help` lists them (registry.ts puts them between serve and the rest). */
export const LIGHT_COMMANDS: readonly Command[] = [
  sendCommand,
  inboxCommand,
  replyCommand,
  statusCommand,
  agentsCommand,
  tailCommand,
  roleCommand,
  overridePolicyCommand,
  rolesCommand,
  claimCommand,
  releaseCommand,
  claimsCommand,
  guardCommand,
  taskCommand,
  nameCommand,
  resolveCommand,
  wakeCommand,
  launchCommand,
  forkCommand,
  pushCommand,
  runCommand,
  sessionsCommand,
  hooksCommand,
  shimCommand,
  compactCommand,
  migrateCommand,
  healthCommand,
  wakeRunCommandLine,
  indexRunCommandLine,
];

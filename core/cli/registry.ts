// Every `peerpost` command, in the order `peerpost help` lists them.
//
// To add a command: write core/cli/commands/NAME.ts exporting `defineCommand({ name, summary, usage,
// flags, args, examples, run })` (see commands/inbox.ts for a small one), then add one import and one
// entry below. Help, `NAME --help`, usage errors with "did you mean", and bash/zsh completion come from
// the declaration; nothing else needs changing.
import type { Command } from "./command.js";
import { serveCommand } from "./commands/serve.js";
import { sendCommand } from "./commands/send.js";
import { inboxCommand } from "./commands/inbox.js";
import { replyCommand } from "./commands/reply.js";
import { statusCommand } from "./commands/status.js";
import { agentsCommand } from "./commands/agents.js";
import { tailCommand } from "./commands/tail.js";
import { doctorCommand } from "./commands/doctor.js";
import { healthCommand } from "./commands/health.js";
import { wakeCommand } from "./commands/wake.js";
import { pushCommand } from "./commands/push.js";
import { runCommand } from "./commands/run.js";
import { launchCommand } from "./commands/launch.js";
import { hooksCommand } from "./commands/hooks.js";
import { uiCommand } from "./commands/ui.js";
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
import { completionCommand } from "./commands/completion.js";
import { helpCommand } from "./commands/help.js";
import { compactCommand } from "./commands/compact.js";
import { migrateCommand } from "./commands/migrate.js";
import { shimCommand } from "./commands/shim.js";
import { allowCommand } from "./commands/allow.js";

export const COMMANDS: readonly Command[] = [
  serveCommand,
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
  allowCommand,
  uiCommand,
  compactCommand,
  migrateCommand,
  healthCommand,
  doctorCommand,
  completionCommand,
  helpCommand,
  wakeRunCommandLine,
  indexRunCommandLine,
];

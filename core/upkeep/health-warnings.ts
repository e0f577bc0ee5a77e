// The warnings a health report carries about the store and state dir: the same for the `health` tool and `peerpost health`.
import type { inspectState } from "./health.js";
import type { StoreReport } from "../store/report.js";

export interface HealthWarning {
  code: string;
  message: string;
}

export function storeWarnings(state: ReturnType<typeof inspectState>, store: StoreReport): HealthWarning[] {
  const warnings: HealthWarning[] = [];
  if (!state.stateDir.private) warnings.push({ code: "state_dir_not_private", message: `The state dir's mode is ${state.stateDir.mode}, not 0700.` });
  if (!store.reachable) warnings.push({ code: "store_unreachable", message: `The store ${store.location} does not answer: ${store.error ?? "no answer"}. Sends fail with state_io_error until it does.` });
  for (const log of store.startingOver ?? [])
    warnings.push({ code: "mirror_starting_over", message: `This machine's mirror of the ${log} was left halfway through starting over from another database; the next sync here starts it over again (\`peerpost index-run\` does it now). The database holds every row.` });
  if (state.logs.mailbox.corrupt > 0) warnings.push({ code: "corrupt_lines", message: `${state.logs.mailbox.corrupt} mailbox lines are not valid records; they are skipped and kept. \`peerpost doctor\` lists them.` });
  for (const damage of state.storage.indexDamage)
    warnings.push({ code: "index_rebuilt", message: `The index file ${damage.file} ${damage.problem} (found ${damage.at}); peerpost stopped trusting that index and rebuilt it from the log, which is unaffected. \`peerpost doctor\` checks every index file.` });
  return warnings;
}

// `peerpost launch on|off` (the launch switch, off by default) and
// `peerpost launch --host H --cwd DIR [--from ADDR] TEXT` (start a helper session; prints its address;
// --from defaults to the person's user:<name>).
import { resolve } from "node:path";
import { openPeerpost } from "../peerpost.js";
import { parseAddress } from "../common/address.js";
import { userAddress } from "../sessions/user.js";
import { SESSION_HOSTS, type SessionHost } from "../records/schemas.js";
import { rulesOn, updateSwitches } from "../wake/switches.js";
import { launchSession } from "../wake/launch.js";
import type { WakeDeps } from "../wake/waker.js";
import type { FlagValues, Flags } from "./command.js";
import { printJson, UsageError } from "./output.js";

const stringFlag = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

export async function launchCommand(args: string[], flags: FlagValues<Flags>, json: boolean, deps: WakeDeps): Promise<void> {
  const peerpost = openPeerpost({});
  if (flags.host === undefined && (args[0] === "on" || args[0] === "off") && args.length === 1) {
    const switches = updateSwitches(peerpost.stateDir.path, (switches) => {
      switches.launch = args[0] === "on";
      return switches;
    });
    // Launching and waking are separate switches: turning launching off says whether waking still runs sessions.
    const waking = rulesOn(switches.wake);
    if (json) printJson({ ok: true, launch: switches.launch, wakeOn: waking ?? null });
    else process.stdout.write(`launch: ${switches.launch ? "on" : "off"}${!switches.launch && waking ? `; waking is still on for ${waking} (turn it off with: peerpost wake off all)` : ""}\n`);
    return;
  }
  const host = flags.host;
  if (typeof host !== "string" || !SESSION_HOSTS.includes(host as SessionHost)) throw new UsageError(`launch needs --host ${SESSION_HOSTS.join("|")}`, "launch");
  if (typeof flags.cwd !== "string") throw new UsageError("launch needs --cwd DIR", "launch");
  // An empty --cwd is an unset $DIR: resolved, it would start the agent wherever the caller stands.
  if (flags.cwd.trim() === "") throw new UsageError("launch needs --cwd DIR, and it was given an empty one (an unset variable?)", "launch");
  const text = args.join(" ");
  if (!text) throw new UsageError("launch needs the message text", "launch");
  // A person launches as themselves (user:<name>), as with send, unless they say otherwise.
  const from = typeof flags.from === "string" ? parseAddress(flags.from, "--from").text : userAddress(peerpost.config);
  const launched = await launchSession(peerpost, deps, { from, fromVerified: false, host: host as SessionHost, cwd: resolve(flags.cwd), text, settings: { model: stringFlag(flags.model), effort: stringFlag(flags.effort) } });
  if (json) printJson({ ok: true, ...launched });
  else process.stdout.write(`launched ${launched.address} (message ${launched.messageId}); follow it with: peerpost status ${launched.messageId}\n`);
}

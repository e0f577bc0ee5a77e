// What the terminal transports (tmux, pty) share: the session they serve, their switch, and the rules
// checked before a message is claimed. Each says where the host runs and whether its person is typing.
import type { Peerpost } from "../peerpost.js";
import type { MessageState } from "../mail/fold.js";
import type { Identity, PushTransport } from "../server/adapter.js";
import type { SessionHost } from "../records/schemas.js";
import { pushSetting, switchesOrRefusal } from "../wake/switches.js";
import { toErrorValue } from "../common/errors.js";
import { TERMINAL_VIAS } from "../sessions/push-kinds.js";
import { busyRefusal } from "./rules.js";

export abstract class TerminalPush implements PushTransport {
  abstract readonly name: (typeof TERMINAL_VIAS)[number];
  /** Requests only, never stale, within the wake budget, and the live note: core/live/rules.ts, applied by the push loop. */
  readonly live = true;
  protected address: string | undefined;

  constructor(protected readonly peerpost: Peerpost, protected readonly host: SessionHost) {}

  /** e.g. "the host runs in tmux pane %3". */
  protected abstract where(): string;
  /** Why the person's input line does not allow typing now, if it does not. */
  protected abstract typingRefusal(): Promise<string | undefined>;
  /**
   * Records the end of a turn the person interrupted, where this transport can tell it ended: Claude Code
   * runs no stop hook for a turn interrupted with Esc, and the session would read as in a turn until the
   * person's next one ended.
   */
  protected abstract noteInterruptedTurn(address: string): Promise<void>;
  abstract deliver(message: MessageState): Promise<void>;

  bind(identity: Identity): void {
    this.address = identity.address;
  }

  availability(): { available: boolean; reason: string } {
    if (this.address === undefined) return { available: false, reason: "no session known yet" };
    const { switches, refusal } = switchesOrRefusal(this.peerpost.stateDir.path);
    if (refusal !== undefined) return { available: false, reason: `${this.where()}, but the switches cannot be read: ${toErrorValue(refusal).message}` };
    const setting = pushSetting(switches, this.name, { address: this.address, host: this.host });
    return setting.on
      ? { available: true, reason: `${this.where()}; requests are typed there when the session is idle and its input line is empty` }
      : { available: false, reason: `${this.where()}, but typing there is off (${setting.rule}); turn it on with peerpost push on ${this.name}` };
  }

  async ready(): Promise<string | undefined> {
    if (this.address === undefined) return "no session known yet";
    await this.noteInterruptedTurn(this.address);
    return busyRefusal(this.peerpost.stateDir.path, this.address) ?? (await this.typingRefusal());
  }
}

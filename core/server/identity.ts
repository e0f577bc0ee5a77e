// Which session this server serves. Order: PEERPOST_ADDRESS, then the host adapter (host env, MCP _meta,
// the sessions registry by host process). The first time an address is known, the server registers it,
// so a peer is reachable even when the host's hooks are off.
import { parseAddress, type SessionKind } from "../common/address.js";
import { PeerpostError } from "../common/errors.js";
import { findAncestor, hostStartField, type ProcessInfo } from "../sessions/process-tree.js";
import { heldByAnotherHost } from "../sessions/registry.js";
import { captureHostEnv } from "../wake/host-env.js";
import { SHIM_VIA } from "./shim-push.js";
import type { Peerpost } from "../peerpost.js";
import type { SessionHost } from "../records/schemas.js";
import type { HostAdapter, Identity, IdentityContext } from "./adapter.js";

const HOST_OF_KIND: Record<SessionKind, SessionHost> = { claude: "claude-code", codex: "codex", copilot: "copilot", grok: "grok" };
/** How long a session's host seen running elsewhere is taken to run on before it is looked at again. */
const HELD_RECHECK_MS = 2_000;

export class IdentityResolver {
  private current: Identity | undefined;
  private hostProcess: ProcessInfo | undefined | null = null;
  private readonly registered = new Set<string>();
  private lastError: string | undefined;
  /** A claimed session this server did not switch to, because it already served another. */
  private refusedClaim: string | undefined;
  /** The last answer of heldElsewhere, with the registry's host process it was for. */
  private held: { key: string; holder: number | undefined; at: number } | undefined;

  constructor(
    private readonly peerpost: Peerpost,
    private readonly adapter: HostAdapter,
    private readonly env: NodeJS.ProcessEnv,
    private readonly onIdentity: (identity: Identity) => void,
  ) {}

  host(): ProcessInfo | undefined {
    if (this.hostProcess === null) this.hostProcess = findAncestor((info) => this.adapter.isHostProcess(info));
    return this.hostProcess;
  }

  context(meta: Record<string, unknown> | undefined): IdentityContext {
    return { env: this.env, meta, hostProcess: this.host(), sessions: this.peerpost.sessions };
  }

  /** Resolves for one request; a request's _meta may name the session when nothing else does. */
  /**
   * Resolves the identity for one request (its _meta may name the session) and returns it, so each
   * call acts as the session it was made for. Background resolves (at start, before each push pass)
   * follow the host — e.g. Claude Code's /clear — but never replace an identity a call's _meta gave.
   */
  async resolve(meta: Record<string, unknown> | undefined, background = false): Promise<Identity | undefined> {
    const identity = this.find(meta);
    if (!identity) return this.current;
    if (background && this.current?.source === "mcp-meta" && identity.source !== "mcp-meta") return this.current;
    // A claim never moves a server off the session it serves: the claimant could be anything in its host.
    if (identity.claim !== undefined && this.current !== undefined && this.current.address !== identity.address) {
      this.refusedClaim = identity.claim;
      return this.current;
    }
    this.current = identity;
    // A claimed session is served unverified and not registered: its record stays with its own host.
    if (identity.claim === undefined) await this.register(identity);
    this.onIdentity(identity);
    return identity;
  }

  private find(meta: Record<string, unknown> | undefined): Identity | undefined {
    const explicit = this.peerpost.config.address;
    if (explicit === undefined) {
      const identity = this.adapter.identify(this.context(meta));
      return identity && this.claimIfHeldElsewhere(identity);
    }
    const address = parseAddress(explicit, "PEERPOST_ADDRESS");
    if (address.kind === "role")
      throw new PeerpostError("invalid_arguments", "PEERPOST_ADDRESS must be a session address, not a role.", { details: { variable: "PEERPOST_ADDRESS" }, hint: "Use e.g. claude:my-session; take roles with PEERPOST_ROLES." });
    return this.claimIfHeldElsewhere({ address: address.text, sessionId: address.id, source: "PEERPOST_ADDRESS", detail: "PEERPOST_ADDRESS", verified: false });
  }

  /**
   * An identity from PEERPOST_ADDRESS, the host's variable or a call's _meta names a session whose own host
   * is another running process: anything can set those (a server an agent's shell started), so it is a
   * claim, as a hook's registration would be. PEERPOST_ADDRESS is unverified anyway, but unclaimed it would read the session's mail.
   */
  private claimIfHeldElsewhere(identity: Identity): Identity {
    if (!(identity.verified || identity.source === "PEERPOST_ADDRESS") || identity.claim !== undefined || identity.source === "registry") return identity;
    const holder = this.heldElsewhere(identity.address);
    if (holder === undefined) return identity;
    return { ...identity, verified: false, claim: `${identity.address} came from ${identity.detail} in a server that does not run under its own host (pid ${holder}), which was still running` };
  }
  /**
   * heldByAnotherHost for this address, asked on every call (about 40 µs: the holder's /proc and this
   * process's ancestors), kept while the registry names the same host process: a holder that is no other
   * host stays so; one that is is looked at again after HELD_RECHECK_MS, to see it end.
   */
  private heldElsewhere(address: string): number | undefined {
    const entry = this.peerpost.sessions.get(address);
    const key = entry === undefined ? address : `${address}\n${entry.local}\n${entry.hostPid}\n${entry.hostStart}`;
    const now = Date.now();
    const cached = this.held;
    if (cached?.key === key && (cached.holder === undefined || now - cached.at < HELD_RECHECK_MS)) return cached.holder;
    const holder = heldByAnotherHost(entry);
    this.held = { key, holder, at: now };
    return holder;
  }

  private async register(identity: Identity): Promise<void> {
    if (this.registered.has(identity.address)) return;
    // A server without a push transport is mailbox-only from the start; one with a transport reports itself.
    if (await this.record(identity, this.adapter.createPush ? {} : { push: "none" })) {
      this.registered.add(identity.address);
      // What a wake of this session will need: its host's own start-up environment, taken only from a
      // verified host process (an address given in the environment could be anyone's, its PATH too).
      const host = this.host();
      if (identity.verified && host) captureHostEnv(this.peerpost.stateDir.path, identity.address, host.pid, this.env);
    }
  }

  /** Records in the registry which live push this session has ("none" when mail waits for read and hooks). */
  async reportPush(identity: Identity, push: string): Promise<void> {
    await this.record(identity, { push });
  }

  private async record(identity: Identity, extra: { push?: string }): Promise<boolean> {
    const kind = parseAddress(identity.address).kind as SessionKind;
    const host = this.adapter.sessionHost ?? HOST_OF_KIND[kind];
    const known = this.peerpost.sessions.get(identity.address);
    // A server with no transport of its own leaves a `peerpost shim`'s standing while the host process it
    // sits on runs (the shim starts the turns). A `peerpost run` wrapper's `pty` stands by the registry's fold.
    if (extra.push === "none" && known?.push === SHIM_VIA && known.alive) extra = {};
    try {
      await this.peerpost.sessions.register({
        host,
        address: identity.address,
        sessionId: identity.sessionId,
        ...(this.host()?.pid !== undefined ? { hostPid: this.host()!.pid, ...hostStartField(this.host()!.pid) } : known?.hostPid !== undefined ? {} : { hostPid: process.ppid, ...hostStartField(process.ppid) }),
        // A hook's record knows the session's directory; a server's cwd may be the plugin's own.
        ...(known?.cwd !== undefined ? {} : { cwd: process.cwd() }),
        source: "server",
        // Always written, so a session started without roles drops the ones an earlier start had.
        roles: this.peerpost.config.roles,
        ...extra,
      });
      return true;
    } catch (error) {
      this.lastError = error instanceof Error ? error.message : String(error);
      return false;
    }
  }

  known(): Identity | undefined {
    return this.current;
  }

  require(): Identity {
    if (this.current) return this.current;
    throw new PeerpostError("no_current_session", "peerpost cannot tell which session this is, so it cannot send, read or reply.", {
      details: { host: this.adapter.host, hostProcess: this.host()?.name ?? null },
      hint:
        this.adapter.host === "generic"
          ? "Set PEERPOST_ADDRESS (e.g. claude:my-session) in the server's environment, or run the server from a host plugin (peerpost serve --host claude-code|codex|copilot|grok)."
          : `Start a new ${this.adapter.host} session with the peerpost plugin enabled (its SessionStart hook registers the session), or set PEERPOST_ADDRESS.`,
    });
  }

  report(): Record<string, unknown> {
    const report: Record<string, unknown> = {
      address: this.current?.address ?? null,
      source: this.current?.source ?? "none",
      detail: this.current?.detail ?? null,
      verified: this.current?.verified ?? false,
      order: ["PEERPOST_ADDRESS", `${this.adapter.host} adapter (host env, MCP _meta, sessions registry by host process)`],
      hostProcess: this.host() ? { pid: this.host()!.pid, name: this.host()!.name } : null,
    };
    if (this.lastError !== undefined) report.registrationError = this.lastError;
    if (this.current?.claim !== undefined) report.claim = `Serving a claimed session, unverified: ${this.current.claim}.`;
    if (this.refusedClaim !== undefined) report.refusedClaim = `Not switched: ${this.refusedClaim}.`;
    return report;
  }
}

// Who may talk to the web view: only this machine's browser, on the exact loopback origin it was
// started on, holding this run's token. Everything is refused by default.
//   - Host must be 127.0.0.1:PORT or localhost:PORT: a rebound DNS name (evil.example → 127.0.0.1)
//     carries its own name in Host and is refused before anything else.
//   - The token comes in the URL (?token=) for reads; a write must carry it in a header, which no
//     other site can make a browser add, with a JSON body and the page's own Origin.
//   - Fetch metadata and Origin refuse cross-site and same-site (another local port) requests.
//   - The URL `peerpost ui` opens the browser at has a one-time code instead of the token (opening-page.ts):
//     a top-level load with it passes once, within OPENING_TTL_MS, and is answered with the way on.
import { randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

export const TOKEN_HEADER = "x-peerpost-token";

export interface GuardRequest {
  method: string;
  headers: IncomingHttpHeaders;
  url: URL;
}

export interface Refusal {
  status: 401 | 403 | 405 | 415;
  reason: string;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sameToken(given: string, token: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** How long the code of the URL `peerpost ui` opens the browser at stays good: a browser that starts from nothing takes seconds. */
const OPENING_TTL_MS = 120_000;

export class Guard {
  /** Codes of opening URLs not loaded yet (allowOpening), each with when it stops being good. */
  private readonly openings = new Map<string, number>();

  constructor(
    private readonly token: string,
    private readonly port: number,
  ) {}

  /** A code for the query's `open`, in place of the token: one top-level load of the page passes with it. */
  allowOpening(now = Date.now()): string {
    const code = randomBytes(18).toString("base64url");
    this.openings.set(code, now + OPENING_TTL_MS);
    return code;
  }

  /** A top-level load of the page with an unused code still good (used up now). */
  private opening(request: GuardRequest, now = Date.now()): boolean {
    const code = request.url.searchParams.get("open");
    const mode = header(request.headers, "sec-fetch-mode");
    const navigation = request.method === "GET" && request.url.pathname === "/" && (mode === undefined || mode === "navigate");
    const until = code === null ? undefined : this.openings.get(code);
    if (!navigation || until === undefined) return false;
    this.openings.delete(code!);
    return now <= until;
  }

  /** The origins this server answers as. */
  origins(): string[] {
    return [`http://127.0.0.1:${this.port}`, `http://localhost:${this.port}`];
  }

  /** Undefined when the request may proceed; otherwise the status and why. */
  check(request: GuardRequest): Refusal | undefined {
    const host = header(request.headers, "host")?.toLowerCase();
    if (host === undefined || !this.origins().includes(`http://${host}`)) return { status: 403, reason: "This server answers only as 127.0.0.1 or localhost on its own port." };
    const site = header(request.headers, "sec-fetch-site");
    // The opener's load: no site (typed, or an opener), or cross-site (a page that forwards it).
    if (site !== "same-origin" && this.opening(request)) return undefined;
    if (site !== undefined && site !== "same-origin" && site !== "none") return { status: 403, reason: "Requests from other sites are refused." };
    const origin = header(request.headers, "origin");
    if (origin !== undefined && origin !== `http://${host}`) return { status: 403, reason: "Requests from other origins are refused." };
    if (request.method !== "GET" && request.method !== "POST") return { status: 405, reason: "Only GET and POST are served." };
    if (request.method === "POST") return this.checkWrite(request, origin);
    const given = request.url.searchParams.get("token");
    if (given === null || given === "") return { status: 401, reason: "The token is missing: open the URL `peerpost ui` printed." };
    if (!sameToken(given, this.token)) return { status: 403, reason: "The token is wrong: open the URL this run of `peerpost ui` printed." };
    return undefined;
  }

  private checkWrite(request: GuardRequest, origin: string | undefined): Refusal | undefined {
    const given = header(request.headers, TOKEN_HEADER);
    if (given === undefined || given === "") return { status: 401, reason: `A write needs the token in the ${TOKEN_HEADER} header.` };
    if (!sameToken(given, this.token)) return { status: 403, reason: "The token is wrong." };
    if (origin === undefined) return { status: 403, reason: "A write must come from the page itself (Origin header)." };
    const type = header(request.headers, "content-type") ?? "";
    if (!/^application\/json(\s*;|$)/i.test(type)) return { status: 415, reason: "A write needs a JSON body (Content-Type: application/json)." };
    return undefined;
  }
}

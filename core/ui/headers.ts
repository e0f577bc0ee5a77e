// Headers on every answer of the web view, refusals included: a CSP that allows only this server's
// own script and its page's stylesheet (inline in the page, so the first paint waits for no second
// request, and allowed by its hash alone: nothing else inline, nothing external, no framing, Trusted
// Types so no string can become markup), no caching, no referrer, and never any CORS header.
// No Cross-Origin-Opener-Policy: it would guard against a window of another origin holding a handle on
// this page, but no page of another origin can open it (every URL needs the token) and every link the page
// opens gets no opener; Chromium's site isolation already gives 127.0.0.1 a process of its own. What it
// would cost is a second renderer process for every new tab, about 150 ms of first paint (the web view's
// row of `npm run bench` measures it beside the page).
import { createHash } from "node:crypto";

export function contentSecurityPolicy(css: string): string {
  const styleHash = createHash("sha256").update(css, "utf8").digest("base64");
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'sha256-${styleHash}'`,
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
  ].join("; ");
}

export function securityHeaders(css: string): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(css),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-resource-policy": "same-origin",
    "cache-control": "no-store",
  };
}

// PEERPOST_STORE=postgres://…: parsing, and the one way a store URL is ever shown (password masked).
// Credentials come only from the URL, the PG* environment or ~/.pgpass (the pg client reads the last
// two, and ignores a .pgpass that others can read); nothing else in peerpost holds them.

const SCHEMES = ["postgres:", "postgresql:"];

/** The URL with any password replaced by `***`; a string that is not a URL is masked whole after the scheme. */
export function maskStoreUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password !== "") url.password = "***";
    // A password can also ride in the query (?password=…); libpq accepts it, so mask it too.
    if (url.searchParams.has("password")) url.searchParams.set("password", "***");
    return url.toString();
  } catch {
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(raw)?.[0] ?? "";
    return `${scheme}***`;
  }
}

/** Replaces every occurrence of the URL's password in a text (an error message from the driver, say). */
export function maskSecretsIn(text: string, raw: string): string {
  let masked = text.split(raw).join(maskStoreUrl(raw));
  try {
    const url = new URL(raw);
    for (const secret of [url.password, decodeURIComponent(url.password), url.searchParams.get("password") ?? ""])
      if (secret.length >= 3) masked = masked.split(secret).join("***");
  } catch {
    // Not a URL: nothing more to find.
  }
  return masked;
}

/** Why a PEERPOST_STORE value is not a PostgreSQL URL, or undefined when it is one. */
export function storeUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "expected a postgres://user@host:port/database URL";
  }
  if (!SCHEMES.includes(url.protocol)) return `expected a postgres:// or postgresql:// URL, not ${url.protocol}//`;
  if (url.hostname === "" && !url.searchParams.has("host")) return "the URL names no host";
  return undefined;
}

// What the pg driver's lib/crypto/utils.js provides, on node:crypto's synchronous calls. The build puts
// this in its place (scripts/build.mjs): pg's own reaches node:crypto's Web Crypto at load, which costs
// a prompt hook more than the SCRAM exchange itself. Same exports, same results (a Buffer where pg's
// gives an ArrayBuffer; pg only ever wraps them in Buffer.from).
// node:crypto itself (~7 ms to load) is required on first use, not with the driver: a hook loads it
// while the server starts its backend (see ClosingClient in connect.ts), off the critical path.
import type * as NodeCrypto from "node:crypto";

let loaded: typeof NodeCrypto | undefined;

/** This file only ever runs bundled, and every peerpost bundle has a `require` (ESM ones by their banner). */
function nodeCrypto(): typeof NodeCrypto {
  return (loaded ??= require("node:crypto") as typeof NodeCrypto);
}

export function randomBytes(length: number): Buffer {
  return nodeCrypto().randomBytes(length);
}

export async function md5(text: string | Buffer): Promise<string> {
  return nodeCrypto().createHash("md5").update(text).digest("hex");
}

/** AuthenticationMD5Password: "md5" + md5(md5(password + user) + salt). */
export async function postgresMd5PasswordHash(user: string, password: string, salt: Buffer): Promise<string> {
  const inner = await md5(password + user);
  return "md5" + (await md5(Buffer.concat([Buffer.from(inner), salt])));
}

export async function sha256(data: Buffer | ArrayBuffer | Uint8Array): Promise<Buffer> {
  return nodeCrypto().createHash("sha256").update(Buffer.from(data as ArrayBuffer)).digest();
}

/** Names as Web Crypto spells them (SHA-256, SHA-384, SHA-512), for channel binding. */
export async function hashByName(hashName: string, data: Buffer): Promise<Buffer> {
  return nodeCrypto().createHash(hashName.replace("-", "").toLowerCase()).update(data).digest();
}

export async function hmacSha256(key: Buffer | ArrayBuffer | Uint8Array, message: string): Promise<Buffer> {
  return nodeCrypto().createHmac("sha256", Buffer.from(key as ArrayBuffer)).update(message, "utf8").digest();
}

export async function deriveKey(password: string, salt: Uint8Array, iterations: number): Promise<Buffer> {
  return nodeCrypto().pbkdf2Sync(Buffer.from(password, "utf8"), salt, iterations, 32, "sha256");
}

// What the pg driver's lib/crypto/utils.js provides, on node:crypto's synchronous calls. The build puts
// this in its place (scripts/build.mjs): pg's own reaches node:crypto's Web Crypto at load, which costs
// a prompt hook more than the SCRAM exchange itself. Same exports, same results (a Buffer where pg's
// gives an ArrayBuffer; pg only ever wraps them in Buffer.from).
import { createHash, createHmac, pbkdf2Sync, randomBytes as systemRandomBytes } from "node:crypto";

export function randomBytes(length: number): Buffer {
  return systemRandomBytes(length);
}

export async function md5(text: string | Buffer): Promise<string> {
  return createHash("md5").update(text).digest("hex");
}

/** AuthenticationMD5Password: "md5" + md5(md5(password + user) + salt). */
export async function postgresMd5PasswordHash(user: string, password: string, salt: Buffer): Promise<string> {
  const inner = await md5(password + user);
  return "md5" + (await md5(Buffer.concat([Buffer.from(inner), salt])));
}

export async function sha256(data: Buffer | ArrayBuffer | Uint8Array): Promise<Buffer> {
  return createHash("sha256").update(Buffer.from(data as ArrayBuffer)).digest();
}

/** Names as Web Crypto spells them (SHA-256, SHA-384, SHA-512), for channel binding. */
export async function hashByName(hashName: string, data: Buffer): Promise<Buffer> {
  return createHash(hashName.replace("-", "").toLowerCase()).update(data).digest();
}

export async function hmacSha256(key: Buffer | ArrayBuffer | Uint8Array, message: string): Promise<Buffer> {
  return createHmac("sha256", Buffer.from(key as ArrayBuffer)).update(message, "utf8").digest();
}

export async function deriveKey(password: string, salt: Uint8Array, iterations: number): Promise<Buffer> {
  return pbkdf2Sync(Buffer.from(password, "utf8"), salt, iterations, 32, "sha256");
}

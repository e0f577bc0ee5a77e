// node:crypto, loaded on first use: it brings some twenty modules and the streams with it, several
// milliseconds of every hook that never hashes nor draws a random number. By require, not import(): a
// CommonJS hook bundle would start the ES module loader for it.
import { createRequire } from "node:module";

export function nodeCrypto(): typeof import("node:crypto") {
  return (typeof require === "function" ? require("node:crypto") : createRequire(import.meta.url)("node:crypto")) as typeof import("node:crypto");
}

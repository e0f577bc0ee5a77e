// A named pipe for tests of "not a regular file" (Node has no mkfifo of its own).
import { execFileSync } from "node:child_process";

export function mkfifoSync(path: string): void {
  execFileSync("mkfifo", [path]);
}

// Whether a path is a directory now (through links): false for anything missing or unreadable.
import { statSync } from "node:fs";

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

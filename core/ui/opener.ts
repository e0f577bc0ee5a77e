// Opens the page in the person's browser: $BROWSER when set (a command; the URL is its argument),
// else the platform's opener. A failure is reported, never fatal: the URL is printed either way.
import { spawn } from "node:child_process";

export function openerCommand(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.BROWSER) return env.BROWSER;
  return platform === "darwin" ? "open" : "xdg-open";
}

/** Resolves with undefined once the opener exited 0, or with why it failed. */
export function openBrowser(url: string, command = openerCommand()): Promise<string | undefined> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command, [url], { stdio: "ignore", detached: true });
    } catch (error) {
      return resolve(error instanceof Error ? error.message : String(error));
    }
    child.on("error", (error) => resolve(`${command}: ${error.message}`));
    child.on("exit", (code, signal) => resolve(code === 0 ? undefined : `${command} exited with ${code ?? signal}`));
    child.unref();
  });
}

// Opens the page in the person's browser: $BROWSER when set, read as xdg-open and Python's webbrowser read
// it (commands separated by ":", tried in turn; each a command line with the URL at its "%s", or after it),
// else the platform's opener. A failure is reported, never fatal: the URL is printed either way.
import { spawn } from "node:child_process";

/** A command line's words: split at spaces, with "…" or '…' keeping spaces in one word. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2] ?? match[3]!);
}

/** The commands to try in turn, each with the URL in its place. */
export function openerCommands(url: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[][] {
  const lines = env.BROWSER ? env.BROWSER.split(":").filter((line) => line.trim() !== "") : [];
  if (lines.length === 0) return [[platform === "darwin" ? "open" : "xdg-open", url]];
  return lines.map((line) => {
    const command = words(line);
    return command.some((word) => word.includes("%s")) ? command.map((word) => word.replaceAll("%s", url)) : [...command, url];
  });
}

/** Runs one opener; resolves with undefined once it exited 0, or with why it failed. */
function runOpener([command, ...args]: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(command!, args, { stdio: "ignore", detached: true });
    } catch (error) {
      return resolve(`${command}: ${error instanceof Error ? error.message : String(error)}`);
    }
    child.on("error", (error) => resolve(`${command}: ${error.message}`));
    child.on("exit", (code, signal) => resolve(code === 0 ? undefined : `${command} exited with ${code ?? signal}`));
    child.unref();
  });
}

/** Tries each opener until one works; resolves with undefined then, or with why each failed. */
export async function openBrowser(url: string, commands = openerCommands(url)): Promise<string | undefined> {
  const problems: string[] = [];
  for (const command of commands) {
    const problem = await runOpener(command);
    if (problem === undefined) return undefined;
    problems.push(problem);
  }
  return problems.join("; ");
}

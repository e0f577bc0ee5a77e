// Copilot CLI and Grok set up as the end-to-end tests run them: a loopback fake of the chat-completions
// API, an isolated home whose PATH has the host's binary (a wake runs it from there), and the peerpost
// plugin installed; all removed when the test ends. `answer` sets what the fake model does next.
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import { onCleanup } from "./temp.js";
import { contentText, startFakeOpenAIChat, type ChatCall, type ChatScript, type FakeOpenAIChat } from "./fake-openai-chat.js";
import { copilotBinary, installCopilotPlugin, makeCopilotHome, repoRoot, type CopilotHome } from "./copilot-cli.js";
import { grokBinary, installGrokPlugin, makeGrokHome, type GrokHome } from "./grok-cli.js";

export interface ChatHost<Home> {
  fake: FakeOpenAIChat;
  home: Home;
  stateDir: string;
  answer(script: ChatScript): void;
}

/** Grok's own calls that title the session or write its dashboard line: the fake answers them itself. */
export function isHousekeepingCall(call: ChatCall): boolean {
  const last = call.body.messages.at(-1);
  return last?.role === "user" && /ultra-short dashboard line|Generate a session title/.test(contentText(last.content));
}

export async function copilotWithPeerpost(t: TestContext): Promise<ChatHost<CopilotHome>> {
  let script: ChatScript = () => ({ text: "hi" });
  const fake = await startFakeOpenAIChat({ script: (request) => script(request) });
  onCleanup(t, () => fake.close());
  const home = makeCopilotHome();
  onCleanup(t, () => home.cleanup());
  const stateDir = join(home.root, "peerpost");
  Object.assign(home.env, { PEERPOST_HOME: stateDir, PATH: `${dirname(copilotBinary())}:${home.env.PATH ?? process.env.PATH ?? ""}` });
  await installCopilotPlugin(home, repoRoot(), "peerpost@peerpost");
  return { fake, home, stateDir, answer: (next) => void (script = next) };
}

export async function grokWithPeerpost(t: TestContext): Promise<ChatHost<GrokHome>> {
  let script: ChatScript = () => ({ text: "hi" });
  const fake = await startFakeOpenAIChat({ script: (call) => (isHousekeepingCall(call) ? { text: "housekeeping" } : script(call)) });
  onCleanup(t, () => fake.close());
  const home = makeGrokHome({ apiBaseUrl: fake.baseUrl });
  onCleanup(t, () => home.cleanup());
  const stateDir = join(home.root, "peerpost");
  Object.assign(home.env, { PEERPOST_HOME: stateDir, PATH: `${dirname(grokBinary())}:${home.env.PATH ?? process.env.PATH ?? ""}` });
  await installGrokPlugin(home, repoRoot(), "peerpost");
  return { fake, home, stateDir, answer: (next) => void (script = next) };
}

// Model, effort and working dir for a headless run: checked against what the host's CLI can change
// (its Waker's `settings`), before anything is written. A setting the host cannot change is `unsupported`.
import { PeerpostError } from "../common/errors.js";
import type { SessionHost } from "../records/schemas.js";
import type { RunSettings, Waker } from "./waker.js";

/** Model names as the hosts spell them: `opus`, `gpt-5.4`, `grok-4-fast`, `anthropic/claude…`. */
const MODEL_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,63}$/;
const EFFORT_PATTERN = /^[a-z]{1,16}$/;

function unsupported(host: SessionHost, what: string, why: string): PeerpostError {
  return new PeerpostError("unsupported", `${host} cannot change ${what}: ${why}.`, { details: { host, setting: what }, hint: "Leave that setting out, or choose another host." });
}

/** Throws unless every given setting is well formed and the host can change it; returns only the given ones. */
export function checkRunSettings(host: SessionHost, waker: Waker | undefined, settings: RunSettings): RunSettings {
  const checked: RunSettings = {};
  if (settings.model !== undefined) {
    if (!MODEL_PATTERN.test(settings.model))
      throw new PeerpostError("invalid_arguments", `model ${JSON.stringify(settings.model.slice(0, 80))} is not a model name.`, { details: { fields: [{ field: "model", problem: "letters, digits and . _ : / @ - (up to 64)" }] }, hint: "Give the model name as the host's --model flag takes it." });
    if (!waker?.settings.model) throw unsupported(host, "the model", "its CLI has no model flag peerpost verified");
    checked.model = settings.model;
  }
  if (settings.effort !== undefined) {
    if (!waker?.settings.effort) throw unsupported(host, "the reasoning effort", "its CLI has no effort flag peerpost verified");
    const words = waker.settings.efforts;
    if (!EFFORT_PATTERN.test(settings.effort) || (words && !words.includes(settings.effort)))
      throw new PeerpostError("invalid_arguments", `effort ${JSON.stringify(settings.effort.slice(0, 40))} is not one ${host} takes.`, { details: { fields: [{ field: "effort", problem: words ? `one of ${words.join(", ")}` : "a lower-case word" }] }, hint: words ? `Use one of ${words.join(", ")}.` : "Use a word such as low, medium or high." });
    checked.effort = settings.effort;
  }
  return checked;
}

/** The receipt tags that record a run's settings. */
export function settingTags(settings: RunSettings & { cwd?: string | undefined }): string[] {
  return [...(settings.model ? [`model=${settings.model}`] : []), ...(settings.effort ? [`effort=${settings.effort}`] : []), ...(settings.cwd ? [`cwd=${settings.cwd}`.slice(0, 64)] : [])];
}

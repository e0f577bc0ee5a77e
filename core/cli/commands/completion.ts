// peerpost completion bash|zsh: a completion script generated from the command table, so every
// command and flag a module declares completes without further work. Addresses complete from the
// sessions registry (`peerpost completion addresses`, one per line).
import type { Command, FlagSpec } from "../command.js";
import { defineCommand } from "../command.js";
import { withCommonFlags } from "../help.js";
import { openPeerpost } from "../../peerpost.js";

const SHELLS = ["bash", "zsh", "addresses"] as const;

function valuesOf(spec: { choices?: readonly string[] | undefined; complete?: string | undefined } | undefined, commands: readonly Command[]): { words?: string; addresses?: true } {
  if (!spec) return {};
  if (spec.choices) return { words: spec.choices.join(" ") };
  if (spec.complete === "address") return { addresses: true };
  if (spec.complete === "command") return { words: commands.map((command) => command.name).join(" ") };
  return {};
}

function argsSpec(command: Command): { choices?: readonly string[]; complete?: string } {
  const complete = command.args.complete;
  return complete === undefined ? {} : typeof complete === "string" ? { complete } : { choices: complete };
}

function bash(commands: readonly Command[]): string {
  const cases = commands.map((raw) => {
    const command = withCommonFlags(raw);
    const flagCases = Object.entries(command.flags)
      .filter(([, spec]) => spec.type === "string")
      .map(([name, spec]) => {
        const values = valuesOf(spec, commands);
        return `        --${name}) ${values.addresses ? "_peerpost_words \"$cur\" \"$(peerpost completion addresses 2>/dev/null)\"" : values.words ? `_peerpost_words "$cur" "${values.words}"` : ":"}; return;;`;
      });
    const positional = valuesOf(argsSpec(command), commands);
    const positionalLine = positional.addresses ? `_peerpost_words "$cur" "$(peerpost completion addresses 2>/dev/null)"` : positional.words ? `_peerpost_words "$cur" "${positional.words}"` : ":";
    return [
      `    ${command.name})`,
      ...(flagCases.length ? ["      case \"$prev\" in", ...flagCases, "      esac"] : []),
      `      if [[ "$cur" == -* ]]; then _peerpost_words "$cur" "${Object.keys(command.flags).map((name) => `--${name}`).join(" ")}"; else ${positionalLine}; fi;;`,
    ].join("\n");
  });
  return `# bash completion for peerpost. Load it with: source <(peerpost completion bash)
# Words are read from the line itself, so addresses with a colon (claude:abc) complete as one word.
_peerpost_words() {
  COMPREPLY=($(compgen -W "$2" -- "$1"))
  if [[ "$1" == *:* && "$COMP_WORDBREAKS" == *:* ]]; then
    local colon="\${1%"\${1##*:}"}"
    COMPREPLY=("\${COMPREPLY[@]#"$colon"}")
  fi
}
_peerpost() {
  local line="\${COMP_LINE:0:COMP_POINT}" cur prev
  local -a words
  read -ra words <<< "$line"
  if [[ "$line" == *[[:space:]] ]]; then cur=""; else cur="\${words[\${#words[@]}-1]}"; unset 'words[\${#words[@]}-1]'; fi
  prev="\${words[\${#words[@]}-1]}"
  if (( \${#words[@]} == 1 )); then _peerpost_words "$cur" "${commands.map((command) => command.name).join(" ")}"; return; fi
  case "\${words[1]}" in
${cases.join("\n")}
  esac
}
complete -F _peerpost peerpost
`;
}

/** Quotes text for a zsh single-quoted _arguments spec: brackets and colons are spec syntax. */
function zshText(text: string): string {
  return text.replace(/'/g, "'\\''").replace(/([[\]:])/g, "\\$1");
}

function zshAction(values: { words?: string; addresses?: true }): string {
  return values.addresses ? "_peerpost_addresses" : values.words ? `(${values.words})` : " ";
}

function zshFlag(name: string, spec: FlagSpec, commands: readonly Command[]): string {
  const help = zshText(spec.help.split(". ")[0]!.replace(/\.$/, ""));
  return spec.type === "boolean" ? `'--${name}[${help}]'` : `'--${name}[${help}]:${spec.value ?? "value"}:${zshAction(valuesOf(spec, commands))}'`;
}

function zsh(commands: readonly Command[]): string {
  const cases = commands.map((raw) => {
    const command = withCommonFlags(raw);
    const specs = Object.entries(command.flags).map(([name, spec]) => zshFlag(name, spec, commands));
    if (command.args.max > 0) specs.push(`'*:${zshText(command.args.name || "argument")}:${zshAction(valuesOf(argsSpec(command), commands))}'`);
    return `        ${command.name}) _arguments ${specs.join(" ")} ;;`;
  });
  return `#compdef peerpost
# zsh completion for peerpost. Load it with: source <(peerpost completion zsh)   (after compinit),
# or save it as _peerpost in a directory on $fpath.
_peerpost_addresses() {
  local -a addresses
  addresses=(\${(f)"$(peerpost completion addresses 2>/dev/null)"})
  compadd -a addresses
}
_peerpost() {
  local curcontext="$curcontext" state line
  local -a commands
  commands=(${commands.map((command) => `'${command.name}:${command.summary.replace(/'/g, "'\\''")}'`).join(" ")})
  _arguments -C '1: :->command' '*:: :->args' && return
  case $state in
    command) _describe -t commands 'peerpost command' commands ;;
    args)
      case $words[1] in
${cases.join("\n")}
      esac ;;
  esac
}
if (( $+functions[compdef] )); then compdef _peerpost peerpost; fi
`;
}

export const completionCommand = defineCommand({
  name: "completion",
  summary: "print a shell completion script (bash or zsh)",
  usage: "bash|zsh",
  details: "bash: add `source <(peerpost completion bash)` to ~/.bashrc. zsh: add `source <(peerpost completion zsh)` to ~/.zshrc after compinit. The scripts complete commands, flags, their values, and addresses of known sessions (`peerpost completion addresses`).",
  flags: {},
  args: { min: 1, max: 1, name: "the shell: bash or zsh", complete: ["bash", "zsh"] },
  examples: ["source <(peerpost completion bash)", "peerpost completion zsh > ~/.zsh/completions/_peerpost"],
  json: false,
  run({ args, commands, usageError }) {
    const shell = args[0]!;
    if (!(SHELLS as readonly string[]).includes(shell)) throw usageError(`knows bash and zsh, not ${JSON.stringify(shell)}`);
    if (shell === "addresses") {
      // Completion must never print an error into the shell: no state dir yet means no addresses.
      const peerpost = openPeerpost({ create: false });
      for (const session of peerpost?.sessions.all() ?? []) process.stdout.write(`${session.address}\n`);
      return 0;
    }
    const listed = commands.filter((command) => !command.hidden);
    process.stdout.write(shell === "bash" ? bash(listed) : zsh(listed));
    return 0;
  },
});

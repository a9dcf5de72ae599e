import type { Command } from 'commander';
import type { CliIo } from '../io.js';
import { UnusableInput } from '../io.js';

/** A command of the tree: its path of names, its subcommands and its options (long flags, with the choices of those that have some). */
interface CommandNode {
  path: string[];
  subcommands: string[];
  options: Array<{ flag: string; choices?: readonly string[] }>;
}

/** Every command of the program with its path, subcommands and options (help and version included). */
function commandTree(root: Command): CommandNode[] {
  const nodes: CommandNode[] = [];
  const walk = (command: Command, path: string[]) => {
    const options = command.options
      .map((option) => ({ flag: option.long ?? '', ...(option.argChoices ? { choices: option.argChoices } : {}) }))
      .filter((option) => option.flag !== '');
    nodes.push({ path, subcommands: command.commands.map((sub) => sub.name()), options: [...options, { flag: '--help' }] });
    for (const sub of command.commands) walk(sub, [...path, sub.name()]);
  };
  walk(root, []);
  return nodes;
}

const words = (list: readonly string[]) => list.join(' ');

/** Bash (also loaded by zsh's bashcompinit): subcommands, then the options of the command typed, choices after an option that has some, else files. */
function bash(nodes: CommandNode[]): string {
  const cases = nodes
    .map((node) => {
      const key = node.path.join(' ');
      const choices = node.options
        .filter((option) => option.choices)
        .map((option) => `        ${option.flag}) COMPREPLY=($(compgen -W "${words(option.choices!)}" -- "$cur")); return ;;`)
        .join('\n');
      return `    "${key}")\n      case "$prev" in\n${choices}${choices ? '\n' : ''}      esac\n      words_="${words([...node.subcommands, ...node.options.map((option) => option.flag)])}" ;;`;
    })
    .join('\n');
  return `# bash completion for eql (eql completion bash > ~/.local/share/bash-completion/completions/eql)
_eql() {
  local cur prev path_ words_ i
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  path_=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      -*) ;;
      *) if [[ " $(_eql_subcommands "$path_") " == *" \${COMP_WORDS[i]} "* ]]; then path_="\${path_:+$path_ }\${COMP_WORDS[i]}"; fi ;;
    esac
  done
  case "$path_" in
${cases}
  esac
  local subs_
  subs_="$(_eql_subcommands "$path_")"
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$words_" -- "$cur"))
  elif [[ -n "$subs_" ]]; then
    COMPREPLY=($(compgen -W "$subs_" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
_eql_subcommands() {
  case "$1" in
${nodes.map((node) => `    "${node.path.join(' ')}") echo "${words(node.subcommands)}" ;;`).join('\n')}
  esac
}
complete -o filenames -F _eql eql
`;
}

/** Fish: one `complete` line per subcommand and per option, each under the condition of the command it belongs to. */
function fish(nodes: CommandNode[]): string {
  const lines = ['# fish completion for eql (eql completion fish > ~/.config/fish/completions/eql.fish)'];
  for (const node of nodes) {
    const condition = node.path.length === 0 ? '__fish_use_subcommand' : `__fish_seen_subcommand_from ${node.path[node.path.length - 1]}`;
    for (const sub of node.subcommands) lines.push(`complete -c eql -n '${condition}' -a '${sub}'`);
    for (const option of node.options) lines.push(`complete -c eql -n '${condition}' -l '${option.flag.slice(2)}'${option.choices ? ` -xa '${words(option.choices)}'` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * `eql completion bash|zsh|fish`: a completion script made from the commands and options of this `eql`
 * (subcommands such as `keys rotate`, options with their choices, files). zsh loads the bash script
 * through bashcompinit.
 */
export function completionCommand(shell: string, root: Command, io: CliIo): number {
  const nodes = commandTree(root);
  if (shell === 'bash') io.stdout(bash(nodes));
  else if (shell === 'zsh') io.stdout(`# zsh completion for eql (eql completion zsh > ~/.zfunc/eql.zsh, then source it from ~/.zshrc)\nautoload -U +X bashcompinit && bashcompinit\n${bash(nodes)}`);
  else if (shell === 'fish') io.stdout(fish(nodes));
  else throw new UnusableInput(`no completion for ${shell}: bash, zsh or fish`);
  return 0;
}

"""``pincompute completion bash|zsh|fish``: the scripts are generated from the parser (``cli.build_parser``), so a
command or option added there completes without touching this module. Commands, each command's options, the
values of options with a fixed set (``-o``), kinds (from the registry) as a command's first argument, and the names
of the workloads of that kind as its second (``pincompute get KIND -n PROJECT -o name``, at completion time)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import TextIO

from pinconsole_sdk.cli_output import FORMATS
from pinconsole_sdk.models import KINDS, kind_names

SHELLS = ("bash", "zsh", "fish")
KIND_ARGUMENTS = ("resources", "resource")  # positionals that take KIND [NAME] or KIND/NAME


@dataclass
class Command:
    name: str
    help: str = ""
    flags: list[str] = field(default_factory=list)  # options without a value
    valued: list[str] = field(default_factory=list)  # options that take one
    choices: dict[str, list[str]] = field(default_factory=dict)  # option or "" (a positional) -> its values
    files: list[str] = field(default_factory=list)  # options whose value is a file
    kinds: bool = False  # its first positional is a kind


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    for action in parser._actions:  # argparse has no public walk of its parsers
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise ValueError("the parser has no commands")


def _describe(name: str, parser: argparse.ArgumentParser, helps: dict[str, str]) -> Command:
    command = Command(name, helps.get(name, ""))
    for action in parser._actions:
        if not action.option_strings:
            if action.dest in KIND_ARGUMENTS:
                command.kinds = True
            elif action.choices:
                command.choices[""] = [str(c) for c in action.choices]
            continue
        if action.help == argparse.SUPPRESS:
            continue
        target = command.flags if action.nargs == 0 else command.valued
        target += action.option_strings
        values = [*FORMATS, "jsonpath="] if action.dest == "output" else [str(c) for c in action.choices or []]
        for option in action.option_strings:
            if values:
                command.choices[option] = values
            if action.dest == "filename":
                command.files.append(option)
    return command


def commands(parser: argparse.ArgumentParser) -> list[Command]:
    sub = _subparsers(parser)
    helps = {str(a.dest): str(a.help or "") for a in sub._choices_actions}
    return [_describe(name, p, helps) for name, p in sub.choices.items()]


def kind_words() -> list[str]:
    return sorted({*(name for kind in KINDS for name in kind_names(kind)), "all", "pods", "workload"})


def _names_call(shell: str) -> str:
    """The command that lists a kind's names at completion time (``$kind``, ``$project`` set by the script)."""
    if shell == "fish":
        return "pincompute get $kind $project -o name 2>/dev/null | string replace -r '.*/' ''"
    return 'pincompute get "$kind" ${project:+-n "$project"} -o name 2>/dev/null | sed "s|.*/||"'


def bash(cmds: list[Command]) -> str:
    valued = sorted({o for c in cmds for o in c.valued})
    lines = [
        '# pincompute bash completion: eval "$(pincompute completion bash)"',
        "_pincompute() {",
        '    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"',
        '    local i cmd="" project="" args=()',
        "    for (( i=1; i < COMP_CWORD; i++ )); do",
        '        case "${COMP_WORDS[i]}" in',
        '            -n|--namespace|--project|-p) project="${COMP_WORDS[i+1]}"; (( i++ )) ;;',
        f"            {'|'.join(valued)}) (( i++ )) ;;",
        "            -*) ;;",
        '            *) if [[ -z "$cmd" ]]; then cmd="${COMP_WORDS[i]}"; else args+=("${COMP_WORDS[i]}"); fi ;;',
        "        esac",
        "    done",
        '    if [[ -z "$cmd" ]]; then',
        f'        COMPREPLY=( $(compgen -W "{" ".join(c.name for c in cmds)}" -- "$cur") ); return',
        "    fi",
        '    case "$cmd" in',
    ]
    for c in cmds:
        lines.append(f"        {c.name})")
        lines.append('            case "$prev" in')
        for option, values in sorted(c.choices.items()):
            if option:
                words = " ".join(values)
                lines.append(f'                {option}) COMPREPLY=( $(compgen -W "{words}" -- "$cur") ); return ;;')
        if c.files:
            lines.append(f'                {"|".join(c.files)}) COMPREPLY=( $(compgen -f -- "$cur") ); return ;;')
        others = [o for o in c.valued if o not in c.choices and o not in c.files]
        if others:
            lines.append(f"                {'|'.join(others)}) return ;;")
        lines.append("            esac")
        lines.append(
            f'            if [[ "$cur" == -* ]]; then COMPREPLY=( $(compgen -W "{" ".join(c.flags + c.valued)}" '
            '-- "$cur") ); return; fi'
        )
        if "" in c.choices:
            lines.append(f'            COMPREPLY=( $(compgen -W "{" ".join(c.choices[""])}" -- "$cur") ) ;;')
        elif c.kinds:
            lines.append(
                f'            if (( ${{#args[@]}} == 0 )); then COMPREPLY=( $(compgen -W "{" ".join(kind_words())}" '
                '-- "$cur") ); return; fi'
            )
            lines.append('            local kind="${args[0]}"')
            lines.append(f'            COMPREPLY=( $(compgen -W "$({_names_call("bash")})" -- "$cur") ) ;;')
        else:
            lines.append("            ;;")
    lines += ["    esac", "}", "complete -F _pincompute pincompute", ""]
    return "\n".join(lines)


def zsh(cmds: list[Command]) -> str:
    """A native zsh function (``compdef``): the same rules as bash, with zsh's ``compadd``."""
    valued = sorted({o for c in cmds for o in c.valued})
    lines = [
        "#compdef pincompute",
        "# pincompute zsh completion: source <(pincompute completion zsh), or save it as _pincompute in $fpath",
        "_pincompute() {",
        '  local i cmd="" project="" cur="${words[CURRENT]}" prev="${words[CURRENT-1]}"',
        "  local -a args",
        "  for (( i=2; i < CURRENT; i++ )); do",
        '    case "${words[i]}" in',
        '      -n|--namespace|--project|-p) project="${words[i+1]}"; (( i++ )) ;;',
        f"      {'|'.join(valued)}) (( i++ )) ;;",
        "      -*) ;;",
        '      *) if [[ -z "$cmd" ]]; then cmd="${words[i]}"; else args+=("${words[i]}"); fi ;;',
        "    esac",
        "  done",
        '  if [[ -z "$cmd" ]]; then',
        "    local -a commands",
        "    commands=(" + " ".join(f"'{c.name}:{_zsh_quote(c.help)}'" for c in cmds) + ")",
        "    _describe command commands; return",
        "  fi",
        '  case "$cmd" in',
    ]
    for c in cmds:
        lines.append(f"    {c.name})")
        lines.append('      case "$prev" in')
        for option, values in sorted(c.choices.items()):
            if option:
                lines.append(f"        {option}) compadd -- {' '.join(values)}; return ;;")
        if c.files:
            lines.append(f"        {'|'.join(c.files)}) _files; return ;;")
        others = [o for o in c.valued if o not in c.choices and o not in c.files]
        if others:
            lines.append(f"        {'|'.join(others)}) return ;;")
        lines.append("      esac")
        lines.append(f'      if [[ "$cur" == -* ]]; then compadd -- {" ".join(c.flags + c.valued)}; return; fi')
        if "" in c.choices:
            lines.append(f"      compadd -- {' '.join(c.choices[''])} ;;")
        elif c.kinds:
            lines.append(f"      if (( ${{#args}} == 0 )); then compadd -- {' '.join(kind_words())}; return; fi")
            lines.append('      local kind="${args[1]}"')
            lines.append(f'      compadd -- ${{(f)"$({_names_call("zsh")})"}} ;;')
        else:
            lines.append("      ;;")
    lines += [
        "  esac",
        "}",
        'if [[ "$funcstack[1]" == "_pincompute" ]]; then _pincompute "$@"; else compdef _pincompute pincompute; fi',
        "",
    ]
    return "\n".join(lines)


def _zsh_quote(text: str) -> str:
    return text.replace("'", "'\\''").replace(":", "\\:")


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(cmds: list[Command]) -> str:
    names = " ".join(c.name for c in cmds)
    lines = [
        "# pincompute fish completion: pincompute completion fish | source",
        "complete -c pincompute -f",
        "function __pincompute_names",
        "    set -l words (commandline -opc)",
        "    set -l kind $words[3]",
        "    set -l project",
        "    set -l i (contains -i -- -n $words; or contains -i -- --namespace $words)",
        '    if test -n "$i"; set project -n $words[(math $i + 1)]; end',
        f"    {_names_call('fish')}",
        "end",
        "function __pincompute_needs_kind",
        "    set -l words (commandline -opc)",
        "    test (count $words) -eq 2",
        "end",
        "function __pincompute_needs_name",
        "    set -l words (commandline -opc)",
        "    test (count $words) -eq 3",
        "end",
    ]
    for c in cmds:
        first = f"not __fish_seen_subcommand_from {names}"
        lines.append(f"complete -c pincompute -n '{first}' -a {c.name} -d {_fish_quote(c.help)}")
        seen = f"__fish_seen_subcommand_from {c.name}"
        for option in c.flags + c.valued:
            spec = f"-s {option[1:]}" if len(option) == 2 else f"-l {option[2:]}"
            values = c.choices.get(option)
            if values:
                extra = f" -x -a {_fish_quote(' '.join(values))}"
            elif option in c.files:
                extra = " -r -F"
            else:
                extra = " -x" if option in c.valued else ""
            lines.append(f"complete -c pincompute -n '{seen}' {spec}{extra}")
        if "" in c.choices:
            lines.append(f"complete -c pincompute -n '{seen}' -a {_fish_quote(' '.join(c.choices['']))}")
        elif c.kinds:
            kinds = _fish_quote(" ".join(kind_words()))
            lines.append(f"complete -c pincompute -n '{seen}; and __pincompute_needs_kind' -a {kinds}")
            lines.append(f"complete -c pincompute -n '{seen}; and __pincompute_needs_name' -a '(__pincompute_names)'")
    lines.append("")
    return "\n".join(lines)


def cmd_completion(parser: argparse.ArgumentParser, shell: str, out: TextIO) -> int:
    cmds = commands(parser)
    out.write({"bash": bash, "zsh": zsh, "fish": fish}[shell](cmds))
    return 0

"""Static bash, zsh and fish completion scripts for ``mqadmin``, ``mqcontroller`` and ``mqagent``.

The scripts are generated from the typer/click command tree and committed under ``completions/``, so pressing TAB
never starts Python (~150 ms) and works without the venv active::

    python -m mqadmin_py.completions [--dir completions]   # (re)write the 9 scripts
    python -m mqadmin_py.completions --check                # exit 1 naming the stale ones

What completes: visible command and sub-command names (hidden kebab-case aliases are not offered, but once typed
their options complete), every visible option's spellings, choice/enum values, files for path-typed options and
arguments (directories when the type allows only directories), and, for options typed as plain strings, files or
directories when the option's name says so (``--dir``, ``--...File``). Typer ``autocompletion=`` callbacks are
dynamic and are not run.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path
from typing import Literal

import typer
import typer.main
from typer.core import TyperArgument, TyperGroup, TyperOption
from typer.models import TyperPath

from mqadmin_py.typer_private import Command as ClickCommand
from mqadmin_py.typer_private import File, StringParamType, TyperChoice

#: Program name -> ``module:attribute`` of its typer app.
PROGRAMS: dict[str, str] = {
    "mqadmin": "mqadmin_py.app:app",
    "mqcontroller": "mqadmin_py.mqcontroller:app",
    "mqagent": "mqadmin_py.mqagent:app",
}
SHELLS: tuple[str, ...] = ("bash", "zsh", "fish")
DEFAULT_DIR = Path("completions")
REGENERATE = "make completions"

# The scripts embed names unquoted in case patterns and word lists; anything else must fail loudly here.
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
_OPTION = re.compile(r"--?[A-Za-z0-9][A-Za-z0-9_.-]*")
_CHOICE = re.compile(r"[A-Za-z0-9_.+,@%/-]+")

ValueKind = Literal["none", "choice", "file", "dir"]


@dataclass(frozen=True)
class Value:
    """What completes as the value of an option or argument."""

    kind: ValueKind = "none"
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Option:
    names: tuple[str, ...]  # every spelling, short ones first
    nargs: int  # values taken: 0 for a flag
    value: Value
    help: str
    multiple: bool  # may be given more than once (a list or a count)
    hidden: bool


@dataclass(frozen=True)
class Argument:
    name: str
    nargs: int  # -1: takes every remaining word
    value: Value
    help: str


@dataclass(frozen=True)
class Command:
    """A shell-neutral view of one click command, enough to write every script from."""

    path: tuple[str, ...]  # names below the program; () is the program itself
    help: str
    hidden: bool
    is_group: bool
    options: tuple[Option, ...]
    arguments: tuple[Argument, ...]
    subcommands: tuple[Command, ...]  # visible ones first, each part sorted by name

    @property
    def name(self) -> str:
        return self.path[-1] if self.path else ""

    def walk(self) -> Iterator[Command]:
        """This command and every command below it, hidden ones included."""
        yield self
        for sub in self.subcommands:
            yield from sub.walk()

    def visible_subcommands(self) -> tuple[Command, ...]:
        return tuple(c for c in self.subcommands if not c.hidden)

    def visible_options(self) -> tuple[Option, ...]:
        return tuple(o for o in self.options if not o.hidden)

    def own(self) -> tuple[object, ...]:
        """Everything this command contributes to a script at its own level (two equal ones share script code)."""
        subs = tuple((c.name, c.help) for c in self.visible_subcommands())
        return (self.is_group, self.options, self.arguments, subs)


@dataclass(frozen=True)
class Program:
    name: str
    root: Command


# --- reading the click tree ---------------------------------------------------------------------


def _summary(text: str | None, limit: int = 80) -> str:
    """First sentence of the first paragraph, on one line: descriptions in zsh and fish menus."""
    paragraph = (text or "").strip().split("\n\n")[0]
    line = " ".join(paragraph.split())
    match = re.match(r"(.+?\.)(\s+[A-Z]|$)", line)  # not at "e.g. x" or "i.e. y"
    if match:
        line = match.group(1)
    if len(line) > limit:
        line = line[: limit - 3].rsplit(" ", 1)[0] + "..."
    return line


def _value(param: TyperOption | TyperArgument, names: tuple[str, ...]) -> Value:
    """From the parameter's click type; for a plain string only, from its name (``--dir``, ``--configFile``)."""
    ptype = param.type
    if isinstance(ptype, TyperChoice):
        choices = tuple(str(c.value) if isinstance(c, Enum) else str(c) for c in ptype.choices)
        for choice in choices:
            if not _CHOICE.fullmatch(choice):
                raise ValueError(f"{names[-1]}: choice {choice!r} needs quoting the generator does not do")
        return Value("choice", choices)
    if isinstance(ptype, TyperPath):
        return Value("dir" if ptype.dir_okay and not ptype.file_okay else "file")
    if isinstance(ptype, File):
        return Value("file")
    if isinstance(ptype, StringParamType):
        word = max(names, key=len).lstrip("-").lower()
        if word.endswith(("dir", "directory")):
            return Value("dir")
        if word.endswith(("file", "path")):
            return Value("file")
    return Value()


def _option(param: TyperOption) -> Option:
    names = tuple(sorted([*param.opts, *param.secondary_opts], key=lambda n: (n.startswith("--"), n)))
    for name in names:
        if not _OPTION.fullmatch(name):
            raise ValueError(f"option {name!r} needs quoting the generator does not do")
    nargs = 0 if param.is_flag or param.count else param.nargs
    value = _value(param, names) if nargs else Value()
    return Option(names, nargs, value, _summary(param.help), param.multiple or param.count, param.hidden)


def _argument(param: TyperArgument) -> Argument:
    name = str(param.name).replace("_", "-")
    return Argument(name, param.nargs, _value(param, (name,)), _summary(param.help))


def _command(cmd: ClickCommand, path: tuple[str, ...], ctx: typer.Context) -> Command:
    options: list[Option] = []
    arguments: list[Argument] = []
    for param in cmd.get_params(ctx):  # with the help option, whose names the context decides
        if isinstance(param, TyperOption):
            options.append(_option(param))
        elif isinstance(param, TyperArgument):
            arguments.append(_argument(param))
    subs: list[Command] = []
    if isinstance(cmd, TyperGroup):
        for name, sub in cmd.commands.items():
            if not _NAME.fullmatch(name):
                raise ValueError(f"command {name!r} needs quoting the generator does not do")
            sub_ctx = typer.Context(sub, parent=ctx, info_name=name, **sub.context_settings)
            subs.append(_command(sub, (*path, name), sub_ctx))
        for alias, target in getattr(cmd, "aliases", {}).items():  # AliasGroup: kebab-case names, never offered
            if not _NAME.fullmatch(alias):
                raise ValueError(f"command alias {alias!r} needs quoting the generator does not do")
            sub = cmd.commands[target]
            sub_ctx = typer.Context(sub, parent=ctx, info_name=alias, **sub.context_settings)
            subs.append(replace(_command(sub, (*path, alias), sub_ctx), hidden=True))
    subs.sort(key=lambda c: (c.hidden, c.name))
    help_text = cmd.short_help or cmd.help
    return Command(path, _summary(help_text), cmd.hidden, isinstance(cmd, TyperGroup), tuple(options), tuple(arguments),
                   tuple(subs))  # fmt: skip


def program_from_app(name: str, app: typer.Typer) -> Program:
    """Read a typer app's whole command tree, hidden commands and options included."""
    cmd = typer.main.get_command(app)
    ctx = typer.Context(cmd, info_name=name, **cmd.context_settings)
    return Program(name, _command(cmd, (), ctx))


def load_program(name: str) -> Program:
    """Import one of `PROGRAMS` and read its command tree."""
    module_name, attribute = PROGRAMS[name].split(":")
    app = getattr(importlib.import_module(module_name), attribute)
    if not isinstance(app, typer.Typer):
        raise TypeError(f"{PROGRAMS[name]} is not a typer app")
    return program_from_app(name, app)


def load_programs() -> list[Program]:
    return [load_program(name) for name in PROGRAMS]


# --- shared rendering helpers -------------------------------------------------------------------


def _q(text: str) -> str:
    """Single-quote for bash and zsh."""
    return "'" + text.replace("'", "'\\''") + "'"


def _fish_q(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _header(program: str, shell: str) -> list[str]:
    return [
        f"# {shell} completion for {program}, generated from its CLI by `python -m mqadmin_py.completions`.",
        f"# Do not edit: run `{REGENERATE}`. Static: nothing runs Python at TAB time. Install: completions/README.md.",
    ]


def _case_arms(arms: list[tuple[str, str]], indent: str, width: int = 116) -> list[str]:
    """``case`` arms, one per distinct body, in first-seen order, with every key that shares the body."""
    bodies: dict[str, list[str]] = {}
    for key, body in arms:
        keys = bodies.setdefault(body, [])
        if key not in keys:
            keys.append(key)
    lines: list[str] = []
    for body, keys in bodies.items():
        patterns = [_q(k) if not k.endswith("*") else _q(k[:-1]) + "*" for k in keys]
        row = indent
        for n, pattern in enumerate(patterns):
            piece = pattern + (")" if n == len(patterns) - 1 else " |")
            if row.strip() and len(row) + len(piece) > width:
                lines.append(row + "\\")
                row = indent + "    "
            row += piece if not row.strip() else " " + piece
        if "\n" in body:  # a nested block, indented one level below its patterns
            lines += [row, *(f"{indent}    {line}" for line in body.split("\n")), f"{indent}    ;;"]
        else:
            lines.append(f"{row} {body};;" if body else f"{row} ;;")
    return lines


def _key(path: tuple[str, ...]) -> str:
    return " ".join(path)


# --- bash ---------------------------------------------------------------------------------------


def _bash_gen(value: Value) -> str:
    if value.kind == "choice":
        return f"gen=(-W {_q(' '.join(value.choices))}) "
    if value.kind == "file":
        return "gen=(-f) "
    if value.kind == "dir":
        return "gen=(-d) "
    return ""


def render_bash(program: Program) -> str:
    """One ``complete -F`` function: walks COMP_WORDS to the command path, then completes from case tables."""
    sub_arms: list[tuple[str, str]] = []  # "path|word" -> enter the sub-command
    need_arms: list[tuple[str, str]] = []  # path -> which options take how many values
    value_arms: list[tuple[str, str]] = []  # path -> how each option's value completes
    option_arms: list[tuple[str, str]] = []  # path -> the options offered
    word_arms: list[tuple[str, str]] = []  # "path|position" -> a non-option word
    for cmd in program.root.walk():
        key = _key(cmd.path)
        sub_arms += [(f"{key}|{sub.name}", "path=${path:+$path }$word pos=0 ") for sub in cmd.subcommands]
        takes = [o for o in cmd.options if o.nargs]
        if takes:
            inner = [(n, f"need={o.nargs} ") for o in takes for n in o.names]
            need_arms.append((key, "\n".join(["case $word in", *_case_arms(inner, "", 100), "esac"])))
        values = [(n, _bash_gen(o.value)) for o in takes for n in o.names if _bash_gen(o.value)]
        if values:
            value_arms.append((key, "\n".join(["case $opt in", *_case_arms(values, "", 104), "esac"])))
        offered = " ".join(n for o in cmd.visible_options() for n in o.names)
        if offered:
            option_arms.append((key, f"gen=(-W {_q(offered)}) "))
        if cmd.is_group:
            names = " ".join(c.name for c in cmd.visible_subcommands())
            if names:
                word_arms.append((f"{key}|0", f"gen=(-W {_q(names)}) "))
            continue
        variadic = bool(cmd.arguments) and cmd.arguments[-1].nargs < 0
        fixed = cmd.arguments[:-1] if variadic else cmd.arguments
        word_arms += [(f"{key}|{index}", _bash_gen(arg.value)) for index, arg in enumerate(fixed)]
        if variadic:
            word_arms.append((f"{key}|*", _bash_gen(cmd.arguments[-1].value)))
        elif offered:  # no argument expected here: offer the options
            word_arms.append((f"{key}|*", f"gen=(-W {_q(offered)}) "))
    fn = "_" + re.sub(r"\W", "_", program.name)
    i4, i8, i12 = " " * 4, " " * 8, " " * 12
    lines = [
        *_header(program.name, "bash"),
        "",
        f"{fn}() {{",
        f"{i4}local cur=${{COMP_WORDS[COMP_CWORD]}} path='' word='' opt='' prefix='' i need=0 pos=0",
        f"{i4}local -a gen=()",
        f"{i4}COMPREPLY=()",
        f"{i4}# Walk the words before the cursor: sub-commands extend the path, options skip their values.",
        f"{i4}for ((i = 1; i < COMP_CWORD; i++)); do",
        f"{i8}word=${{COMP_WORDS[i]}}",
        f"{i8}if ((need > 0)); then",
        f"{i12}[[ $word == = ]] || need=$((need - 1))  # COMP_WORDBREAKS splits --opt=value into 3 words",
        f"{i12}continue",
        f"{i8}fi",
        f"{i8}case $word in",
        f"{i8}-*)",
        f"{i12}opt=$word",
        f"{i12}case $path in",
        *_case_arms(need_arms, i12),
        f"{i12}esac",
        f"{i12};;",
        f"{i8}*)",
        f'{i12}case "$path|$word" in',
        *_case_arms(sub_arms, i12),
        f"{i12}*) pos=$((pos + 1)) ;;",
        f"{i12}esac",
        f"{i12};;",
        f"{i8}esac",
        f"{i4}done",
        f"{i4}if ((need == 0)) && [[ $cur == -*=* ]]; then  # --opt=value as one word",
        f"{i8}opt=${{cur%%=*}} prefix=${{cur%%=*}}= cur=${{cur#*=}} need=1",
        f"{i4}fi",
        f"{i4}if ((need > 0)); then",
        f"{i8}[[ $cur == = ]] && cur=''",
        f"{i8}case $path in",
        *_case_arms(value_arms, i8),
        f"{i8}esac",
        f"{i4}elif [[ $cur == -* ]]; then",
        f"{i8}case $path in",
        *_case_arms(option_arms, i8),
        f"{i8}esac",
        f"{i4}else",
        f'{i8}case "$path|$pos" in',
        # Every "path|N" arm before any "path|*" arm: bodies are merged within each part only.
        *_case_arms([a for a in word_arms if not a[0].endswith("*")], i8),
        *_case_arms([a for a in word_arms if a[0].endswith("*")], i8),
        f"{i8}esac",
        f"{i4}fi",
        f"{i4}((${{#gen[@]}})) || return 0",
        f"{i4}[[ ${{gen[0]}} == -W ]] || compopt -o filenames 2>/dev/null",
        f"{i4}while IFS= read -r word; do",
        f'{i8}COMPREPLY+=("$prefix$word")',
        f'{i4}done < <(compgen "${{gen[@]}}" -- "$cur")',
        f"{i4}return 0",
        "}",
        "",
        f"complete -F {fn} {program.name}",
        "",
    ]
    return "\n".join(lines)


# --- zsh ----------------------------------------------------------------------------------------


def _zsh_action(value: Value) -> str:
    if value.kind == "choice":
        return "(" + " ".join(value.choices) + ")"
    if value.kind == "file":
        return "_files"
    if value.kind == "dir":
        return "_files -/"
    return " "  # a value is required but nothing can be offered


def _zsh_desc(text: str) -> str:
    return text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")


def _zsh_specs(cmd: Command) -> list[str]:
    specs: list[str] = []
    for opt in cmd.visible_options():
        exclude = "*" if opt.multiple else "(" + " ".join(opt.names) + ")"
        message = opt.names[-1].lstrip("-")
        values = "".join(f":{message}:{_zsh_action(opt.value)}" for _ in range(opt.nargs))
        specs.extend(f"{exclude}{name}[{_zsh_desc(opt.help)}]{values}" for name in opt.names)
    for index, arg in enumerate(cmd.arguments, start=1):
        position = "*" if arg.nargs < 0 else str(index)
        specs.append(f"{position}:{arg.name}:{_zsh_action(arg.value)}")
    return specs


def render_zsh(program: Program) -> str:
    """A ``#compdef`` file: one ``_arguments`` function per command, groups dispatch with ``->state``."""
    fn_root = "_" + re.sub(r"\W", "_", program.name)
    functions: dict[str, str] = {}  # name -> body
    by_body: dict[str, str] = {}  # body -> name (equal commands, e.g. hidden aliases, share one function)

    def render(cmd: Command) -> str:
        name = fn_root + "".join("__" + part for part in cmd.path)
        specs = _zsh_specs(cmd)
        if not cmd.is_group:
            body = ["  _arguments" + (" \\" if specs else "")]
            body += [f"    {_q(s)}" + (" \\" if n < len(specs) - 1 else "") for n, s in enumerate(specs)]
        else:
            dispatch: dict[str, list[str]] = {}
            for sub in cmd.subcommands:
                dispatch.setdefault(render(sub), []).append(sub.name)
            described = [f"{c.name}:{c.help}" for c in cmd.visible_subcommands()]
            label = " ".join((program.name, *cmd.path))
            body = [
                "  local curcontext=$curcontext state state_descr line ret=1",
                "  local -A opt_args",
                "  _arguments -C \\",
                *[f"    {_q(s)} \\" for s in specs],
                "    ': :->command' \\",
                "    '*:: :->argument' && ret=0",
                "  case $state in",
                "  (command)",
                "    local -a commands=(",
                *[f"      {_q(d)}" for d in described],
                "    )",
                f"    _describe -t commands {_q(label + ' command')} commands && ret=0",
                "    ;;",
                "  (argument)",
                f"    curcontext=${{curcontext%:*:*}}:{'-'.join((program.name, *cmd.path))}-$words[1]:",
                "    case $words[1] in",
                *[f"    ({'|'.join(names)}) {fn} && ret=0 ;;" for fn, names in dispatch.items()],
                "    esac",
                "    ;;",
                "  esac",
                "  return ret",
            ]
        text = "\n".join(body)
        if text in by_body and cmd.path:
            return by_body[text]
        by_body.setdefault(text, name)
        functions[name] = text
        return name

    render(program.root)
    lines = [f"#compdef {program.name}", *_header(program.name, "zsh"), ""]
    for name in sorted(functions, key=lambda n: (n != fn_root, n)):
        lines += [f"{name}() {{", functions[name], "}", ""]
    lines += [
        "# Autoloaded from $fpath this file is the body of " + fn_root + "; sourced (after compinit) it registers.",
        f"if [[ $funcstack[1] == {fn_root} ]]; then",
        f'  {fn_root} "$@"',
        "else",
        f"  compdef {fn_root} {program.name}",
        "fi",
        "",
    ]
    return "\n".join(lines)


# --- fish ---------------------------------------------------------------------------------------


def render_fish(program: Program) -> str:
    """``complete`` lines, each conditioned on the command path a helper function reads from the command line."""
    prog = program.name
    fn = "__" + re.sub(r"\W", "_", prog) + "_complete"
    commands = list(program.root.walk())
    need: dict[str, list[str]] = {}  # body -> paths whose options take values the same way
    subs: list[str] = []
    for cmd in commands:
        key = _key((prog, *cmd.path))
        subs += [f"{key}|{sub.name}" for sub in cmd.subcommands]
        by_nargs: dict[int, list[str]] = {}
        for opt in cmd.options:
            if opt.nargs:
                by_nargs.setdefault(opt.nargs, []).extend(opt.names)
        if by_nargs:
            body = "\n".join(f"contains -- $word {' '.join(names)}; and set need {n}" for n, names in by_nargs.items())
            need.setdefault(body, []).append(key)
    i8, i12, i16, i20 = (" " * n for n in (8, 12, 16, 20))
    lines = [
        *_header(prog, "fish"),
        "",
        f"function {fn}_path --description {_fish_q(f'Print the {prog} command path before the cursor')}",
        f"    set -l path {prog}",
        "    set -l need 0",
        "    set -l words (commandline -opc)",
        "    set -e words[1]",
        "    for word in $words",
        f"{i8}if test $need -gt 0",
        f"{i12}set need (math $need - 1)",
        f"{i12}continue",
        f"{i8}end",
        f"{i8}switch $word",
        f"{i12}case '-*'",
        f"{i16}switch $path",
    ]
    for body, keys in need.items():
        lines += _fish_case(keys, i20)
        lines += [f"{i20}    {line}" for line in body.split("\n")]
    lines += [f"{i16}end", f"{i12}case '*'"]
    if subs:
        lines += [f'{i16}switch "$path|$word"', *_fish_case(subs, i20), f'{i20}    set path "$path $word"', f"{i16}end"]
    lines += [
        f"{i8}end",
        "    end",
        "    echo $path",
        "end",
        "",
        f"function {fn}_at --description {_fish_q(f'Is the {prog} command path one of the arguments?')}",
        f"    contains -- ({fn}_path) $argv",
        "end",
        "",
        f"complete -c {prog} -f",
    ]
    groups: dict[tuple[object, ...], list[Command]] = {}
    for cmd in commands:
        groups.setdefault(cmd.own(), []).append(cmd)
    for members in groups.values():
        cmd = members[0]
        paths = " ".join(_fish_q(_key((prog, *c.path))) for c in members)
        base = f'complete -c {prog} -n "{fn}_at {paths}"'
        lines += ["", f"# {_key((prog, *cmd.path))}"]
        for sub in cmd.visible_subcommands():
            lines.append(f"{base} -a {sub.name} -d {_fish_q(sub.help)}")
        for opt in cmd.visible_options():
            spell = []
            for name in opt.names:
                if name.startswith("--"):
                    spell.append(f"-l {name[2:]}")
                elif len(name) == 2:
                    spell.append(f"-s {name[1:]}")
                else:  # a multi-letter single-dash option such as -bn
                    spell.append(f"-o {name[1:]}")
            lines.append(f"{base} {' '.join(spell)}{_fish_value(opt.value, opt.nargs)} -d {_fish_q(opt.help)}")
        for arg in cmd.arguments:
            extra = _fish_value(arg.value, 1).replace(" -x", "").replace(" -r", "")
            if extra:
                lines.append(f"{base}{extra}")
    lines.append("")
    return "\n".join(lines)


def _fish_case(keys: list[str], indent: str, width: int = 116) -> list[str]:
    """A ``case`` line (continued with backslashes when long)."""
    lines: list[str] = []
    row = f"{indent}case"
    for key in keys:
        piece = " " + _fish_q(key)
        if len(row) + len(piece) > width:
            lines.append(row + " \\")
            row = indent + "    "
            piece = piece[1:]
        row += piece
    return [*lines, row]


def _fish_value(value: Value, nargs: int) -> str:
    if not nargs:
        return ""
    if value.kind == "choice":
        return " -x -a " + _fish_q(" ".join(value.choices))
    if value.kind == "file":
        return " -r -F"
    if value.kind == "dir":
        return " -x -a '(__fish_complete_directories)'"
    return " -x"


# --- files --------------------------------------------------------------------------------------

RENDERERS = {"bash": render_bash, "zsh": render_zsh, "fish": render_fish}


def generate(programs: list[Program] | None = None) -> dict[str, str]:
    """File name -> script text, for every program and shell."""
    return {
        f"{program.name}.{shell}": RENDERERS[shell](program)
        for program in (programs if programs is not None else load_programs())
        for shell in SHELLS
    }


def stale_files(directory: Path, scripts: dict[str, str] | None = None) -> list[str]:
    """Names of the scripts in `directory` that are missing or differ from what the CLI generates now."""
    scripts = scripts if scripts is not None else generate()
    return [
        name
        for name, text in scripts.items()
        if not (directory / name).is_file() or (directory / name).read_text(encoding="utf-8") != text
    ]


def write(directory: Path, scripts: dict[str, str] | None = None) -> list[str]:
    """Write the scripts that changed; returns their names."""
    scripts = scripts if scripts is not None else generate()
    changed = stale_files(directory, scripts)
    directory.mkdir(parents=True, exist_ok=True)
    for name in changed:
        (directory / name).write_text(scripts[name], encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mqadmin_py.completions", description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="where the scripts live (default: completions)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a script is stale instead of writing it")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files(args.dir)
        for name in stale:
            print(f"stale: {args.dir / name} (run `{REGENERATE}`)", file=sys.stderr)
        return 1 if stale else 0
    for name in write(args.dir):
        print(f"wrote {args.dir / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

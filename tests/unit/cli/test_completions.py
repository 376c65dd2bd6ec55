"""Shell completions: the committed scripts match the CLI, and bash (zsh, fish when installed) really complete."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Literal

import pytest
import typer

from mqadmin_py import completions
from mqadmin_py.completions import Command, Program
from mqadmin_py.output import Output
from tests.harness.processes import ROOT

COMMITTED = ROOT / "completions"
OUTPUTS = sorted(o.value for o in Output)


@pytest.fixture(scope="module")
def programs() -> list[Program]:
    return completions.load_programs()


@pytest.fixture(scope="module")
def scripts(programs: list[Program]) -> dict[str, str]:
    return completions.generate(programs)


@pytest.fixture(scope="module")
def script_dir(scripts: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Freshly generated scripts: behaviour tests do not fail merely because the committed ones are stale."""
    directory = tmp_path_factory.mktemp("completions")
    completions.write(directory, scripts)
    return directory


def find(programs: list[Program], program: str, *path: str) -> Command:
    root = next(p.root for p in programs if p.name == program)
    return next(c for c in root.walk() if c.path == path)


def complete_bash(script: Path, function: str, cases: list[list[str]], cwd: Path = ROOT) -> list[list[str]]:
    """COMPREPLY for each command line (its last word is the one being completed), in one bash process."""
    lines = [f"source {shlex.quote(str(script))}"]
    for words in cases:
        lines += [
            f"COMP_WORDS=({' '.join(shlex.quote(w) for w in words)}); COMP_CWORD={len(words) - 1}; COMPREPLY=()",
            f'{function}; printf "%s\\n" "${{COMPREPLY[@]}}"; echo "<end>"',
        ]
    result = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", "\n".join(lines)], capture_output=True, text=True, cwd=cwd, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    replies = result.stdout.split("<end>\n")[:-1]
    assert len(replies) == len(cases)
    return [sorted(w for w in reply.splitlines() if w) for reply in replies]


def bash1(script_dir: Path, program: str, *words: str, cwd: Path = ROOT) -> list[str]:
    return complete_bash(script_dir / f"{program}.bash", f"_{program}", [[program, *words]], cwd)[0]


# --- generated scripts are current ---------------------------------------------------------------


def test_committed_scripts_match_the_cli(scripts: dict[str, str]) -> None:
    stale = completions.stale_files(COMMITTED, scripts)
    assert not stale, f"completions/ is stale ({', '.join(stale)}): run `make completions`"


def test_check_names_stale_scripts_and_writing_fixes_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert completions.main(["--check", "--dir", str(tmp_path)]) == 1
    assert "mqadmin.bash" in capsys.readouterr().err
    assert completions.main(["--dir", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        f"{p}.{s}" for p in completions.PROGRAMS for s in completions.SHELLS
    )
    assert completions.main(["--check", "--dir", str(tmp_path)]) == 0
    (tmp_path / "mqagent.fish").write_text("# edited by hand\n")
    capsys.readouterr()
    assert completions.main(["--check", "--dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "mqagent.fish" in err and "make completions" in err and "mqadmin.bash" not in err


def test_output_does_not_depend_on_hash_seed_or_location(script_dir: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    result = subprocess.run(
        [sys.executable, "-m", "mqadmin_py.completions", "--check", "--dir", str(script_dir)],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    for text in (script_dir / name for name in os.listdir(script_dir)):
        assert str(ROOT) not in text.read_text()


# --- bash, driven for real -----------------------------------------------------------------------


def test_bash_completes_a_command_name(script_dir: Path) -> None:
    assert bash1(script_dir, "mqadmin", "getS") == ["getSyncStateSet"]


def test_bash_offers_every_visible_top_level_command_and_no_hidden_alias(
    script_dir: Path, programs: list[Program]
) -> None:
    root = find(programs, "mqadmin")
    assert bash1(script_dir, "mqadmin", "") == sorted(c.name for c in root.visible_subcommands())
    assert "get-sync-state-set" in [c.name for c in root.subcommands]  # hidden, so not offered:
    assert bash1(script_dir, "mqadmin", "get-") == []


def test_bash_completes_options_of_a_command_and_of_its_hidden_alias(script_dir: Path, programs: list[Program]) -> None:
    expected = sorted(n for o in find(programs, "mqadmin", "getSyncStateSet").options for n in o.names)
    expected = [n for n in expected if n.startswith("--c")]
    assert {"--clusterName", "--controllerAddress"} <= set(expected)
    assert bash1(script_dir, "mqadmin", "getSyncStateSet", "--c") == expected
    assert bash1(script_dir, "mqadmin", "get-sync-state-set", "--c") == expected
    elect = sorted(n for o in find(programs, "mqadmin", "electMaster").options for n in o.names if n.startswith("-b"))
    assert {"-b", "-bn"} <= set(elect)  # a multi-letter "short" option beside a one-letter one
    assert bash1(script_dir, "mqadmin", "electMaster", "-b") == elect


@pytest.mark.parametrize(
    "words",
    [
        ["getSyncStateSet", "-o", ""],
        ["getSyncStateSet", "--output", ""],
        ["getSyncStateSet", "--output", "=", ""],  # bash's COMP_WORDBREAKS splits --output=
        ["getSyncStateSet", "-c", "DefaultCluster", "-o", ""],
        ["sandbox", "status", "-o", ""],
    ],
)
def test_bash_completes_choice_values(script_dir: Path, words: list[str]) -> None:
    assert bash1(script_dir, "mqadmin", *words) == OUTPUTS


def test_bash_completes_a_value_in_the_same_word(script_dir: Path) -> None:
    assert bash1(script_dir, "mqadmin", "getSyncStateSet", "--output=j") == ["--output=json"]


def test_bash_offers_nothing_where_a_free_form_value_goes(script_dir: Path) -> None:
    assert bash1(script_dir, "mqadmin", "getSyncStateSet", "-c", "") == []
    assert bash1(script_dir, "mqadmin", "getSyncStateSet", "-a", "get") == []  # not the command names


def test_bash_skips_option_values_and_takes_no_value_after_a_flag(script_dir: Path) -> None:
    # 'sandbox' is the value of -c here, not the sub-command.
    assert "--clusterName" in bash1(script_dir, "mqadmin", "getSyncStateSet", "-c", "sandbox", "-")
    # -l is a flag: the next word is not its value, so the options are offered.
    assert "--clusterName" in bash1(script_dir, "mqadmin", "cleanBrokerMetadata", "-l", "")


def test_bash_completes_sub_typer_commands(script_dir: Path, programs: list[Program]) -> None:
    assert bash1(script_dir, "mqadmin", "sandbox", "u") == ["up"]
    sandbox = find(programs, "mqadmin", "sandbox")
    assert bash1(script_dir, "mqadmin", "sandbox", "") == sorted(c.name for c in sandbox.visible_subcommands())
    assert "--dir" in bash1(script_dir, "mqadmin", "sandbox", "up", "--d")


def test_bash_completes_files_and_directories(script_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "agent.conf").write_text("")
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "data").mkdir()
    for program in ("mqagent", "mqcontroller"):
        assert bash1(script_dir, program, "-c", "", cwd=tmp_path) == ["agent.conf", "data", "notes.txt"]
        assert bash1(script_dir, program, "--configFile", "a", cwd=tmp_path) == ["agent.conf"]
    assert bash1(script_dir, "mqadmin", "sandbox", "up", "--dir", "", cwd=tmp_path) == ["data"]


def test_bash_single_command_programs_offer_their_options(script_dir: Path) -> None:
    for program in ("mqagent", "mqcontroller"):
        offered = bash1(script_dir, program, "-")
        assert {"-c", "--configFile", "-p", "--printConfigItem", "--log-level", "--help"} <= set(offered)
        assert bash1(script_dir, program, "-p", "") == offered  # -p is a flag


def test_bash_reaches_every_visible_command_and_option(script_dir: Path, programs: list[Program]) -> None:
    """Generic over the tree, so commands added later are covered too."""
    for program in programs:
        cases: list[list[str]] = []
        expected: list[list[str]] = []
        for cmd in program.root.walk():
            if cmd.hidden:
                continue
            if cmd.path:  # the name completes from its first letters at its parent
                cases.append([program.name, *cmd.path[:-1], cmd.name[:-1]])
                expected.append([cmd.name])
            cases.append([program.name, *cmd.path, "-"])
            expected.append(sorted(n for o in cmd.visible_options() for n in o.names))
        replies = complete_bash(script_dir / f"{program.name}.bash", f"_{program.name}", cases)
        for words, want, got in zip(cases, expected, replies, strict=True):
            assert set(want) <= set(got), f"{' '.join(words)!r}: {got}"


# --- zsh and fish --------------------------------------------------------------------------------


def test_every_script_names_every_visible_command_and_option(programs: list[Program], scripts: dict[str, str]) -> None:
    for program in programs:
        for shell in completions.SHELLS:
            text = scripts[f"{program.name}.{shell}"]
            assert text.startswith(f"#compdef {program.name}\n" if shell == "zsh" else "# ")
            for cmd in program.root.walk():
                if cmd.hidden:
                    continue
                assert cmd.name in text, (shell, cmd.path)
                for opt in cmd.visible_options():
                    for name in opt.names:
                        if shell == "fish":
                            flag = "-l" if name.startswith("--") else "-s" if len(name) == 2 else "-o"
                            name = f"{flag} {name.lstrip('-')}"
                        assert name in text, (shell, cmd.path, name)


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_scripts_parse(script_dir: Path) -> None:
    for program in completions.PROGRAMS:
        result = subprocess.run(["zsh", "-n", str(script_dir / f"{program}.zsh")], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_scripts_parse(script_dir: Path) -> None:
    for program in completions.PROGRAMS:
        script = script_dir / f"{program}.fish"
        result = subprocess.run(["fish", "--no-execute", str(script)], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


def complete_fish(script: Path, line: str, cwd: Path = ROOT) -> list[str]:
    command = f"source {shlex.quote(str(script))}; complete -C {shlex.quote(line)}"
    result = subprocess.run(["fish", "--no-config", "-c", command], capture_output=True, text=True, cwd=cwd, timeout=60)
    assert result.returncode == 0, result.stderr
    return sorted(row.split("\t")[0] for row in result.stdout.splitlines())


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes_for_real(script_dir: Path, tmp_path: Path) -> None:
    mqadmin, mqagent = script_dir / "mqadmin.fish", script_dir / "mqagent.fish"
    assert complete_fish(mqadmin, "mqadmin getS") == ["getSyncStateSet"]
    assert complete_fish(mqadmin, "mqadmin get-") == []
    assert {"--clusterName", "--controllerAddress"} <= set(complete_fish(mqadmin, "mqadmin get-sync-state-set --c"))
    assert complete_fish(mqadmin, "mqadmin getSyncStateSet -o ") == OUTPUTS
    assert complete_fish(mqadmin, "mqadmin sandbox u") == ["up"]
    # 'sandbox' is the value of -c: still at getSyncStateSet, so no sub-command names.
    assert complete_fish(mqadmin, "mqadmin getSyncStateSet -c sandbox ") == []
    (tmp_path / "agent.conf").write_text("")
    (tmp_path / "data").mkdir()
    assert complete_fish(mqagent, "mqagent -c ", cwd=tmp_path) == ["agent.conf", "data/"]
    assert complete_fish(mqadmin, "mqadmin sandbox up --dir ", cwd=tmp_path) == ["data/"]


# --- the generator is generic over click trees -----------------------------------------------------


def _nested_app() -> typer.Typer:
    app = typer.Typer()
    group_a = typer.Typer(help="Group a.")
    group_b = typer.Typer(help="Group b.")
    app.add_typer(group_a, name="a")
    group_a.add_typer(group_b, name="b")

    @group_b.command("leaf")
    def leaf(
        target: Annotated[Path, typer.Argument(help="A file.")],
        mode: Annotated[Literal["fast", "safe"], typer.Option("-m", "--mode", help="Mode.")] = "fast",
        pair: Annotated[tuple[str, str], typer.Option("--pair", help="Two values.")] = ("x", "y"),
        out: Annotated[Path, typer.Option("--out", file_okay=False, help="Output directory.")] = Path(),
        verbose: Annotated[int, typer.Option("-v", "--verbose", count=True, help="Louder.")] = 0,
        color: Annotated[bool, typer.Option("--color/--no-color", help="Colour.")] = True,
        secret: Annotated[str, typer.Option("--secret", hidden=True)] = "",
    ) -> None:
        """A leaf three levels down."""

    @app.command("top", hidden=True)
    def top() -> None:
        """Hidden."""

    hidden_group = typer.Typer(help="A hidden alias of a group.")
    app.add_typer(hidden_group, name="hg", hidden=True)

    @hidden_group.command("child")
    def child() -> None:
        """Visible below its hidden group."""

    return app


def test_nested_groups_and_parameter_kinds(tmp_path: Path) -> None:
    program = completions.program_from_app("tool", _nested_app())
    paths = [c.path for c in program.root.walk()]
    assert paths == [(), ("a",), ("a", "b"), ("a", "b", "leaf"), ("hg",), ("hg", "child"), ("top",)]
    script = tmp_path / "tool.bash"
    script.write_text(completions.render_bash(program))
    (tmp_path / "in.txt").write_text("")
    (tmp_path / "outdir").mkdir()
    leaf = ["tool", "a", "b", "leaf"]
    options = ["--color", "--help", "--mode", "--no-color", "--out", "--pair", "--verbose", "-m", "-v"]
    cases = {
        ("tool", "a", "b", "l"): ["leaf"],
        ("tool", ""): ["a"],  # not the hidden ones
        ("tool", "hg", ""): ["child"],  # but a typed hidden group offers its commands
        (*leaf, "--mode", ""): ["fast", "safe"],
        (*leaf, "--out", ""): ["outdir"],
        (*leaf, "--pair", "x", ""): [],  # the second of two values
        (*leaf, "--pair", "x", "y", ""): ["in.txt", "outdir", "tool.bash"],  # then the TARGET argument
        (*leaf, "--secret", "s", ""): ["in.txt", "outdir", "tool.bash"],  # hidden, but its value is skipped
        (*leaf, "-v", "-v", "in.txt", ""): options,  # counted flags; no argument left
        (*leaf, "-"): options,
    }
    replies = complete_bash(script, "_tool", [list(words) for words in cases], cwd=tmp_path)
    for (words, want), got in zip(cases.items(), replies, strict=True):
        assert got == want, words
    for shell, check in (("zsh", ["zsh", "-n"]), ("fish", ["fish", "--no-execute"])):
        if shutil.which(check[0]):
            path = tmp_path / f"tool.{shell}"
            path.write_text(completions.RENDERERS[shell](program))
            result = subprocess.run([*check, str(path)], capture_output=True, text=True)
            assert result.returncode == 0, result.stderr

"""The command registry: a command is a module with add_arguments() and run(), one line each."""

from __future__ import annotations

import argparse
import importlib
import sys
import types

import pytest

from trtlog.cli import main, registry


def test_every_registered_command_has_its_two_functions_and_a_help() -> None:
    names = []
    for name, command in registry.commands():
        names.append(name)
        assert callable(command.add_arguments) and callable(command.run)
        assert (command.run.__doc__ or "").strip(), f"{name}: run() needs a docstring (its help)"
    assert names == [n for n, _ in registry.COMMANDS]
    assert len(set(names)) == len(names)


def test_a_new_command_is_one_module_and_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    module = types.ModuleType("trtlog_test_hello")

    def add_arguments(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("who")

    def run(args: argparse.Namespace) -> int:
        """Say hello (a command another package brings)."""
        sys.stdout.write(f"hello {args.who}\n")
        return 0

    module.add_arguments = add_arguments  # type: ignore[attr-defined]
    module.run = run  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "trtlog_test_hello", module)
    monkeypatch.setattr(registry, "COMMANDS", (*registry.COMMANDS, ("hello", "trtlog_test_hello")))
    assert main(["hello", "you"]) == 0
    assert capsys.readouterr().out == "hello you\n"
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "hello" in capsys.readouterr().out


def test_help_imports_no_view_and_no_parser() -> None:
    """``trtlog --help`` imports the command modules only: no pandas, no Lark, no events."""
    import subprocess

    code = (
        "import sys\nfrom trtlog.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = {'pandas', 'networkx', 'matplotlib', 'lark', 'pydantic', 'trtlog.events'}\n"
        "sys.stderr.write(repr(sorted(heavy & set(sys.modules))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stderr == "[]"
    assert importlib.import_module("trtlog.cli").main is main

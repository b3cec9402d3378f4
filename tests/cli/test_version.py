"""``--version`` answers before the command, after it, and after its arguments."""

from __future__ import annotations

import subprocess
import sys

import pytest

from trtlog._version import __version__
from trtlog.cli import main
from trtlog.cli.plot import _PLOTS
from trtlog.cli.registry import COMMANDS


@pytest.mark.parametrize("name", [name for name, _ in COMMANDS])
def test_every_command_prints_the_version_and_exits_0(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # (argparse's version action exits through SystemExit, as --help does)
    with pytest.raises(SystemExit) as done:
        main([name, "--version"])
    assert done.value.code == 0
    out, err = capsys.readouterr()
    assert out == f"trtlog {__version__}\n" and err == ""


@pytest.mark.parametrize("kind", sorted(_PLOTS))
def test_every_plot_kind_prints_the_version(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["plot", kind, "--version"])
    assert done.value.code == 0 and capsys.readouterr().out == f"trtlog {__version__}\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["summary", "--version"],
        # after the arguments, and with a required argument missing: the version still wins
        ["summary", "no-such.log", "--version"],
        ["diff", "--version"],
        ["report", "-q", "--version"],
    ],
)
def test_the_program_prints_the_version_wherever_it_stands(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "trtlog", *argv], capture_output=True, text=True, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, f"trtlog {__version__}\n", "")


def test_a_command_lists_the_version_option_in_its_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        main(["layers", "--help"])
    assert "--version" in capsys.readouterr().out

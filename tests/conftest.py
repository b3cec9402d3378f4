"""Shared test configuration: corpus location, golden-file updates, hypothesis profiles."""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("MPLBACKEND", "Agg")  # plots render without a display

import sys

# pytest keeps each test module with its asserts rewritten as a .pyc beside it and reads it
# back on the next run, unless bytecode writing is off (PYTHONDONTWRITEBYTECODE, set on the
# CI machine): then every xdist worker rewrites all ~190 test modules on every run (6 s of
# CPU each). Test processes write pytest's own cache files as everywhere else; the variable
# still holds for the processes the tests start.
sys.dont_write_bytecode = False

import gc  # noqa: E402

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

#: The cyclic collector's thresholds in the test processes (xdist's workers and a run in one
#: process). A worker holds what its files cache (eager builds of the corpus logs, frames,
#: engines, report pages) and makes millions of short-lived objects around them; at Python's
#: default (700, 10, 10) the collector ran ~4,000 young and ~20 full collections per worker,
#: each full one scanning everything cached: 11% of the CPU time of tests/buildlog,
#: tests/findings and the corpus tests in one process (5.2 of 50.8 s; 1.3 s at these
#: thresholds). Cyclic garbage is still collected, in larger batches; the CLI runs its
#: commands at (150,000, 20, 100) for the same reason (trtlog/cli/main.py). Tests that watch
#: the collector set it up themselves (tests/test_pydantic.py).
GC_THRESHOLDS = (100_000, 50, 100)
gc.set_threshold(*GC_THRESHOLDS)

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"
CORPUS = Path(os.environ.get("TRTLOG_CORPUS", ROOT.parent / "shared" / "corpus"))

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("dev", max_examples=200, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Byte-compile trtlog once, as installing it does, before any test starts a process.

    Hundreds of tests run ``python -m trtlog``, bench scripts, notebooks or Dask workers in
    new processes. Where ``PYTHONDONTWRITEBYTECODE`` is set (or the tree is read-only) and no
    ``__pycache__`` exists yet, each of them would compile trtlog's source again (0.3 s of
    CPU each); an installed trtlog never does. Only the main process compiles (xdist workers
    start after it); files already compiled are skipped.

    An xdist worker ends without freeing what its files cached (:func:`_leave`). (``tryfirst``:
    this hook's clean-up is then registered before pytest's own, and runs after them.)
    """
    if not hasattr(config, "workerinput"):
        import compileall

        compileall.compile_dir(ROOT / "trtlog", quiet=2)
    elif _quick_exit(config):
        # (pytest's Config has no public way to see an error of a clean-up run before it)
        stack = getattr(config, "_cleanup_stack", None)
        if isinstance(stack, contextlib.ExitStack):
            stack.push(_leave)


def _quick_exit(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker that ends quickly (:func:`_leave`)."""
    return hasattr(config, "workerinput") and os.environ.get("TRTLOG_TESTS_FULL_EXIT") != "1"


def _leave(kind: type[BaseException] | None, error: BaseException | None, tb: Any) -> bool:
    """The last step of an xdist worker: its ``atexit`` handlers, then ``os._exit(0)``.

    After its last test a worker holds what its files cached (eager builds of every corpus
    log, frames, engines, report pages: millions of objects). The interpreter's own exit
    frees them one by one and collects them again, 1-2 s of CPU per worker after its last
    test, while the main process waits for it. By then the worker has sent its results
    (xdist's ``workerfinished``, at the session's end) and pytest's own checks at the end ran
    (the clean-ups before this one: pytest's last collection of unraisable exceptions); the
    ``atexit`` handlers still run (the trimmed corpus copies are removed, multiprocessing's
    and logging's handlers). When a clean-up before this one raised, nothing is skipped: the
    error goes its usual way. ``TRTLOG_TESTS_FULL_EXIT=1`` turns this off.
    """
    if kind is not None:
        return False
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


#: Test files whose tests each run for seconds in a process of their own (bench scripts,
#: notebooks): xdist hands out their tests one by one instead of the whole file to one worker.
ONE_BY_ONE = frozenset({"tests/test_bench.py", "tests/test_notebooks.py"})

#: Test files that share what one worker makes once: ``lazy_and_eager``'s eager builds of
#: every fixture and corpus log (cached in ``tests/buildlog/test_store.py``; test_engine_outline.py
#: reads their engines), the parsed logs
#: and loaded engines of ``tests/findings/inputs.py``, the warehouse of every fixture and the
#: report pages (session fixtures of ``tests/warehouse/conftest.py`` and
#: ``tests/html/conftest.py``). xdist hands each group to one worker as one unit, so these are
#: made once per run instead of once in each worker that ran one of the files.
SHARED_CACHE = {
    "tests/buildlog/test_lazy_views.py": "tests/buildlog/test_store.py",
    "tests/buildlog/test_kind_rows.py": "tests/buildlog/test_store.py",
    "tests/buildlog/test_engine_outline.py": "tests/buildlog/test_store.py",
    "tests/warehouse/test_dask.py": "tests/warehouse/conftest.py",
    "tests/warehouse/test_ingest.py": "tests/warehouse/conftest.py",
    "tests/warehouse/test_stream.py": "tests/warehouse/conftest.py",
    "tests/html/test_browser.py": "tests/html/conftest.py",
    "tests/html/test_command.py": "tests/html/conftest.py",
    **{
        f"tests/findings/{name}.py": "tests/findings/inputs.py"
        for name in (
            "test_cli",
            "test_registry",
            "test_golden",
            "test_context_fast_paths",
            *(
                f"rules/test_{rule}"
                for rule in (
                    "build_process",
                    "modern_builds",
                    "myelin",
                    "precision",
                    "qdq",
                    "reformat",
                    "strongly_typed",
                )
            ),
        )
    },
}

#: Seconds a worker spent on the longest units: a full run with 3 workers on the 2-core
#: machine (2026-11-27 13:07-13:15, under a load of 4-7 from other runs), each divided by 3.6
#: (that run's wall time over a quiet run's); only their ratios count. The scheduler hands out
#: the longest first, so that the run ends on short files in every worker; a unit not listed
#: (all measured under 1 s) counts 0.005 s a test, at most 1 s.
SECONDS = {
    "tests/buildlog/test_store.py": 56.4,  # + test_lazy_views, test_kind_rows, test_engine_outline
    "tests/warehouse/conftest.py": 20.7,  # test_dask.py, test_stream.py, test_ingest.py
    "tests/html/conftest.py": 16.0,  # test_browser.py, test_command.py
    "tests/test_plots.py": 14.2,
    "tests/parser/test_grammar_cache.py": 12.5,
    "tests/fuzz/test_linear_time.py": 11.9,
    "tests/fuzz/test_properties.py": 11.7,
    "tests/graph/test_core.py": 11.0,
    "tests/summary/test_summary.py": 9.9,
    "tests/parser/test_corpus.py": 9.8,
    "tests/warehouse/test_safety.py": 9.3,
    "tests/html/test_report.py": 8.6,
    "tests/test_bench.py::test_bench_script_runs[ingest.py]": 8.4,
    "tests/test_files.py": 8.2,
    "tests/test_package.py": 7.7,
    "tests/html/test_data_fast_paths.py": 7.0,
    "tests/findings/inputs.py": 6.3,  # the findings files that share it
    "tests/cli/test_cli.py": 6.2,
    "tests/graph/test_graph.py": 5.8,
    "tests/engine/test_module_figures.py": 5.5,
    "tests/test_bench.py::test_bench_script_runs[engine_load.py]": 5.3,
    "tests/test_notebooks.py::test_notebook_runs[fleet.ipynb]": 4.9,
    "tests/buildlog/test_passes.py": 4.4,
    "tests/cli/test_startup_summary.py": 4.4,
    "tests/exports/test_lazy_engine.py": 4.3,
    "tests/test_layering.py": 3.9,
    "tests/parser/test_grammars.py": 3.6,
    "tests/test_bench.py::test_bench_script_runs[graph.py]": 3.6,
    "tests/findings/test_fragments.py": 3.2,
    "tests/html/test_layers_section.py": 3.1,
    "tests/test_notebooks.py::test_notebook_runs[tactic_timing.ipynb]": 2.5,
    "tests/engine/test_engine.py": 2.5,
    "tests/test_bench.py::test_bench_script_runs[report.py]": 2.3,
    "tests/test_notebooks.py::test_notebook_runs[explain_a_build.ipynb]": 2.3,
    "tests/graph/test_silent_fates.py": 2.1,
    "tests/parser/families/test_onnx.py": 2.1,
    "tests/parser/test_line_fixtures.py": 2.1,
    "tests/html/test_graph_data.py": 2.1,
    "tests/warehouse/test_views.py": 2.0,
    "tests/test_bench.py::test_bench_script_runs[parse_throughput.py]": 1.9,
    "tests/test_bench.py::test_bench_script_runs[report_steps.py]": 1.9,
    "tests/test_bench.py::test_bench_script_runs[lint.py]": 1.9,
    "tests/test_notebooks.py::test_notebook_runs[layer_json_and_profile.ipynb]": 1.8,
    "tests/test_bench.py::test_bench_script_runs[merge_graph.py]": 1.8,
    "tests/test_bench.py::test_bench_script_runs[compare.py]": 1.7,
    "tests/test_names_shape.py": 1.5,
    "tests/cli/test_startup.py": 1.5,
    "tests/diff/test_pairs.py": 1.5,
    "tests/test_pydantic.py": 1.5,
    "tests/test_bench.py::test_bench_script_runs[startup.py]": 1.4,
    "tests/test_bench.py::test_bench_script_runs[fuzz.py]": 1.3,
    "tests/parser/test_dispatch.py": 1.1,
}
_ONE_BY_ONE_TEST = 1.5  # a bench script or notebook not listed in SECONDS


def _file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _scope_of(nodeid: str) -> str:
    """The unit xdist hands to one worker: a test of :data:`ONE_BY_ONE`, else its file, or
    the file whose cache it shares (:data:`SHARED_CACHE`)."""
    file = _file_of(nodeid)
    if file in ONE_BY_ONE:
        return nodeid
    return SHARED_CACHE.get(file, file)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest units first, so that no worker is left with a long file at the end.

    With ``--dist loadfile`` xdist hands out the units (:func:`_scope_of`) in the order in
    which their first test was collected; this sorts the items by their unit's time
    (:data:`SECONDS`), longest first, keeping the order inside a unit. Every worker collects
    the same items, so every worker computes the same order, and the scheduler hands out
    what the workers collected in this order.

    Only xdist's workers reorder (in one process the order makes no difference). A worker
    cannot ask which ``--dist`` was given: xdist sets the worker's ``dist`` option to
    ``"no"``, so a check for ``"loadfile"`` here never held and the files ran in the order of
    their paths (the bench scripts and notebooks near the end).
    """
    if not hasattr(config, "workerinput"):
        return  # one process: the order makes no difference
    sizes: dict[str, int] = {}
    for item in items:
        sizes[_scope_of(item.nodeid)] = sizes.get(_scope_of(item.nodeid), 0) + 1

    def seconds(scope: str) -> float:
        if scope in SECONDS:
            return SECONDS[scope]
        if _file_of(scope) in ONE_BY_ONE:
            return _ONE_BY_ONE_TEST
        return min(0.005 * sizes[scope], 1.0)

    order = {scope: (-seconds(scope), scope) for scope in sizes}
    items.sort(key=lambda i: order[_scope_of(i.nodeid)])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``loadfile`` with the units of :func:`_scope_of`, handed out in the collection's order."""
    if config.getoption("dist") != "loadfile":
        return None  # another --dist asked for on the command line: xdist's own
    from xdist.scheduler import LoadFileScheduling  # type: ignore[import-untyped]

    config.option.loadscopereorder = False  # the collection's order is already the plan

    class LongestFirst(LoadFileScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return _scope_of(nodeid)

    return LongestFirst(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than the machine has cores.

    Many tests wait on something else: a child process (the CLI, a benchmark script, a
    notebook's kernel, Dask workers), headless Chromium, a named pipe. With one worker per
    core, a core stood idle during those waits: on the 2-core machine the full suite took
    170 s with 2 workers and 127 s with 3 (129 s with 4), for the same CPU time.
    """
    return (os.cpu_count() or 1) + 1


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden files in fixtures/golden from the current output",
    )


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    """Close the test's pyplot figures (when pyplot was imported at all).

    Figures a test leaves open stay in pyplot's list for the rest of its worker's run; past
    20, matplotlib warns (an error here) in whatever test opens the next one, so a test's
    outcome depended on the files its worker happened to run before it.
    """
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-golden"))


def corpus_files(*suffixes: str) -> list[Path]:
    """Files of the shared corpus with these suffixes (empty when the corpus is absent)."""
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.suffix in suffixes)


#: A run of more lines than this, without a log envelope and all of one shape (digits and
#: hex numbers aside), is cut for the tests to its first and last NOISE_KEEP lines.
NOISE_RUN = 2_000
NOISE_KEEP = 1_000
_SHAPE = re.compile(rb"0x[0-9a-fA-F]+|[0-9]+")  # numbers set aside when comparing shapes
_TRIMMED: dict[Path, Path] = {}


def _noise_trimmed(path: Path) -> Path:
    """``path``, or a copy in a temporary folder with its long runs of program output cut.

    One corpus log (a cookbook build run with its program's stdout) holds 108,000 lines of
    ``    0x40dd5800[enqueue]`` between its TensorRT lines: every test over every corpus log
    spent a third of its time on them, the same line each time. A run of more than
    ``NOISE_RUN`` lines without an envelope (not starting with ``[`` or ``&&&&``) and of one
    shape once digits are set aside keeps its first and last ``NOISE_KEEP`` lines; every
    other line, and every other file, is as it is. ``corpus_logs(whole=True)`` gives the files
    themselves (the lossless test reads them whole, as ``corpus_report.py`` does).
    """
    if path in _TRIMMED:
        return _TRIMMED[path]
    data = path.read_bytes()
    if data.count(b"\n") - data.count(b"\n[") <= NOISE_RUN:  # (most logs: no such run)
        _TRIMMED[path] = path
        return path
    lines = data.splitlines(keepends=True)
    out: list[bytes] = []
    run: list[bytes] = []
    shape: bytes | None = None
    cut = False

    def flush() -> None:
        nonlocal cut
        if len(run) > NOISE_RUN:
            out.extend(run[:NOISE_KEEP] + run[-NOISE_KEEP:])
            cut = True
        else:
            out.extend(run)
        run.clear()

    for line in lines:
        if line.startswith((b"[", b"&&&&")):
            flush()
            shape = None
            out.append(line)
            continue
        this = _SHAPE.sub(b"#", line)
        if this != shape:
            flush()
            shape = this
        run.append(line)
    flush()
    result = path
    if cut:
        folder = Path(tempfile.mkdtemp(prefix="trtlog-tests-corpus-"))
        atexit.register(shutil.rmtree, folder, True)
        result = folder / path.name
        result.write_bytes(b"".join(out))
    _TRIMMED[path] = result
    return result


def corpus_logs(whole: bool = False) -> list[Path]:
    """The corpus logs; unless ``whole``, with long runs of program output cut (above)."""
    logs = corpus_files(".log", ".txt")
    return logs if whole else [_noise_trimmed(p) for p in logs]


def corpus_json() -> list[Path]:
    return corpus_files(".json")


def layer_json_files() -> list[Path]:
    """The layer-info JSON files among the fixtures and the corpus (not profiles or timings)."""
    return list(_layer_json_files())


@functools.cache
def _layer_json_files() -> tuple[Path, ...]:
    """(Read once per process: three test modules ask at collection, in every xdist worker,
    and each answer reads and decodes all ~150 JSON files.)"""
    import warnings

    import trtlog
    from trtlog.exports.read import detect_kind, read_json_file

    out = []
    for path in sorted((FIXTURES / "layer_info").glob("*.json")) + corpus_json():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _, values = read_json_file(path)
        except trtlog.InputError:
            continue
        if detect_kind(values[0]) == "layers":
            out.append(path)
    return tuple(out)


needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not present")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """CI must never pass on nothing: a run that collected no test fails.

    In an xdist worker that ends quickly (:func:`_leave`), what the session made is frozen
    (``gc.freeze``) once its tests are done: pytest's clean-up then collects once more for
    unraisable exceptions (``__del__`` of a cycle that raised), a full collection over every
    object the worker's files cached (1-2 s of CPU per worker), for an answer an xdist worker
    cannot give: its results were sent, and an error raised now is dropped (a test that
    leaves such a cycle fails a run in one process, ``-n 0``, where nothing is frozen, and
    passes under xdist with or without this freeze). A collection during the tests finds
    them as before.
    """
    if session.testscollected == 0 and not session.config.getoption("collectonly"):
        session.exitstatus = pytest.ExitCode.NO_TESTS_COLLECTED
    if _quick_exit(session.config):
        gc.freeze()

"""Shared fixtures: the repo root, plans of the real stacks, and a guard that sees program runs."""

from pathlib import Path

import hypothesis  # noqa: F401
import pytest

# Loaded here, at the top of the stack: otherwise a run of test files that do not use it has hypothesis's pytest
# plugin import it (with pytest's assertion rewriting) from deep inside the terminal summary, where CPython 3.11.7
# can fail with "SystemError: AST constructor recursion depth mismatch" (CPython gh-106905, fixed in later 3.11s).

ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/plans/<stack>.json from the current plans (see tests/support/golden.py)")
    # tests/test_fuzz.py: the default run is derandomized (the same examples on every run, as CI needs them);
    # `--fuzz-scale=N` runs N times as many, drawn at random (a failure prints `@seed(...)` to replay it).
    parser.addoption("--fuzz-scale", type=int, default=1, metavar="N",
                     help="multiply the examples of tests/test_fuzz.py by N and draw them at random (default 1: "
                          "the derandomized CI run)")
    parser.addoption("--fuzz-long", action="store_true", default=False, help="the long fuzz run: --fuzz-scale=10")
STACKS = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


@pytest.fixture(scope="session")
def variant_plan_json():
    """The plan (JSON) of every optional child on (tests/support/variants.py), computed once per session."""
    from pathways_gke.plan import plan_config
    from tests.support.variants import every_optional_child_config

    return plan_config(every_optional_child_config(), stack="variant").to_json()


@pytest.fixture(scope="session")
def stack_plans():
    """Plan of every stack in stacks/, computed once per session (plans are deterministic)."""
    from pathways_gke.plan import plan_stack

    cache = {}

    def get(stack: str):
        if stack not in cache:
            cache[stack] = plan_stack(stack, ROOT)
        return cache[stack]

    return get


@pytest.fixture(autouse=True)
def an_open_event_loop():
    """Every test starts with an open event loop: an in-process CLI run (`cli.main`) closes the one it used,
    and a test that makes Outputs before it runs a program needs one."""
    from pathways_gke.plan.engine import open_event_loop

    open_event_loop()


@pytest.fixture
def recording_runs(monkeypatch):
    """Records every attempt to run the program under the mock engine (there must be none for bad input)."""
    from pathways_gke.plan import engine

    runs = []
    real = engine.run_program

    def spy(*args, **kwargs):
        runs.append(kwargs.get("stack"))
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "run_program", spy)
    return runs


@pytest.fixture(scope="session")
def fuzz_scale(request) -> int:
    """How many times the default fuzz examples to run (1: derandomized; more: random, see --fuzz-scale)."""
    scale = 10 if request.config.getoption("--fuzz-long") else request.config.getoption("--fuzz-scale")
    if scale < 1:
        raise pytest.UsageError("--fuzz-scale must be at least 1")
    return scale


def pytest_terminal_summary(terminalreporter):
    """How many configs tests/test_fuzz.py generated, when it ran."""
    import sys

    fuzz = sys.modules.get("tests.test_fuzz")
    if fuzz is not None and fuzz.GENERATED:
        terminalreporter.write_line(fuzz.summary())

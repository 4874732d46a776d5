"""Shared fixtures: the repo root, plans of the real stacks, and a guard that sees program runs."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/plans/<stack>.json from the current plans (see tests/support/golden.py)")
STACKS = sorted(p.name[len("Pulumi."):-len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


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

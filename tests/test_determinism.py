"""Determinism (README.md, "Offline plan"): the same stack gives byte-identical plans and manifests.

Golden snapshots and PR diffs are only trustworthy if nothing depends on set or dict iteration order,
on the hash seed, on time or on the machine. Each stack is planned in separate interpreters with
different PYTHONHASHSEED values, as CI and a laptop would, and every byte is compared.
"""

import os
import subprocess
import sys

import pytest

from pathways_gke.plan.engine import plan_stack
from tests.conftest import ROOT, STACKS


HASH_SEEDS = ("0", "1", "4242")


def plan_in_fresh_interpreter(stack: str, out_dir, seed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": seed,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "components"), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(
        [sys.executable, "-m", "pathways_gke", "plan", "--stack", stack, "--json", "--out", str(out_dir)],
        cwd=ROOT, env=env, capture_output=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr.decode()
    assert b"Traceback" not in result.stderr
    return result.stdout


def files(directory) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.mark.slow
@pytest.mark.parametrize("stack", STACKS)
def test_plans_and_manifests_are_byte_identical_under_different_hash_seeds(stack, tmp_path):
    runs = {seed: (plan_in_fresh_interpreter(stack, tmp_path / seed, seed), files(tmp_path / seed))
            for seed in HASH_SEEDS}
    (first_plan, first_files), *others = runs.values()
    assert first_plan.startswith(b"{") and len(first_files) > 1, "plan.json and the Kubernetes objects"
    assert "plan.json" in first_files
    for seed, (plan, written) in runs.items():
        assert plan == first_plan, f"PYTHONHASHSEED={seed} changed the plan of {stack}"
        assert written.keys() == first_files.keys(), f"PYTHONHASHSEED={seed} wrote other files"
        changed = [name for name in written if written[name] != first_files[name]]
        assert changed == [], f"PYTHONHASHSEED={seed} changed {changed}"


@pytest.mark.slow
@pytest.mark.parametrize("stack", STACKS)
def test_planning_twice_in_one_process_gives_the_same_bytes(stack):
    """A second run in the same interpreter (a test session, a long-lived tool) sees no leftover state."""
    assert plan_stack(stack, ROOT).dumps() == plan_stack(stack, ROOT).dumps()

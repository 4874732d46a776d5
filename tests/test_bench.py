"""The benchmark measures what it claims (bench/): no timings are asserted here, only that the scaled stacks are
valid and the floors register exactly the resources our plan registers. Results live in bench/RESULTS.md."""

import json
import subprocess
import sys

import pytest

from pathways_gke.config.stack import parse_stack
from tests.conftest import ROOT


sys.path.insert(0, str(ROOT / "bench"))
import plan_scale  # noqa: E402  (bench/ is scripts, not a package)


@pytest.mark.parametrize("slices", plan_scale.SLICES)
def test_every_scaled_stack_is_valid_with_eight_workloads(slices):
    stack = parse_stack(plan_scale.scale_config(slices))
    assert [p.slices for p in stack.tpu_pools] == [slices]
    assert len(stack.workloads) == plan_scale.WORKLOADS == 8
    assert {w.runtime for w in stack.workloads} == {"pathways", "jax"}


def measure(*args):
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "measure.py"), *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_the_floors_register_the_same_resources_as_the_plan(tmp_path):
    import yaml

    config, plan = tmp_path / "Pulumi.scale.yaml", tmp_path / "plan.json"
    config.write_text(yaml.safe_dump({"config": plan_scale.scale_config(4)}))
    ours = measure("ours", "--config", str(config), "--write-plan", str(plan))
    recorded = json.loads(plan.read_text())["resources"]
    assert ours["resources"] == len(recorded) > 4
    for floor in ("typed", "payload"):
        assert measure(floor, "--plan", str(plan))["resources"] == len(recorded), floor
    assert measure("bare", "--count", str(len(recorded)))["resources"] == len(recorded)
    for phase in ("imports", "run", "warm"):
        assert ours[phase]["wall"] > 0
    assert ours["peakRssMb"] > 0


def test_results_block_is_replaced_in_place(tmp_path, monkeypatch):
    results = tmp_path / "RESULTS.md"
    results.write_text(f"# head\n{plan_scale.BEGIN}\nold\n{plan_scale.END}\ntail\n")
    monkeypatch.setattr(plan_scale, "RESULTS", results)
    plan_scale.write_results("new\n")
    assert results.read_text() == f"# head\n{plan_scale.BEGIN}\nnew\n{plan_scale.END}\ntail\n"


def test_the_day2_status_bench_builds_what_it_says():
    """bench/day2_status.py: N JobSets, each owning exactly one Kueue Workload (the index finds one per JobSet)."""
    import day2_status

    jobsets, workloads = day2_status.objects(20)
    statuses = day2_status.indexed(jobsets, workloads)
    assert len(statuses) == 20 and all(len(s.admission) == 1 and s.state == "Running" for s in statuses)
    starting, pods, events = day2_status.stuck(jobsets, workloads)
    assert len(starting) == len(pods) == len(events) == 20


def test_the_xpk_comparison_plans_the_deployment_xpk_dry_runs():
    """bench/vs_xpk.py: our stack is the deployment XPK's two dry-runs make (4 × v6e-16, one workload)."""
    import vs_xpk  # noqa: E402  (bench/ is scripts)

    stack = parse_stack(vs_xpk.stack()["config"])
    (pool,) = stack.tpu_pools
    assert (pool.shape.shorthand, pool.slices) == ("v6e-16", 4) and len(stack.workloads) == 1
    cluster, workload = vs_xpk.xpk_commands("xpk")
    assert cluster[1:3] == ["cluster", "create-pathways"] and workload[1:3] == ["workload", "create-pathways"]
    for command in (cluster, workload):
        assert "--dry-run" in command and command[command.index("--tpu-type") + 1] == "v6e-16"
        assert command[command.index("--num-slices") + 1] == "4"


@pytest.mark.slow
def test_the_xpk_comparison_runs_both_sides(capsys):
    import os
    from pathlib import Path

    import vs_xpk  # noqa: E402

    xpk_python = os.environ.get("PATHWAYS_GKE_XPK_PYTHON")
    if not xpk_python:
        pytest.skip("PATHWAYS_GKE_XPK_PYTHON is not set (.ci/run installs xpk==1.16.0 in a side venv)")
    assert vs_xpk.main(["--xpk", str(Path(xpk_python).with_name("xpk")), "--pairs", "1"]) == 0
    out = capsys.readouterr().out
    assert "ours / xpk: wall ratio median" in out

"""The plan as a reviewer reads it: the actions required said once, the tree in the order a first `pulumi up`
creates it, and each workload's image, command, slices and chips on its own line."""

from __future__ import annotations

import re

import pytest

from pathways_gke.plan import plan_config
from pathways_gke.plan.render import render_tree

from .support.stacks import shipped


def tree_names(text: str) -> list[str]:
    """Resource names in the order the tree prints them."""
    return [m.group(1) for m in re.finditer(r"[├└]─ \S+  (\S+)", text)]


@pytest.mark.slow
@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_actions_required_are_said_once(stack, capfd):
    plan = plan_config(shipped(stack), stack=stack)
    text = render_tree(plan)
    stderr = capfd.readouterr().err
    for action in plan.outputs["actionsRequired"]:
        assert (text + stderr).count(action) == 1, action
    assert text.count("actions required") == 1


@pytest.mark.slow
@pytest.mark.parametrize("stack", ["dev", "prod", "serve", "jax"])
def test_every_resource_prints_after_what_it_depends_on(stack):
    plan = plan_config(shipped(stack), stack=stack)
    order = {name: i for i, name in enumerate(tree_names(render_tree(plan)))}
    assert len(order) == len(plan.resources)
    by_urn = plan.by_urn()
    custom = {r.urn for r in plan.resources if r.custom}
    for r in plan.resources:
        for dep in r.depends_on:
            if dep in custom and r.custom:
                assert order[by_urn[dep].name] < order[r.name], (by_urn[dep].name, r.name)


@pytest.mark.slow
def test_a_workload_line_names_its_image_command_slices_and_chips():
    cfg = shipped("dev")
    cfg["pathways-gke:tpuPools"][0]["slices"] = 2
    cfg["pathways-gke:workloads"][0]["command"] = "python3 train.py --steps=7"
    line = next(line for line in render_tree(plan_config(cfg, stack="dev")).splitlines()
                if "PathwaysWorkload  pw-dev-train" in line)
    assert "image us-docker.pkg.dev/acme-ml-dev/train/trainer:2026-11-20" in line
    assert "command 'python3 train.py --steps=7'" in line
    assert "slices 2 × tpu-v6e-slice 2x4 (16 chips)" in line  # 2 slices × 2 hosts × 4 chips

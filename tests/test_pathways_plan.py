"""The Pathways JobSet inside PathwaysCluster, seen through the offline plan (`pathways-gke plan --out`)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

import yaml

from pathways_gke.apply_rules import JOBSET_REPLACE_ON_CHANGES
from pathways_gke.config import load_stack_file
from pathways_gke.plan import plan_config
from pathways_gke.plan.render import write_out
from pathways_gke.render.pathways_jobset import build_pathways_jobset
from pathways_gke.config.placement import Placement

from .conftest import ROOT
from .support.crd import jobset_schema_errors
from .support.stacks import merged, stack

JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"


def test_prod_plan_has_the_workload_component_and_its_jobset(stack_plans):
    plan = stack_plans("prod")
    component = plan.named("pw-prod-llm-pretrain")
    jobset = plan.named("pw-prod-llm-pretrain-jobset")
    assert component.type == "pathways-gke:index:PathwaysWorkload"
    assert jobset.type == JOBSET and jobset.parent == component.urn
    assert jobset.options["replaceOnChanges"] == sorted(JOBSET_REPLACE_ON_CHANGES) and jobset.options["deleteBeforeReplace"] is True
    pools = [plan.named(f"pw-prod-train-{i}").urn for i in range(4)]
    assert jobset.options["replaceWith"] == pools  # a replaced slice replaces the JobSet
    assert set(pools) <= set(jobset.depends_on) and plan.named("pw-prod-cpu").urn in jobset.depends_on
    assert jobset.options["provider"] == plan.named("pw-prod-kubernetes").urn
    assert not component.options.get("replaceWith")  # only the JobSet carries it


def test_prod_plan_jobset_is_the_builders_and_is_valid(stack_plans):
    stack = load_stack_file(ROOT / "stacks" / "Pulumi.prod.yaml")
    expected = build_pathways_jobset(stack.workloads[0], Placement.of(stack, stack.workloads[0]))
    rendered = [o for o in stack_plans("prod").kubernetes_objects() if o["kind"] == "JobSet"]
    assert rendered == [expected]
    assert jobset_schema_errors(rendered[0]) == {"v0.8.2": [], "v0.12.0": []}


@pytest.mark.slow
def test_plan_out_writes_the_jobset_yaml(tmp_path):
    result = subprocess.run([sys.executable, "-m", "pathways_gke", "plan", "--stack", "prod", "--out", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120,
                            env={"PYTHONPATH": str(ROOT / "components"), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    written = yaml.safe_load((tmp_path / "jobset-ml-llm-pretrain.yaml").read_text())
    assert written["spec"]["replicatedJobs"][1]["replicas"] == 4
    assert "--instance_type=tpuv6e:4x4" in str(written)


@pytest.mark.slow
def test_secret_env_values_never_appear_in_the_plan(tmp_path):
    config = stack("dev", secrets={"hf": {"secure": "v1:AAAAencrypted"}})
    plan = plan_config(merged(config, workloads=[{"secretEnv": {"HF_TOKEN": "hf"}}]), stack="dev")
    secret = plan.named("pw-dev-train-env")
    assert secret.type == "kubernetes:core/v1:Secret"
    # the salted digest of the ciphertext only (a changed value is seen changed), never the value
    assert re.fullmatch(r"<secret:[0-9a-f]{12}>", secret.inputs["stringData"])
    jobset = plan.named("pw-dev-train-jobset")
    assert any(secret.urn == d for d in jobset.depends_on)
    write_out(plan, tmp_path)
    text = "".join(p.read_text() for p in tmp_path.iterdir())
    assert "AAAAencrypted" not in text
    env = jobset.inputs["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"key": "HF_TOKEN", "name": "train-env"}}} in env


@pytest.mark.slow
def test_a_workload_change_moves_nothing_but_the_jobset(stack_plans):
    changed = merged("prod", workloads=[{"command": "python3 -m trainer.main --config=configs/other.yaml"}])
    before = {r.urn: r.inputs for r in stack_plans("prod").resources}
    after = {r.urn: r.inputs for r in plan_config(changed, stack="prod").resources}
    assert before.keys() == after.keys()
    moved = [urn for urn in before if before[urn] != after[urn]]
    assert moved == [stack_plans("prod").named("pw-prod-llm-pretrain-jobset").urn]

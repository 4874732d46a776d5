"""Acceptance: `pathways-gke plan --stack jax --out DIR` writes both jax JobSets, valid, wired into the graph."""

from __future__ import annotations

import pytest
import yaml

from pathways_gke.apply_rules import JOBSET_REPLACE_ON_CHANGES
from pathways_gke.cli import main as cli_main
from tests.conftest import ROOT
from tests.support.crd import jobset_schema_errors
from tests.support.stacks import P, merged, shipped, stack


@pytest.mark.slow
def test_plan_out_writes_the_tpu_multislice_and_the_cpu_jobsets(tmp_path, capsys):
    assert cli_main(["plan", "--stack", "jax", "--project-dir", str(ROOT), "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    jobsets = {obj["metadata"]["name"]: obj for obj in
               (yaml.safe_load(p.read_text()) for p in sorted(tmp_path.glob("jobset-*.yaml")))}
    assert sorted(jobsets) == ["train-cpu", "train-tpu"]
    for obj in jobsets.values():
        assert jobset_schema_errors(obj) == {"v0.8.2": [], "v0.12.0": []}

    tpu = jobsets["train-tpu"]["spec"]["replicatedJobs"][0]
    assert tpu["replicas"] == 2  # v5p 2x2x2 x 2 slices
    assert tpu["template"]["spec"]["parallelism"] == 2
    pod = tpu["template"]["spec"]["template"]["spec"]
    assert pod["nodeSelector"]["cloud.google.com/gke-tpu-topology"] == "2x2x2"
    assert pod["containers"][0]["resources"]["limits"] == {"google.com/tpu": "4"}

    cpu = jobsets["train-cpu"]["spec"]["replicatedJobs"][0]
    assert cpu["replicas"] * cpu["template"]["spec"]["parallelism"] == 4
    assert cpu["template"]["spec"]["template"]["spec"]["nodeSelector"] == {"cloud.google.com/gke-nodepool": "cpu-np"}


def test_each_jobset_is_replaced_with_the_pools_it_runs_on_and_uses_the_cluster_provider(stack_plans):
    plan = stack_plans("jax")
    by_name = {r.name: r for r in plan.resources}
    tpu_pools = {by_name["jax-dev-v5p-0"].urn, by_name["jax-dev-v5p-1"].urn}
    provider = by_name["jax-dev-kubernetes"].urn
    tpu_job = by_name["jax-dev-train-tpu-jobset"]
    cpu_job = by_name["jax-dev-train-cpu-jobset"]
    assert set(tpu_job.options["replaceWith"]) == tpu_pools
    assert set(cpu_job.options["replaceWith"]) == {by_name["jax-dev-cpu"].urn}
    for job in (tpu_job, cpu_job):
        assert job.parent == by_name[job.name[:-len("-jobset")]].urn
        assert not by_name[job.name[:-len("-jobset")]].options.get("replaceWith")  # only the JobSet carries it
        assert job.options["provider"].startswith(provider)
        assert job.options["replaceOnChanges"] == sorted(JOBSET_REPLACE_ON_CHANGES) and job.options["deleteBeforeReplace"]
        assert job.type == "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"


@pytest.mark.parametrize("change, message", [
    (lambda w: w[1]["jax"].update(processes=0), "workloads[1].jax.processes: 0 is invalid"),
    (lambda w: w[1].pop("jax"), "workloads[1].jax.processes: is required for a jax workload on the CPU pool"),
    (lambda w: w[0].update(tpuPool="v5e"), "workloads[0].tpuPool: 'v5e' names no TPU pool group; allowed: v5p"),
    (lambda w: w[0].update(jax={"processes": 4}), "workloads[0].jax.processes: 4 applies to jax workloads on the "
                                                   "CPU pool only"),
], ids=["zero-processes", "no-processes", "unknown-pool", "processes-on-tpu"])
def test_bad_jax_config_exits_2_naming_the_path(tmp_path, capsys, recording_runs, change, message):
    config = shipped("jax")
    change(config[P + "workloads"])
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    assert cli_main(["plan", "--config", str(path), "--project-dir", str(ROOT)]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert recording_runs == []  # refused before the program ran


def test_a_tpu_workload_on_a_cpu_only_stack_exits_2(tmp_path, capsys):
    path = tmp_path / "Pulumi.cpuonly.yaml"
    path.write_text(yaml.safe_dump({"config": merged(stack("jax", tpuPools=None), cpuPool={"zone": "us-east5-a"})}))
    assert cli_main(["plan", "--config", str(path), "--project-dir", str(ROOT)]) == 2
    assert "workloads[0].tpuPool: 'v5p' names no TPU pool group; this stack has no tpuPools" in \
        capsys.readouterr().err


def test_jobsets_wait_for_the_jobset_controller_and_the_readiness_gate(stack_plans):
    plan = stack_plans("jax")
    by_name = {r.name: r for r in plan.resources}
    gate, install = by_name["jax-dev-services-ready"], by_name["jax-dev-services-jobset"]
    for name in ("jax-dev-train-tpu-jobset", "jax-dev-train-cpu-jobset"):
        assert {gate.urn, install.urn} <= set(by_name[name].depends_on), name


@pytest.mark.slow
def test_with_kueue_the_jobsets_join_the_local_queue_the_cluster_creates(tmp_path, capsys):
    path = tmp_path / "Pulumi.queued.yaml"
    path.write_text(yaml.safe_dump({"config": stack("jax", kueue={"enabled": True})}))
    assert cli_main(["plan", "--config", str(path), "--project-dir", str(ROOT), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    objects = [yaml.safe_load(p.read_text()) for p in sorted((tmp_path / "out").glob("*.yaml"))]
    [queue] = [o for o in objects if o["kind"] == "LocalQueue"]
    jobsets = [o for o in objects if o["kind"] == "JobSet"]
    assert len(jobsets) == 2
    for obj in jobsets:
        assert obj["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == queue["metadata"]["name"]
        assert obj["metadata"]["namespace"] == queue["metadata"]["namespace"]
        assert jobset_schema_errors(obj) == {"v0.8.2": [], "v0.12.0": []}

"""The Pathways head stays put and alone, in every mode: a head-only label with a required per-node pod
anti-affinity on it (no priority term, every namespace), and the autoscaler's safe-to-evict "false"; JAX
processes (process 0 included) carry the same annotation. Custom server+proxy images need no version."""

from __future__ import annotations

import pytest

from pathways_gke.config.pathways_checks import pathways_workload_problems
from pathways_gke.render.head import HEAD_POD_LABEL, SAFE_TO_EVICT_ANNOTATION, guard_head
from pathways_gke.render.jax_jobset import build_jax_jobset
from pathways_gke.render.pathways_jobset import build_pathways_jobset
from pathways_gke.config.placement import Placement
from pathways_gke.config.workloads import JaxWorkloadConfig

from .support.pathways_cases import workload, target

MODES = {
    "default": ({}, {}),
    "headless": ({"mode": "headless", "image": None, "command": None}, {}),
    "colocated": ({"mode": "colocated"}, {"topology": "2x4", "slices": 1}),
    "priority": ({"priorityClass": "high"}, {}),
}


def pod_templates(js: dict) -> dict[str, dict]:
    return {r["name"]: r["template"]["spec"]["template"] for r in js["spec"]["replicatedJobs"]}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_head_is_alone_on_its_node_and_never_evicted(mode):
    overrides, where = MODES[mode]
    templates = pod_templates(build_pathways_jobset(workload(**overrides), target(**where)))
    head = templates["pathways-head"]
    assert head["metadata"]["labels"][HEAD_POD_LABEL] == "true"
    assert head["metadata"]["annotations"][SAFE_TO_EVICT_ANNOTATION] == "false"
    terms = head["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert terms == [{"labelSelector": {"matchLabels": {HEAD_POD_LABEL: "true"}}, "namespaceSelector": {},
                      "topologyKey": "kubernetes.io/hostname"}]
    # the selector names the head label only: a head of any priority class repels every other head
    assert "priority" not in str(terms).lower()
    # workers are not heads: they neither carry the label nor repel heads
    worker = templates["worker"]
    assert HEAD_POD_LABEL not in worker["metadata"]["labels"] and "affinity" not in worker["spec"]


def test_guard_head_is_reusable_and_owns_the_affinity():
    meta, spec = guard_head({"labels": {"app": "leader"}}, {"containers": []})
    assert meta == {"labels": {"app": "leader", HEAD_POD_LABEL: "true"},
                    "annotations": {SAFE_TO_EVICT_ANNOTATION: "false"}}
    assert spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0][
        "topologyKey"] == "kubernetes.io/hostname"
    with pytest.raises(ValueError):
        guard_head({}, {"affinity": {}})


@pytest.mark.parametrize("on_tpu", [True, False])
def test_jax_processes_are_never_evicted_by_the_autoscaler(on_tpu):
    w = JaxWorkloadConfig.model_validate({"name": "train", "runtime": "jax", "image": "us-docker.pkg.dev/acme/train:1", "command": "python3 t.py",
                                          **({"tpuPool": "main"} if on_tpu else {"jax": {"processes": 2}})})
    where = target(topology="2x4", slices=2) if on_tpu else Placement(namespace="ml", cpu_pool="cpu-np")
    js = build_jax_jobset(w, where)
    template = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    assert template["metadata"]["annotations"] == {SAFE_TO_EVICT_ANNOTATION: "false"}  # process 0 is one of them


def test_custom_server_and_proxy_images_need_no_version_and_the_worker_follows_the_server():
    server = "us-docker.pkg.dev/acme/pw/server:custom-1"
    proxy = "us-docker.pkg.dev/acme/pw/proxy:custom-1"
    w = workload(pathways={"gcsScratch": "gs://acme-pw/tmp", "images": {"server": server, "proxy": proxy}})
    assert [p.path for p in pathways_workload_problems(w, target(), "workloads[0]")] == []
    containers = {c["name"]: c["image"] for t in pod_templates(build_pathways_jobset(w, target())).values()
                  for c in t["spec"].get("initContainers", []) + t["spec"]["containers"]}
    assert containers["pathways-rm"] == server and containers["pathways-proxy"] == proxy
    assert containers["pathways-worker"] == server
    only_server = workload(pathways={"gcsScratch": "gs://acme-pw/tmp", "images": {"server": server}})
    problems = pathways_workload_problems(only_server, target(), "workloads[0]")
    assert [p.path for p in problems] == ["workloads[0].pathways.version"]
    assert "proxy" in problems[0].message and "worker" not in problems[0].message

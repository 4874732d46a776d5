"""Every declared pod fits (fit.py): real plans of shipped stacks and of layouts that never schedule."""

from __future__ import annotations

import copy

import pytest

from pathways_gke import policies
from pathways_gke.fit import groups_of, lws_version_of, place, subgroup_index
from pathways_gke.plan.engine import plan_config
from tests.conftest import ROOT
from tests.support.stacks import merged, shipped

P = "pathways-gke:"


def _resources(config, stack):
    return plan_config(config, stack=stack).to_json()["resources"]


def _owners(resources):
    return {pods[0].owner for pods, _ in groups_of(resources, lws_version_of(resources))}


SHIPPED = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


@pytest.mark.slow
@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_stack_fits(name):
    """Every pod of every shipped stack, the controllers of its installs included, has a place."""
    resources = _resources(shipped(name), name)
    assert place(resources, lws_version_of(resources)) == []
    assert any(o.startswith("Deployment jobset-system/") for o in _owners(resources))


@pytest.mark.slow
def test_four_cpu_placed_heads_on_a_one_node_cpu_pool_are_refused():
    """The head guard keeps one head per node: four heads need four CPU nodes."""
    cfg = merged("dev", cpuPool={"maxNodes": 1, "minNodes": 1})
    pool, workload = cfg[P + "tpuPools"][0], cfg[P + "workloads"][0]
    cfg[P + "tpuPools"] += [dict(pool, name=f"p{i}") for i in range(3)]
    cfg[P + "workloads"] = [dict(copy.deepcopy(workload), name=f"train{i}", tpuPool="main" if i == 0 else f"p{i - 1}")
                            for i in range(4)]
    resources = _resources(cfg, "dev")
    short = place(resources)
    assert sorted(s.owner for s in short) == ["JobSet train1", "JobSet train2", "JobSet train3"]
    assert all("head guard" in s.reason and "cpuPool.maxNodes" in s.message() for s in short)
    violations = policies.check_resources(resources)
    assert [v for v in violations if v.policy == "pathways-gke-pods-fit" and v.level == policies.MANDATORY]
    # raised to four nodes, they fit
    cfg[P + "cpuPool"]["maxNodes"] = 4
    assert place(_resources(cfg, "dev")) == []


@pytest.mark.slow
def test_six_client_proxies_of_16_cpu_100g_on_one_n2_standard_64_are_refused():
    cfg = shipped("serve")
    cfg[P + "cpuPool"] = {"machineType": "n2-standard-64", "minNodes": 1, "maxNodes": 1}
    cfg[P + "workloads"][1]["service"]["clients"] = list("abcdef")
    resources = _resources(cfg, "serve")
    short = place(resources, lws_version_of(resources))
    proxies = [s for s in short if s.owner.startswith("Deployment shared-pw-proxy-")]
    assert proxies and sum(s.missing for s in proxies) >= 2
    assert all("cpu-np (1 x n2-standard-64)" in s.message() for s in proxies)


def _lws(size, subgroup_size, policy_type=None, leader_on_tpu=True):
    tpu_selector = {"cloud.google.com/gke-tpu-topology": "2x2", "pathways-gke/tpu-group": "g"}
    leader_selector = tpu_selector if leader_on_tpu else {"cloud.google.com/gke-nodepool": "cpu"}
    sub = {"subGroupSize": subgroup_size, **({"subGroupPolicyType": policy_type} if policy_type else {})}
    return {"type": "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet", "name": "lws", "inputs": {
        "apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
        "metadata": {"name": "serve", "annotations": {
            "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology": "cloud.google.com/gke-nodepool"}},
        "spec": {"replicas": 1, "leaderWorkerTemplate": {
            "size": size, "subGroupPolicy": sub,
            "leaderTemplate": {"spec": {"nodeSelector": leader_selector, "tolerations": [
                {"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}],
                "containers": [{"name": "head", "resources": {"requests": {"cpu": "8", "memory": "32G"}}}]}},
            "workerTemplate": {"spec": {"nodeSelector": tpu_selector, "tolerations": [
                {"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}],
                "containers": [{"name": "w", "resources": {"limits": {"google.com/tpu": "4"}}}]}}}}}}


def _tpu_pool(name):
    return {"type": "gcp:container/nodePool:NodePool", "name": name, "inputs": {
        "name": name, "nodeCount": 1, "placementPolicy": {"tpuTopology": "2x2"},
        "nodeConfig": {"machineType": "ct6e-standard-4t", "labels": {"pathways-gke/tpu-group": "g"},
                       "taints": [{"key": "google.com/tpu", "value": "present", "effect": "NO_SCHEDULE"}]}}}


def test_lws_subgroup_index_follows_the_version():
    """lws#918: with subGroupSize 1 the leader is alone in subgroup 0 from v0.10.0; before, worker 1 joined it."""
    assert [subgroup_index(3, 1, i, "v0.10.0") for i in range(3)] == [0, 1, 2]
    assert [subgroup_index(3, 1, i, "v0.9.0") for i in range(3)] == [0, 0, 1]
    # an even split is the same in both; a leader beyond an even split joins subgroup 0 in both
    assert [subgroup_index(4, 2, i, "v0.10.0") for i in range(4)] == [0, 0, 1, 1] == \
        [subgroup_index(4, 2, i, "v0.9.0") for i in range(4)]
    assert [subgroup_index(5, 4, i, "v0.10.0") for i in range(5)] == [0, 0, 0, 0, 0]


def test_a_tpu_leader_alone_in_subgroup_0_needs_one_more_pool_than_the_group_has():
    """Single-host slices, two per group, the leader on a TPU VM: three subgroups need three pools under v0.10."""
    resources = [_lws(3, 1), _tpu_pool("s0"), _tpu_pool("s1")]
    assert len([g for g in groups_of(resources, "v0.10.0") if g[1]]) == 3
    short = place(resources, "v0.10.0")
    assert short and short[0].owner == "LeaderWorkerSet serve" and "exclusive" in short[0].reason
    assert place(resources, "v0.9.0") == []  # leader and worker 1 share subgroup 0
    assert place([*resources, _tpu_pool("s2")], "v0.10.0") == []
    # a leader on the CPU pool and LeaderExcluded subgroups: two pools are enough
    cpu = {"type": "gcp:container/nodePool:NodePool", "name": "cpu", "inputs": {
        "name": "cpu", "nodeCount": 1, "nodeConfig": {"machineType": "n2-standard-32"}}}
    excluded = [_lws(3, 1, "LeaderExcluded", leader_on_tpu=False), _tpu_pool("s0"), _tpu_pool("s1"), cpu]
    assert place(excluded, "v0.10.0") == []


@pytest.mark.slow
@pytest.mark.parametrize("example, stack", [("platform-python", "shared"), ("two-clusters", "shared"),
                                            ("workloads-only", "dev")])
def test_every_example_stack_fits(example, stack):
    from tests.support.examples import plan_example

    resources = plan_example(example, stack).to_json()["resources"]
    assert [s.message() for s in place(resources, lws_version_of(resources)) if not s.queued] == []


@pytest.mark.slow
def test_the_controllers_the_stack_sizes_are_placed_on_the_head_pool():
    """The JobSet and Kueue controllers run on the CPU (head) pool with the requests the readiness ConfigMap records
    (addons/sizing.py); the plan holds no Deployment for them, so the fit reads that record and the release's
    manifest (releases.controller_manifest)."""
    resources = _resources(shipped("prod"), "prod")  # Kueue on: both controllers sized
    controllers = {pods[0].owner: pods for pods, _ in groups_of(resources, "v0.10.0") if pods[0].role == "controller"}
    assert set(controllers) == {"Deployment jobset-system/jobset-controller-manager",
                                "Deployment kueue-system/kueue-controller-manager"}
    for [pod] in controllers.values():
        assert (pod.cpu_m, pod.memory) == (1000, 4096 * 2**20)  # the formula's floor at this size
        assert pod.selector == (("cloud.google.com/gke-nodepool", "cpu-np"),)


def test_a_controller_that_does_not_fit_beside_the_heads_is_refused():
    cfg = merged("dev", cpuPool={"maxNodes": 1, "minNodes": 1})
    resources = _resources(cfg, "dev")
    assert place(resources) == []  # one n2-standard-64 node: the head (16 CPU) and the controller (1 CPU)
    marker = next(r for r in resources if r["name"].endswith("services-ready"))
    marker["inputs"]["data"]["jobset.resources"] = (  # what a far larger cluster would record
        '{"limits":{"cpu":"100","memory":"4096Mi"},"requests":{"cpu":"50","memory":"4096Mi"}}')
    # the larger pod is placed first: the head is the one left without a node (and the controller's rollout pod)
    [short] = [s for s in place(resources) if not s.queued]
    assert (short.owner, short.missing, short.queued) == ("JobSet train", 1, False)
    assert [s.role for s in place(resources) if s.queued] == ["rollout"]
    assert "cpu-np (1 x n2-standard-64)" in short.message() and "cpuPool.maxNodes" in short.message()
    del marker["inputs"]["data"]["jobset.resources"]  # the manifest's 500m / 128Mi: the head fits again
    assert place(resources) == []


def _cpu_jax(processes: int, cpu: str = "60") -> dict:
    return {"name": "sweep", "runtime": "jax", "image": "us-docker.pkg.dev/acme/sweep:1", "command": "python3 s.py",
            "jax": {"processes": processes, "cpu": cpu, "memory": "8Gi"}}


@pytest.mark.slow
@pytest.mark.parametrize("kueue", [False, True])
def test_cpu_pods_that_cannot_fit_the_pool_even_alone_are_refused_with_or_without_kueue(kueue):
    """Kueue admits workloads in turn; it cannot make room that the pool lacks at its maximum size."""
    cfg = merged("dev", cpuPool={"machineType": "n2-standard-64", "minNodes": 1, "maxNodes": 2},
                 kueue={"enabled": kueue})
    cfg[P + "workloads"] = [_cpu_jax(processes=3)]  # one 60-CPU process per n2-standard-64 node: 3 > 2 nodes
    resources = _resources(cfg, "dev")
    [short] = [s for s in place(resources) if s.owner == "JobSet sweep"]
    assert (short.missing, short.queued) == (1, False)
    mandatory = [v for v in policies.check_resources(resources)
                 if v.policy == "pathways-gke-pods-fit" and v.level == policies.MANDATORY]
    assert mandatory and "JobSet sweep" in mandatory[0].message


@pytest.mark.slow
def test_cpu_pods_that_fit_alone_but_not_together_wait_their_turn_under_kueue():
    """Two workloads each fitting the pool alone, not side by side: with Kueue they run in turn (a warning)."""
    cfg = merged("dev", cpuPool={"machineType": "n2-standard-64", "minNodes": 1, "maxNodes": 2},
                 kueue={"enabled": True})
    cfg[P + "workloads"] = [dict(_cpu_jax(processes=2), name=n) for n in ("sweep", "sweep-b")]
    resources = _resources(cfg, "dev")
    waiting = [s for s in place(resources) if s.owner.startswith("JobSet sweep")]
    assert waiting and all(s.queued for s in waiting)
    levels = {v.level for v in policies.check_resources(resources) if "JobSet sweep" in v.message}
    assert levels == {policies.ADVISORY}


@pytest.mark.slow
def test_each_kind_of_pod_is_matched_against_each_pool_once(monkeypatch):
    """The pod fit indexes the pools by what pods select: 64 slices × 8 workloads ask the matcher once per (kind of
    pod, pool), not once per (pod, pool). (What it places is the other tests' business; the time is bench/'s.)"""
    import sys

    from pathways_gke import fit

    sys.path.insert(0, str(ROOT / "bench"))
    import plan_scale

    resources = _resources(plan_scale.scale_config(64), "bench")
    asked: list[tuple] = []
    matches = fit._matches

    def counted(pod, pool):
        asked.append((fit.PoolIndex.kind(pod), pool.urn))
        return matches(pod, pool)

    monkeypatch.setattr(fit, "_matches", counted)
    place(resources)
    assert len(asked) == len(set(asked)), "a kind of pod was matched against a pool twice"
    kinds = {kind for kind, _ in asked}
    assert len(kinds) < 40 and len(asked) <= len(kinds) * len(fit.pools_of(resources))

"""The controllers of the yaml/v2 installs (JobSet, Kueue, LeaderWorkerSet) in the pod fit (fit.py): the release
manifest's Deployment for every supported release (releases.CONTROLLER_MANIFESTS), sized as the readiness ConfigMap
records, on its cluster's CPU pool; a CPU pool that cannot hold them is refused naming the controller."""

from __future__ import annotations

import pytest

from pathways_gke import policies, tokens
from pathways_gke.addons.install import pin_to_node_pool
from pathways_gke.addons import services_spec
from pathways_gke.config import parse_stack
from pathways_gke.fit import groups_of, lws_version_of, place
from pathways_gke.naming import NODE_POOL_LABEL
from pathways_gke.plan.engine import plan_config
from pathways_gke.releases import CONTROLLER_MANIFESTS, RELEASES, controller_manifest, version_key
from pathways_gke.services import install_transforms
from tests.support.stacks import P, merged

MI = 2**20

# Restated from the upstream release manifests (the Deployment of `kustomize build config/default`, read at each
# tag; releases.py cites the paths): every supported release tag -> (replicas, {container: (cpu, memory) requests}).
JOBSET_080 = (1, {"manager": ("500m", "128Mi")})
KUEUE_017 = (1, {"manager": ("500m", "512Mi")})
LWS_050 = (2, {"manager": ("1", "1Gi")})
UPSTREAM = {
    "jobset": {t: JOBSET_080 for t in ("v0.8.0", "v0.8.1", "v0.8.2", "v0.9.0", "v0.9.1", "v0.10.0", "v0.10.1",
                                       "v0.11.0", "v0.11.1", "v0.12.0")},
    "kueue": {**{f"v0.17.{p}": KUEUE_017 for p in range(9)}, **{f"v0.18.{p}": KUEUE_017 for p in range(7)},
              **{f"v0.19.{p}": KUEUE_017 for p in range(3)}},
    "lws": {t: LWS_050 for t in ("v0.5.0", "v0.5.1", "v0.6.0", "v0.6.1", "v0.6.2", "v0.6.3", "v0.7.0", "v0.8.0",
                                 "v0.9.0", "v0.10.0")},
}
QUANTITY = {"500m": 500, "5m": 5, "1": 1000, "128Mi": 128, "64Mi": 64, "512Mi": 512, "1Gi": 1024}
TAGS = [(addon, tag) for addon, tags in UPSTREAM.items() for tag in tags]


@pytest.mark.parametrize("addon, tag", TAGS)
def test_the_recorded_manifest_of_every_supported_release_has_the_upstream_numbers(addon, tag):
    manifest = controller_manifest(addon, tag)
    replicas, containers = UPSTREAM[addon][tag]
    assert manifest.replicas == replicas
    assert {c.name: (dict(c.requests)["cpu"], dict(c.requests)["memory"]) for c in manifest.containers} == containers
    assert manifest.deployment == f"{addon}-controller-manager" and manifest.namespace == RELEASES[addon].namespace
    assert version_key(manifest.since) <= version_key(tag) <= version_key(manifest.through)


def test_the_recorded_releases_cover_every_supported_version():
    """The oldest entry starts at the oldest supported release, the entries do not overlap, and the newest reaches
    the default's minor (a later patch of a checked minor is placed with its numbers)."""
    for addon, entries in CONTROLLER_MANIFESTS.items():
        assert entries[0].since == RELEASES[addon].oldest
        for older, newer in zip(entries, entries[1:]):
            assert version_key(older.through) < version_key(newer.since)
        assert version_key(entries[-1].through)[:2] == version_key(RELEASES[addon].default)[:2], addon
        assert version_key(entries[-1].through) <= version_key(RELEASES[addon].default)
        with pytest.raises(ValueError, match="older than"):
            controller_manifest(addon, "v0.0.1")
    # a release past the newest checked tag keeps the newest entry's numbers
    assert controller_manifest("kueue", RELEASES["kueue"].default) == CONTROLLER_MANIFESTS["kueue"][-1]


def _resources(config, stack="fit"):
    return plan_config(config, stack=stack).to_json()["resources"]


def _controllers(resources):
    out: dict[str, list] = {}
    for pods, exclusive in groups_of(resources, lws_version_of(resources)):
        if pods[0].role == "controller":
            assert not exclusive
            out.setdefault(pods[0].owner.split("/")[0].removeprefix("Deployment ").removesuffix("-system"),
                           []).extend(pods)
    return out


def _expected(addon, tag):
    replicas, containers = UPSTREAM[addon][tag]
    cpu = sum(QUANTITY[c] for c, _ in containers.values())
    memory = sum(QUANTITY[m] for _, m in containers.values()) * MI
    return replicas, cpu, memory


@pytest.mark.slow  # plans a whole stack
@pytest.mark.parametrize("addon, tag", [(a, t) for a, t in TAGS if a != "lws"])
def test_a_jobset_or_kueue_controller_at_its_manifest_size_is_placed_with_the_upstream_numbers(addon, tag):
    sections = {"jobset": {"sizeForCluster": False}, "kueue": {"enabled": True, "sizeForCluster": False}}
    sections[addon]["version"] = tag
    cfg = merged(None, **sections)
    resources = _resources(cfg)
    controllers = _controllers(resources)
    assert set(controllers) == {"jobset", "kueue"}
    replicas, cpu, memory = _expected(addon, tag)
    pods = controllers[addon]
    assert [(p.cpu_m, p.memory) for p in pods] == [(cpu, memory)] * replicas
    assert all(p.selector == ((NODE_POOL_LABEL, "cpu-np"),) for p in pods)
    assert place(resources) == []


def _serving(**sections):
    """The serve stack with only its TPU-led LeaderWorkerSet (no CPU-placed leader, no client proxies)."""
    cfg = merged("serve", **sections)
    cfg[P + "workloads"] = cfg[P + "workloads"][:1]
    cfg[P + "tpuPools"] = cfg[P + "tpuPools"][:1]
    return cfg


@pytest.mark.slow  # plans a whole stack
@pytest.mark.parametrize("tag", sorted(UPSTREAM["lws"]))
def test_the_lws_controller_is_placed_with_the_upstream_numbers(tag):
    resources = _resources(_serving(lws={"version": tag}), "serve")
    assert lws_version_of(resources) == tag
    replicas, cpu, memory = _expected("lws", tag)
    pods = _controllers(resources)["lws"]
    assert [(p.cpu_m, p.memory) for p in pods] == [(cpu, memory)] * replicas == [(1000, 1024 * MI)] * 2
    assert all(p.selector == ((NODE_POOL_LABEL, "cpu-np"),) for p in pods)
    assert place(resources, tag) == []


def test_every_install_pins_its_controller_deployments_to_the_cpu_pool():
    """The LWS install gets the same node-pool transform as JobSet and Kueue (services.install_transforms): its
    controller must not land on a TPU host, whose nodes come and go with the slice and would take the LWS webhook
    (every LeaderWorkerSet create and pod create calls it) down with them. So the fit places it on the CPU pool."""
    import pulumi

    spec = services_spec(parse_stack(_serving(kueue={"enabled": True})))
    assert spec.lws is not None and spec.kueue is not None
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": "lws-controller-manager", "namespace": "lws-system"},
                  "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "manager"}]}}}}
    for addon in ("jobset", "kueue", "lws"):
        props = deployment
        for transform in install_transforms(spec, addon):
            result = transform(pulumi.ResourceTransformArgs(
                custom=True, type_=tokens.DEPLOYMENT, name=f"x:{addon}", props=props, opts=pulumi.ResourceOptions()))
            if result is not None:
                props = result.props
        assert props["spec"]["template"]["spec"]["nodeSelector"] == {NODE_POOL_LABEL: spec.cpu_pool}, addon
    assert pin_to_node_pool(tokens.DEPLOYMENT, deployment, "cpu-np") is not None


def _pods_fit_refusals(resources):
    return [v.message for v in policies.check_resources(resources)
            if v.policy == "pathways-gke-pods-fit" and v.level == policies.MANDATORY]


def _rollout_warnings(resources):
    return [v.message for v in policies.check_resources(resources)
            if v.policy == "pathways-gke-queued-pods-fit" and "rolling update" in v.message]


@pytest.mark.slow  # plans a whole stack
def test_a_controller_rollout_without_room_for_one_more_pod_is_warned_not_refused():
    """The controllers' Deployments keep the default RollingUpdate (maxSurge 25% rounds up to one pod, maxUnavailable
    25% down to none): a version bump or resize starts one more pod and stops an old one only when it is Ready. Two
    n2-standard-2 nodes (1930m each) hold both LWS replicas (1 CPU each) and the JobSet controller (500m), leaving
    430m and 930m: the JobSet rollout pod (500m) fits, the LWS one (1 CPU) does not, so an LWS bump would wait
    forever; that is warned (the stack runs), naming the controller, and a third node clears it."""
    cfg = _serving(cpuPool={"machineType": "n2-standard-2", "maxNodes": 2}, jobset={"sizeForCluster": False})
    resources = _resources(cfg, "serve")
    assert _pods_fit_refusals(resources) == []
    rollouts = [s for s in place(resources, lws_version_of(resources)) if s.role == "rollout"]
    assert [s.owner for s in rollouts] == ["Deployment lws-system/lws-controller-manager"]
    assert all(s.queued and (s.missing, s.total) == (1, 1) for s in rollouts)
    warnings = _rollout_warnings(resources)
    assert sorted(warnings) == sorted(s.message() for s in rollouts)
    assert all("`pulumi up` with it" in w and "raise cpuPool.maxNodes" in w for w in warnings)
    cfg[P + "cpuPool"]["maxNodes"] = 3
    assert [s for s in place(_resources(cfg, "serve")) if s.role == "rollout"] == []


@pytest.mark.slow  # plans a whole stack
def test_a_cpu_pool_too_small_for_the_lws_controller_is_refused_naming_it():
    """n2-standard-2 (1930m allocatable): the JobSet controller (500m) and one LWS replica (1 CPU) fit, the second
    LWS replica does not; a second node holds it."""
    resources = _resources(_serving(cpuPool={"machineType": "n2-standard-2", "maxNodes": 1},
                                    jobset={"sizeForCluster": False}), "serve")
    [short] = [s for s in place(resources, lws_version_of(resources)) if not s.queued]
    assert (short.owner, short.missing, short.total) == ("Deployment lws-system/lws-controller-manager", 1, 2)
    [message] = _pods_fit_refusals(resources)
    assert message == short.message()
    for text in ("LeaderWorkerSet controller v0.10.0", "cpu-np (1 x n2-standard-2)", "raise cpuPool.maxNodes",
                 "kubernetes-sigs/lws"):
        assert text in message
    assert [s for s in place(_resources(_serving(cpuPool={"machineType": "n2-standard-2", "maxNodes": 2},
                                                 jobset={"sizeForCluster": False}), "serve")) if not s.queued] == []


@pytest.mark.slow  # plans a whole stack
def test_manifest_size_controllers_left_no_room_beside_cpu_jax_processes_are_refused():
    """Four 7.5-CPU JAX processes on four n2-standard-8 nodes (7880m allocatable) leave 380m a node: neither the
    JobSet nor the Kueue controller (500m each, their manifests') has a place; a fifth node holds both."""
    jax = {"processes": 4, "cpu": "7500m", "memory": "8Gi"}
    cfg = merged("jax", cpuPool={"machineType": "n2-standard-8", "maxNodes": 4}, jobset={"sizeForCluster": False},
                 kueue={"enabled": True, "sizeForCluster": False}, workloads=[{}, {"jax": jax}])
    resources = _resources(cfg, "jax")
    short = [s for s in place(resources) if not s.queued]
    assert sorted(s.owner for s in short) == ["Deployment jobset-system/jobset-controller-manager",
                                              "Deployment kueue-system/kueue-controller-manager"]
    refusals = _pods_fit_refusals(resources)
    assert sorted(refusals) == sorted(s.message() for s in short)
    assert any("the Kueue controller v0.19.5 runs 1 pod(s) of 500m CPU / 512Mi" in m and "cpu-np (4 x n2-standard-8)"
               in m for m in refusals)
    cfg[P + "cpuPool"]["maxNodes"] = 5
    assert [s for s in place(_resources(cfg, "jax")) if not s.queued] == []


@pytest.mark.slow  # plans a whole stack
def test_a_sized_controller_larger_than_a_cpu_node_asks_for_a_larger_machine_type():
    """The sized JobSet controller (1 CPU / 4096Mi) does not fit one n2-highcpu-2 node (1436Mi allocatable) at any
    count: the message asks for a larger machine type (or the manifest's size), not for more nodes."""
    resources = _resources(merged(None, cpuPool={"machineType": "n2-highcpu-2", "maxNodes": 3}))
    [message] = _pods_fit_refusals(resources)
    assert message.startswith("Deployment jobset-system/jobset-controller-manager: 1 of 1 controller pod(s)")
    assert "use a larger cpuPool.machineType" in message and "raise cpuPool.maxNodes" not in message
    assert "jobset.sizeForCluster; false keeps the release manifest's requests" in message
    assert _pods_fit_refusals(_resources(merged(None, cpuPool={"machineType": "n2-highcpu-2", "maxNodes": 3},
                                                jobset={"sizeForCluster": False}))) == []


@pytest.mark.slow  # plans a whole stack
def test_each_cluster_s_controllers_are_placed_on_its_own_cpu_pool():
    """Two clusters whose CPU pools share the GKE name cpu-np: each cluster's controllers may use its own pool only."""
    from tests.support.examples import plan_example

    resources = plan_example("two-clusters", "shared").to_json()["resources"]
    pools = {r["urn"]: r["parent"] for r in resources if r["type"] == tokens.NODE_POOL
             and r["inputs"]["name"] == "cpu-np"}
    assert len(pools) == 2
    controllers = [pods[0] for pods, _ in groups_of(resources, "v0.10.0") if pods[0].role == "controller"]
    assert {pools[c.pool] for c in controllers} == set(pools.values())
    markers = {r["parent"]: r["inputs"]["data"] for r in resources if r["name"].endswith("services-ready")}
    for pod in controllers:
        addon = pod.owner.split("/")[1].removesuffix("-controller-manager")
        cluster = pools[pod.pool]
        assert any(parent.endswith(cluster.rsplit("::", 1)[1] + "-services") and f"{addon}.version" in data
                   for parent, data in markers.items())


@pytest.mark.slow  # plans a whole stack
def test_a_pod_is_placed_only_on_its_own_cluster_s_pools():
    """The two clusters' CPU pools are both named cpu-np: the serve cluster's head may not use the train cluster's
    nodes. With the serve CPU pool of n2-standard-4 nodes (as if so configured) its 16-CPU head has no place."""
    from tests.support.examples import plan_example

    resources = plan_example("two-clusters", "shared").to_json()["resources"]
    assert place(resources) == []
    serve_pool = next(r for r in resources if r["type"] == tokens.NODE_POOL and r["name"] == "serve-cpu")
    serve_pool["inputs"]["nodeConfig"]["machineType"] = "n2-standard-4"
    short = [s for s in place(resources) if s.owner == "JobSet serve-job"]
    assert short and all(s.pools == ("cpu-np (2 x n2-standard-4)",) for s in short)
    assert all(s.owner != "JobSet train-job" for s in place(resources))

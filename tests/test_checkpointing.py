"""Multi-tier checkpointing, from the stack to the cluster, its in-cluster configuration, the bucket grant and
the workloads' RAM-disk volume; and what is refused, naming the key and the reason."""

from __future__ import annotations

import pytest

from pathways_gke import policies
from pathways_gke.addons.sizing import controller_resources
from pathways_gke.config.stack import parse_stack
from pathways_gke.config.types import parse_quantity
from pathways_gke.errors import ConfigError
from pathways_gke.fit import place
from pathways_gke.gke.adopt import adopted_cluster_problems
from pathways_gke.plan.engine import plan_config
from tests.support.crd import jobset_schema_errors
from tests.support.jobset_rules import jobset_rule_errors
from tests.support.stacks import merged, parsed

P = "pathways-gke:"
MTC = {"bucket": "acme-ckpt", "inMemoryVolumeSize": "64Gi"}
NUMBER = "123456789012"
SIDECAR = "us-docker.pkg.dev/acme/sidecar/colocated:v1"
DRIVER = "multitier-checkpoint.csi.storage.gke.io"
AGENT = ("principal://iam.googleapis.com/projects/123456789012/locations/global/workloadIdentityPools/"
         "acme-ml-dev.svc.id.goog/subject/ns/gke-managed-checkpointing/sa/gke-checkpointing-multitier-node")


def _config(cluster_mtc=MTC, number=NUMBER, pathways_mtc=True, jax_mtc=True, **sections):
    cfg = merged("dev", **sections)
    if cluster_mtc is not None:
        cfg[P + "cluster"]["multiTierCheckpointing"] = cluster_mtc
    if number:
        cfg[P + "cluster"]["projectNumber"] = number
    train = cfg[P + "workloads"][0]
    if pathways_mtc:
        train["multiTierCheckpointing"] = {"mountPath": "/local-ckpt"}
        train["pathways"]["images"] = {"colocatedPython": SIDECAR}
    cfg[P + "workloads"].append({"name": "mc", "runtime": "jax", "tpuPool": "main", "command": "python3 t.py",
                                 "image": "us-docker.pkg.dev/acme/t:1",
                                 **({"multiTierCheckpointing": {"mountPath": "/local"}} if jax_mtc else {})})
    return cfg


def _resources(cfg):
    return plan_config(cfg, stack="dev").to_json()["resources"]


def _problems(cfg) -> dict[str, str]:
    with pytest.raises(ConfigError) as caught:
        parse_stack(cfg)
    return {p.path: p.message for p in caught.value.problems}


def _jobset(resources, name):
    return next(r["inputs"] for r in resources if r["inputs"].get("kind") == "JobSet"
                and r["inputs"]["metadata"]["name"] == name)


def _pod(js, replicated_job):
    return next(r for r in js["spec"]["replicatedJobs"] if r["name"] == replicated_job)["template"]["spec"][
        "template"]["spec"]


@pytest.mark.slow
def test_an_mtc_stack_renders_the_add_on_its_configuration_the_grant_and_the_mounts():
    resources = _resources(_config())
    [cluster] = [r["inputs"] for r in resources if r["type"] == "gcp:container/cluster:Cluster"]
    assert cluster["addonsConfig"]["highScaleCheckpointingConfig"] == {"enabled": True}
    assert cluster["addonsConfig"]["gcsFuseCsiDriverConfig"] == {"enabled": True}
    [cpc] = [r["inputs"] for r in resources if r["inputs"].get("kind") == "CheckpointConfiguration"]
    assert cpc["apiVersion"] == "checkpointing.gke.io/v1"
    assert cpc["spec"]["cloudStorageBucketName"] == "acme-ckpt"
    assert cpc["spec"]["inMemoryVolumeSize"] == "64Gi"
    assert cpc["spec"]["nodeSelector"] == {"node.kubernetes.io/instance-type": "ct6e-standard-4t"}
    assert cpc["spec"]["tolerations"] == [{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert "implicit-dirs" in cpc["spec"]["mountOptions"]
    [grant] = [r["inputs"] for r in resources if r["type"] == "gcp:storage/bucketIAMMember:BucketIAMMember"
               and r["inputs"]["member"] == AGENT]
    assert (grant["bucket"], grant["role"]) == ("acme-ckpt", "roles/storage.objectUser")
    # multi-controller JAX: the volume in the one container
    jax = _jobset(resources, "mc")
    pod = _pod(jax, "workers")
    assert pod["volumes"] == [{"name": "mtc-local-checkpoints", "csi": {"driver": DRIVER}}]
    assert pod["containers"][0]["volumeMounts"] == [{"name": "mtc-local-checkpoints", "mountPath": "/local"}]
    # Pathways: on the workers (the TPU VMs the configuration selects), in the worker and its colocated-python sidecar
    train = _jobset(resources, "train")
    worker = _pod(train, "worker")
    assert {"name": "mtc-local-checkpoints", "csi": {"driver": DRIVER}} in worker["volumes"]
    for container in [*worker["containers"], *worker["initContainers"]]:
        assert {"name": "mtc-local-checkpoints", "mountPath": "/local-ckpt"} in container["volumeMounts"]
    head = _pod(train, "pathways-head")
    assert DRIVER not in str(head)  # the head runs on the CPU pool, where no RAM disk exists
    for js in (jax, train):
        assert jobset_schema_errors(js) == {"v0.8.2": [], "v0.12.0": []}
        assert jobset_rule_errors(js) == []


def test_one_configuration_per_tpu_machine_type_of_the_stack():
    cfg = _config(pathways_mtc=False, jax_mtc=False)
    pool = dict(cfg[P + "tpuPools"][0])
    cfg[P + "tpuPools"].append({**pool, "name": "v5e", "type": "v5e", "topology": "2x2"})
    from pathways_gke.addons.checkpointing import checkpoint_configurations
    names = [obj["metadata"]["name"] for _, obj in checkpoint_configurations(parse_stack(cfg))]
    assert names == ["pathways-gke-ct5lp-hightpu-4t", "pathways-gke-ct6e-standard-4t"]


def test_without_mtc_nothing_of_it_is_rendered():
    st = parsed("dev")
    from pathways_gke.addons.checkpointing import checkpoint_configurations
    from pathways_gke.gke.cluster_spec import cluster_args
    assert checkpoint_configurations(st) == []
    assert "high_scale_checkpointing_config" not in cluster_args(st)["addons_config"]


@pytest.mark.parametrize("change, path, fragment", [
    (dict(cluster_mtc=None), "workloads[0].multiTierCheckpointing", "needs cluster.multiTierCheckpointing"),
    (dict(number=None), "cluster.projectNumber", "gke-checkpointing-multitier-node"),
    (dict(cluster={"version": "1.32.3-gke.1000"}), "cluster.version", "1.32.4-gke.1415000"),
    (dict(cluster={"version": "1.31"}), "cluster.version", "1.32.4-gke.1415000"),
    (dict(jobset={"sizeForCluster": False}), "jobset.sizeForCluster", "1000m"),
], ids=["no-cluster-mtc", "no-project-number", "below-floor", "old-line", "controller-unsized"])
def test_what_mtc_refuses_names_the_key_and_the_reason(change, path, fragment):
    sections = {k: v for k, v in change.items() if k in ("cluster", "jobset")}
    rest = {k: v for k, v in change.items() if k not in sections}
    cfg = _config(**rest)
    for section, values in sections.items():
        cfg[P + section] = {**cfg[P + section], **values}
    problems = _problems(cfg)
    assert path in problems and fragment in problems[path], problems


def test_a_pinned_version_at_the_floors_line_is_accepted():
    cfg = _config(pathways_mtc=False, jax_mtc=False)
    cfg[P + "cluster"]["version"] = "1.35"
    assert parse_stack(cfg).cluster.multi_tier_checkpointing is not None


def test_pathways_mtc_without_the_colocated_python_sidecar_is_refused():
    cfg = _config(jax_mtc=False)
    cfg[P + "workloads"][0]["pathways"].pop("images")
    assert "colocatedPython" in _problems(cfg)["workloads[0].multiTierCheckpointing"]


def test_mtc_on_a_cpu_jax_workload_is_refused():
    cfg = _config(pathways_mtc=False)
    cfg[P + "workloads"][1].pop("tpuPool")
    cfg[P + "workloads"][1]["jax"] = {"processes": 2}
    assert "CPU pool" in _problems(cfg)["workloads[1].multiTierCheckpointing"]


def test_mtc_on_a_serving_workload_is_refused():
    cfg = merged("serve")
    cfg[P + "cluster"].update(multiTierCheckpointing=MTC, projectNumber=NUMBER)
    cfg[P + "workloads"][0]["multiTierCheckpointing"] = {"mountPath": "/local"}
    assert "LeaderWorkerSet" in _problems(cfg)["workloads[0].multiTierCheckpointing"]


@pytest.mark.slow
@pytest.mark.parametrize("size, fits", [("64Gi", True), ("700Gi", False)])
def test_the_pod_fit_counts_the_ram_disk_against_the_tpu_vms_memory(size, fits):
    """ct6e-standard-4t: 720 GB of memory, less GKE's reservation; a 700Gi RAM disk leaves no room for the pod."""
    resources = _resources(_config(cluster_mtc={**MTC, "inMemoryVolumeSize": size}))
    short = [s for s in place(resources) if not s.queued]
    assert (short == []) == fits, [s.message() for s in short]
    if not fits:
        assert {s.owner for s in short} >= {"JobSet train", "JobSet mc"}
        assert any(v.policy == "pathways-gke-pods-fit" and v.level == policies.MANDATORY
                   for v in policies.check_resources(resources))


def test_the_jobset_controller_is_at_least_as_xpk_sizes_it_for_mtc():
    """XPK (core/mtc.py): requests >= 1000m / 1Gi, memory limit >= 2Gi; our sizing's floor, even for a tiny stack."""
    sized = controller_resources("jobset", nodes=1).as_resources()
    assert parse_quantity(sized["requests"]["cpu"]) >= parse_quantity("1000m")
    assert parse_quantity(sized["requests"]["memory"]) >= parse_quantity("1Gi")
    assert parse_quantity(sized["limits"]["memory"]) >= parse_quantity("2Gi")


ADOPTED = {"workloadIdentityConfig": {"workloadPool": "acme-ml-dev.svc.id.goog"},
           "datapathProvider": "ADVANCED_DATAPATH", "releaseChannel": {"channel": "REGULAR"},
           "addonsConfig": {"gcsFuseCsiDriverConfig": {"enabled": True}}, "masterVersion": "1.34.1-gke.1829001"}


@pytest.mark.parametrize("change, fragment", [
    ({}, "HighScaleCheckpointing=ENABLED"),
    ({"addonsConfig": {"gcsFuseCsiDriverConfig": {"enabled": True}, "highScaleCheckpointingConfig": {"enabled": True}},
      "masterVersion": "1.32.1-gke.100"}, "1.32.4-gke.1415000"),
], ids=["no-add-on", "old-control-plane"])
def test_an_adopted_cluster_without_what_mtc_needs_is_named_at_preview(change, fragment):
    cfg = _config(pathways_mtc=False, jax_mtc=False)
    cfg[P + "cluster"].update(create=False)
    for key in ("releaseChannel", "deletionProtection"):
        cfg[P + "cluster"].pop(key, None)
    problems = adopted_cluster_problems({**ADOPTED, **change}, parse_stack(cfg))
    assert any(fragment in p for p in problems), problems


def test_an_adopted_cluster_with_the_add_on_passes():
    cfg = _config(pathways_mtc=False, jax_mtc=False)
    cfg[P + "cluster"].update(create=False)
    for key in ("releaseChannel", "deletionProtection"):
        cfg[P + "cluster"].pop(key, None)
    props = {**ADOPTED, "addonsConfig": {"gcsFuseCsiDriverConfig": {"enabled": True},
                                         "highScaleCheckpointingConfig": {"enabled": True}}}
    assert not [p for p in adopted_cluster_problems(props, parse_stack(cfg)) if "checkpointing" in p]

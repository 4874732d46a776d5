"""The Pathways JobSet, read as a specification: the acceptance case (v6e 4x4 x 4 slices, default mode, user
workload) field by field as the Pathways operator (https://github.com/google/pathways-job) and XPK's template
(https://github.com/AI-Hypercomputer/xpk/blob/v1.16.0/src/xpk/templates/pathways_workload_create.yaml.j2) build
it, then every mode and every option (docs/pathways-workloads.md)."""

from __future__ import annotations

import copy

import pytest
from pydantic import ValidationError

from pathways_gke.render.pathways_jobset import build_pathways_jobset
from pathways_gke.render.wrapper import wrap_command

from .support.pathways_cases import EVERYTHING, workload, target

COORD = "metadata.labels['jobset.sigs.k8s.io/coordinator']"


def field(path: str) -> dict:
    return {"fieldRef": {"fieldPath": path}}


def jobs(js: dict) -> tuple[dict, dict]:
    head, worker = js["spec"]["replicatedJobs"]
    return head, worker


def pod(rjob: dict) -> dict:
    return rjob["template"]["spec"]["template"]["spec"]


def container(spec: dict, name: str) -> dict:
    found = [c for c in spec.get("initContainers", []) + spec["containers"] if c["name"] == name]
    assert len(found) == 1, name
    return found[0]


@pytest.fixture
def acceptance() -> dict:
    """v6e 4x4 x 4 slices, default mode, a user workload, Kueue on, maxRestarts 3."""
    w = workload(name="train", maxRestarts=3)
    return build_pathways_jobset(w, target("v6e", "4x4", 4, queue_name="pathways-queue", namespace="ml"))


# --- acceptance: the operator's JobSet for v6e 4x4 x 4, default mode ----------------------------------------------


def test_acceptance_top_level(acceptance):
    js = acceptance
    assert js["apiVersion"] == "jobset.x-k8s.io/v1alpha2" and js["kind"] == "JobSet"
    assert js["metadata"] == {"name": "train", "namespace": "ml", "labels": {
        "kueue.x-k8s.io/queue-name": "pathways-queue", "pathways-gke/workload": "train"}}
    spec = js["spec"]
    assert [r["name"] for r in spec["replicatedJobs"]] == ["pathways-head", "worker"]
    assert [r["replicas"] for r in spec["replicatedJobs"]] == [1, 4]
    assert spec["coordinator"] == {"replicatedJob": "pathways-head", "jobIndex": 0, "podIndex": 0}
    assert spec["startupPolicy"] == {"startupPolicyOrder": "InOrder"}
    assert spec["successPolicy"] == {"operator": "All", "targetReplicatedJobs": ["pathways-head"]}
    assert spec["network"] == {"enableDNSHostnames": True, "publishNotReadyAddresses": True}  # no subdomain
    assert spec["failurePolicy"] == {"maxRestarts": 3, "restartStrategy": "Recreate"}  # maxRestarts honoured
    assert "suspend" not in spec and "ttlSecondsAfterFinished" not in spec


def test_acceptance_head_job(acceptance):
    head, _ = jobs(acceptance)
    assert head["template"]["metadata"] == {
        "annotations": {"alpha.jobset.sigs.k8s.io/exclusive-topology": "kubernetes.io/hostname"}}
    job = head["template"]["spec"]
    assert {k: job[k] for k in ("backoffLimit", "completionMode", "completions", "parallelism")} == {
        "backoffLimit": 0, "completionMode": "Indexed", "completions": 1, "parallelism": 1}
    assert job["template"]["metadata"] == {
        "labels": {"pathways-gke/head": "true", "pathways-gke/workload": "train"},
        "annotations": {"cluster-autoscaler.kubernetes.io/safe-to-evict": "false"}}
    spec = pod(head)
    assert spec["hostNetwork"] is True and spec["dnsPolicy"] == "ClusterFirstWithHostNet"
    assert spec["restartPolicy"] == "Never"
    assert spec["nodeSelector"] == {"cloud.google.com/gke-nodepool": "cpu-np"}
    assert "tolerations" not in spec and "volumes" not in spec
    assert spec["affinity"] == {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
        "labelSelector": {"matchLabels": {"pathways-gke/head": "true"}}, "namespaceSelector": {},
        "topologyKey": "kubernetes.io/hostname"}]}}
    assert [c["name"] for c in spec["initContainers"]] == ["pathways-proxy", "pathways-rm"]
    assert all(c["restartPolicy"] == "Always" for c in spec["initContainers"])  # native sidecars
    assert [c["name"] for c in spec["containers"]] == ["jax-tpu"]


def test_acceptance_resource_manager(acceptance):
    rm = container(pod(jobs(acceptance)[0]), "pathways-rm")
    assert rm["image"] == "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:jax-0.9.2"
    assert rm["imagePullPolicy"] == "IfNotPresent"
    assert rm["args"] == ["--server_port=29001", "--gcs_scratch_location=gs://acme-pw/tmp",
                          "--node_type=resource_manager", "--instance_count=4", "--instance_type=tpuv6e:4x4"]
    assert rm["env"] == [
        {"name": "REPLICATED_JOB_NAME", "valueFrom": field("metadata.annotations['jobset.sigs.k8s.io/replicatedjob-name']")},
        {"name": "JOBSET_NAME", "valueFrom": field("metadata.annotations['jobset.sigs.k8s.io/jobset-name']")},
        {"name": "HOST_ADDRESS", "valueFrom": field(COORD)},
        {"name": "TPU_SKIP_MDS_QUERY", "value": "true"},
    ]
    assert rm["ports"] == [{"containerPort": 29001, "protocol": "TCP"}, {"containerPort": 29002, "protocol": "TCP"}]
    assert rm["resources"] == {"limits": {"cpu": "8", "memory": "32G"}}
    assert "volumeMounts" not in rm and "securityContext" not in rm


def test_acceptance_proxy(acceptance):
    proxy = container(pod(jobs(acceptance)[0]), "pathways-proxy")
    assert proxy["image"] == "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server:jax-0.9.2"
    assert proxy["args"] == ["--server_port=29000", "--resource_manager_address=$(PATHWAYS_HEAD):29001",
                             "--gcs_scratch_location=gs://acme-pw/tmp"]
    assert proxy["env"] == [{"name": "PATHWAYS_HEAD", "valueFrom": field(COORD)}]  # defines what its args expand
    assert proxy["ports"] == [{"containerPort": 29000, "protocol": "TCP"}]
    assert proxy["resources"] == {"limits": {"cpu": "16", "memory": "100G"}}


def test_acceptance_user_container(acceptance):
    user = container(pod(jobs(acceptance)[0]), "jax-tpu")
    assert user["image"] == "us-docker.pkg.dev/acme/train/trainer:2026-11-20"
    assert user["env"] == [
        {"name": "PATHWAYS_HEAD", "valueFrom": field(COORD)},
        {"name": "JAX_PLATFORMS", "value": "proxy"},
        {"name": "XCLOUD_ENVIRONMENT", "value": "GCP"},
        {"name": "JAX_BACKEND_TARGET", "value": "grpc://$(PATHWAYS_HEAD):29000"},  # after PATHWAYS_HEAD
    ]
    assert user["command"] == wrap_command("python3 train.py --steps=100")
    assert user["resources"] == {"requests": {"cpu": "2", "memory": "8Gi"}, "limits": {"cpu": "24", "memory": "100G"}}
    assert "securityContext" not in user  # not privileged unless asked
    assert "ports" not in user and "args" not in user


def test_acceptance_worker_job(acceptance):
    _, worker = jobs(acceptance)
    assert worker["template"]["metadata"] == {
        "annotations": {"alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool"}}
    job = worker["template"]["spec"]
    assert {k: job[k] for k in ("backoffLimit", "completionMode", "completions", "parallelism")} == {
        "backoffLimit": 16, "completionMode": "Indexed", "completions": 4, "parallelism": 4}
    spec = pod(worker)
    assert spec["hostNetwork"] is True and spec["dnsPolicy"] == "ClusterFirstWithHostNet"
    assert spec["restartPolicy"] == "OnFailure"
    assert spec["terminationGracePeriodSeconds"] == 30
    assert spec["nodeSelector"] == {"cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice",
                                    "cloud.google.com/gke-tpu-topology": "4x4", "pathways-gke/tpu-group": "main"}
    assert spec["tolerations"] == [{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert spec["volumes"] == [{"name": "shared-tmp", "hostPath": {"path": "/tmp", "type": "DirectoryOrCreate"}}]
    assert "initContainers" not in spec and "priorityClassName" not in spec


def test_acceptance_worker_container(acceptance):
    worker = container(pod(jobs(acceptance)[1]), "pathways-worker")
    assert worker["image"] == "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server:jax-0.9.2"
    assert worker["args"] == ["--server_port=29005", "--resource_manager_address=$(PATHWAYS_HEAD):29001",
                              "--gcs_scratch_location=gs://acme-pw/tmp"]
    assert [(e["name"], e.get("value") or e["valueFrom"]["fieldRef"]["fieldPath"]) for e in worker["env"]] == [
        ("TPU_MIN_LOG_LEVEL", "0"), ("TF_CPP_MIN_LOG_LEVEL", "0"), ("XCLOUD_ENVIRONMENT", "GCP"),
        ("MEGASCALE_GRPC_ENABLE_XOR_TRACER", "false"),
        ("MEGASCALE_NUM_SLICES", "metadata.labels['jobset.sigs.k8s.io/replicatedjob-replicas']"),
        ("JOBSET_NAME", "metadata.annotations['jobset.sigs.k8s.io/jobset-name']"),
        ("REPLICATED_JOB_NAME", "metadata.annotations['jobset.sigs.k8s.io/replicatedjob-name']"),
        ("MEGASCALE_SLICE_ID", "metadata.labels['jobset.sigs.k8s.io/job-index']"),
        ("PATHWAYS_HEAD", COORD), ("MEGASCALE_COORDINATOR_ADDRESS", COORD)]
    assert worker["ports"] == [{"containerPort": p, "protocol": "TCP"} for p in (29005, 29006, 8471, 8080)]
    assert worker["resources"] == {"limits": {"google.com/tpu": "4"}}
    assert worker["volumeMounts"] == [{"name": "shared-tmp", "mountPath": "/tmp"}]


def test_deterministic(acceptance):
    w = workload(name="train", maxRestarts=3)
    again = build_pathways_jobset(w, target("v6e", "4x4", 4, queue_name="pathways-queue", namespace="ml"))
    assert again == acceptance and repr(again) == repr(acceptance)


# --- derivations across the catalog ------------------------------------------------------------------------


@pytest.mark.parametrize("gen, topo, machine, key, vms, chips", [
    ("v5p", "2x2x2", None, "tpuv5:2x2x2", 2, "4"),
    ("v5e", "2x4", None, "tpuv5e:2x4", 2, "4"),
    ("v5e", "2x4", "ct5lp-hightpu-8t", "tpuv5e1t:2x4", 1, "8"),
    ("v6e", "2x4", "ct6e-standard-8t", "tpuv6e1t:2x4", 1, "8"),
    ("v6e", "1x1", None, "tpuv6e:1x1", 1, "1"),
    ("v6e", "2x2", None, "tpuv6e:2x2", 1, "4"),
    ("v4", "2x2x2", None, "tpuv4:2x2x2", 2, "4"),
    ("tpu7x", "2x2x1", None, "tpu7x:2x2x1", 1, "4"),
    ("tpu7x", "4x4x8", None, "tpu7x:4x4x8", 32, "4"),
    ("tpu7x", "1x1x1", None, "tpu7x:1x1x1", 1, "1"),
])
def test_instance_type_vms_and_tpu_limit(gen, topo, machine, key, vms, chips):
    js = build_pathways_jobset(workload(), target(gen, topo, 2, machine))
    head, worker = jobs(js)
    assert f"--instance_type={key}" in container(pod(head), "pathways-rm")["args"]
    assert "--instance_count=2" in container(pod(head), "pathways-rm")["args"]
    job = worker["template"]["spec"]
    assert job["completions"] == job["parallelism"] == vms
    assert job["backoffLimit"] == 4 * vms
    assert container(pod(worker), "pathways-worker")["resources"]["limits"] == {"google.com/tpu": chips}


def test_tpu7x_multi_host_selects_the_workload_policy():
    js = build_pathways_jobset(workload(), target("tpu7x", "4x4x8", 2, placement_policy="pw-main-wp"))
    assert pod(jobs(js)[1])["nodeSelector"]["cloud.google.com/placement-policy-name"] == "pw-main-wp"


# --- modes -------------------------------------------------------------------------------------------------


def test_headless_is_a_valid_interactive_pod():
    js = build_pathways_jobset(workload(mode="headless", image=None, command=None), target())
    assert "successPolicy" not in js["spec"]  # lives until deleted
    head = pod(jobs(js)[0])
    assert "initContainers" not in head
    assert [c["name"] for c in head["containers"]] == ["pathways-proxy", "pathways-rm"]
    assert all("restartPolicy" not in c for c in head["containers"])  # XPK bug #14 not copied
    assert head["nodeSelector"] == {"cloud.google.com/gke-nodepool": "cpu-np"}
    assert jobs(js)[0]["template"]["metadata"]["annotations"]


def test_colocated_head_sits_on_the_slice_with_a_tpu_toleration():
    js = build_pathways_jobset(workload(mode="colocated"), target("v6e", "2x4", 1))
    head, worker = jobs(js)
    assert "metadata" not in head["template"]  # no hostname exclusivity: it shares a VM with a worker
    assert "metadata" not in worker["template"]  # one pool: exclusivity would lock the head's pool
    spec = pod(head)
    assert spec["nodeSelector"] == pod(worker)["nodeSelector"] == {
        "cloud.google.com/gke-tpu-accelerator": "tpu-v6e-slice", "cloud.google.com/gke-tpu-topology": "2x4",
        "pathways-gke/tpu-group": "main"}
    assert spec["tolerations"] == [{"key": "google.com/tpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert all("google.com/tpu" not in str(c.get("resources")) for c in spec["initContainers"] + spec["containers"])
    assert js["spec"]["successPolicy"]["targetReplicatedJobs"] == ["pathways-head"]


# --- options -----------------------------------------------------------------------------------------------


def test_version_tags_default_images_and_custom_images_are_verbatim():
    w = workload(pathways={"version": "20260608-jax_0.10.1", "gcsScratch": "gs://bkt/t",
                           "images": {"proxy": "example.com/p/proxy@sha256:" + "a" * 64}})
    head, worker = jobs(build_pathways_jobset(w, target()))
    assert container(pod(head), "pathways-rm")["image"].endswith("/pathways/server:20260608-jax_0.10.1")
    assert container(pod(head), "pathways-proxy")["image"] == "example.com/p/proxy@sha256:" + "a" * 64
    assert container(pod(worker), "pathways-worker")["image"].endswith("/pathways/server:20260608-jax_0.10.1")


def test_custom_server_image_is_used_by_workers_unless_a_worker_image_is_given():
    images = {"server": "example.com/pw/server:v1"}
    w = workload(pathways={"gcsScratch": "gs://bkt/t", "images": images, "version": "jax-0.9.2"})
    assert container(pod(jobs(build_pathways_jobset(w, target()))[1]), "pathways-worker")["image"] == images["server"]
    w = workload(pathways={"gcsScratch": "gs://bkt/t", "version": "jax-0.9.2",
                           "images": {**images, "worker": "example.com/pw/worker:v2"}})
    assert container(pod(jobs(build_pathways_jobset(w, target()))[1]), "pathways-worker")["image"].endswith("worker:v2")


def test_custom_flags_and_env_are_appended_per_component():
    w = workload(pathways={"version": "v1", "gcsScratch": "gs://bkt/t", "metrics": True,
                           "flags": {"server": ["--s=1"], "proxy": ["--p=1"], "worker": ["--w=1"]},
                           "env": {"server": {"S": "1"}, "proxy": {"P": "1"}, "worker": {"W": "1", "A": "0"}}})
    head, worker = jobs(build_pathways_jobset(w, target()))
    rm, proxy = container(pod(head), "pathways-rm"), container(pod(head), "pathways-proxy")
    wk = container(pod(worker), "pathways-worker")
    assert rm["args"][-2:] == ["--enable_metrics_collection=true", "--s=1"]
    assert proxy["args"][-2:] == ["--enable_metrics_collection=true", "--p=1"]
    assert wk["args"][-2:] == ["--enable_metrics_collection=true", "--w=1"]
    assert rm["env"][-1] == {"name": "S", "value": "1"} and proxy["env"][-1] == {"name": "P", "value": "1"}
    assert [e["name"] for e in wk["env"][-2:]] == ["A", "W"]  # sorted, after the managed ones


def test_elastic_slices_flag_and_backoff_formula():
    w = workload(pathways={"version": "v1", "gcsScratch": "gs://bkt/t", "elasticSlices": 2, "maxSliceRestarts": 3})
    head, worker = jobs(build_pathways_jobset(w, target("v6e", "4x4", 4)))
    args = container(pod(head), "pathways-proxy")["args"]
    assert args[3] == "--num_elastic_slices=2"  # before custom flags (CTK/XPK order)
    assert worker["template"]["spec"]["backoffLimit"] == 12  # maxSliceRestarts x VMs


def test_no_elastic_flag_without_elastic_slices():
    head, _ = jobs(build_pathways_jobset(workload(), target()))
    assert not any("elastic" in a for a in container(pod(head), "pathways-proxy")["args"])


def test_priority_class_service_account_grace_period_and_pull_secrets_on_head_and_workers():
    w = workload(priorityClass="high", serviceAccount="trainer", terminationGracePeriodSeconds=300,
                 imagePullSecrets=["regcred"])
    for rjob in jobs(build_pathways_jobset(w, target())):
        spec = pod(rjob)
        assert (spec["priorityClassName"], spec["serviceAccountName"], spec["terminationGracePeriodSeconds"]) == (
            "high", "trainer", 300)
        assert spec["imagePullSecrets"] == [{"name": "regcred"}]


def test_colocated_python_sidecar_on_workers():
    w = workload(pathways={"version": "v1", "gcsScratch": "gs://bkt/t",
                           "images": {"colocatedPython": "example.com/cp/sidecar:v3"}})
    head, worker = jobs(build_pathways_jobset(w, target()))
    side = pod(worker)["initContainers"]
    assert side == [{
        "name": "colocated-python-sidecar", "image": "example.com/cp/sidecar:v3", "imagePullPolicy": "IfNotPresent",
        "env": [{"name": "GRPC_SERVER_ADDRESS", "value": "0.0.0.0:50051"},  # no stray quotes (OP bug #4)
                {"name": "PYTHONUNBUFFERED", "value": "1"}],
        "ports": [{"containerPort": 50051, "protocol": "TCP"}],
        "volumeMounts": [{"name": "shared-tmp", "mountPath": "/tmp"}],
        "restartPolicy": "Always"}]
    assert "colocated" not in str(pod(head))


def test_env_and_secret_env_become_values_and_secret_key_refs():
    w = workload(env={"B": "2", "A": "1"}, secretEnv={"HF_TOKEN": "hf", "API_KEY": "api"})
    user = pod(jobs(build_pathways_jobset(w, target(), secret_name="train-env"))[0])["containers"][0]
    assert user["env"][4:] == [
        {"name": "A", "value": "1"}, {"name": "B", "value": "2"},
        {"name": "API_KEY", "valueFrom": {"secretKeyRef": {"name": "train-env", "key": "API_KEY"}}},
        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "train-env", "key": "HF_TOKEN"}}}]


def test_secret_env_without_a_secret_name_is_refused():
    with pytest.raises(ValueError, match="no Secret name"):
        build_pathways_jobset(workload(secretEnv={"HF_TOKEN": "hf"}), target())


def test_resources_privileged_pull_policy_and_container_name():
    w = workload(resources={"requests": {"cpu": "8", "memory": "32Gi"}, "limits": {}}, privileged=True,
                 imagePullPolicy="Always", containerName="main")
    js = build_pathways_jobset(w, target())
    user = pod(jobs(js)[0])["containers"][0]
    assert user["name"] == "main"
    assert user["resources"] == {"requests": {"cpu": "8", "memory": "32Gi"}}
    assert user["securityContext"] == {"privileged": True}
    pulls = {c["imagePullPolicy"] for rj in jobs(js) for c in pod(rj).get("initContainers", []) + pod(rj)["containers"]}
    assert pulls == {"Always"}


def test_command_as_a_list_is_joined_safely_and_no_command_keeps_the_entrypoint():
    user = pod(jobs(build_pathways_jobset(workload(command=["python3", "-c", "print('a b')"]), target()))[0])
    assert user["containers"][0]["command"][-1] == "python3 -c 'print('\"'\"'a b'\"'\"')'"
    user = pod(jobs(build_pathways_jobset(workload(command=None), target()))[0])
    assert "command" not in user["containers"][0]


def test_gcs_fuse_volumes_on_head_and_optionally_workers():
    w = workload(serviceAccount="trainer", gcsFuse=EVERYTHING["gcsFuse"])
    head, worker = jobs(build_pathways_jobset(w, target()))
    assert head["template"]["spec"]["template"]["metadata"]["annotations"] == {
        "cluster-autoscaler.kubernetes.io/safe-to-evict": "false", "gke-gcsfuse/volumes": "true"}
    assert [v["name"] for v in pod(head)["volumes"]] == ["ckpt", "data"]
    assert pod(head)["volumes"][1] == {"name": "data", "csi": {
        "driver": "gcsfuse.csi.storage.gke.io", "readOnly": True,
        "volumeAttributes": {"bucketName": "acme-data", "hostNetworkPodKSA": "true"}}}
    assert pod(head)["containers"][0]["volumeMounts"] == [{"name": "ckpt", "mountPath": "/ckpt"},
                                                         {"name": "data", "mountPath": "/data", "readOnly": True}]
    assert [v["name"] for v in pod(worker)["volumes"]] == ["shared-tmp", "ckpt"]
    assert pod(worker)["volumes"][1]["csi"]["volumeAttributes"]["mountOptions"] == "implicit-dirs"
    assert container(pod(worker), "pathways-worker")["volumeMounts"][1] == {"name": "ckpt", "mountPath": "/ckpt"}


@pytest.mark.parametrize("capacity, toleration_key, selector", [
    ("spot", "cloud.google.com/gke-spot", None),
    ("flex-start", "cloud.google.com/gke-flex-start", None),
    ("queued", "cloud.google.com/gke-queued", "cloud.google.com/gke-queued"),
    ("reservation", None, None),
])
def test_capacity_tolerations_and_selectors(capacity, toleration_key, selector):
    spec = pod(jobs(build_pathways_jobset(workload(), target(capacity=capacity)))[1])
    keys = [t["key"] for t in spec["tolerations"]]
    assert keys == ["google.com/tpu"] + ([toleration_key] if toleration_key else [])
    assert (selector in spec["nodeSelector"]) if selector else len(spec["nodeSelector"]) == 3


def test_no_queue_label_without_kueue():
    assert build_pathways_jobset(workload(), target())["metadata"]["labels"] == {"pathways-gke/workload": "train"}


def test_builder_refuses_a_workload_without_a_tpu_pool():
    with pytest.raises(ValueError, match="TPU pool"):
        build_pathways_jobset(workload(), target().__class__(namespace="ml", cpu_pool="cpu-np"))


def test_a_pathways_workload_cannot_be_a_jax_one():
    """The runtime picks the model: a Pathways workload's model refuses runtime jax and the jax block."""
    with pytest.raises(ValidationError, match="runtime"):
        workload(runtime="jax")


def test_builder_does_not_mutate_its_inputs():
    w = workload(**{k: copy.deepcopy(v) for k, v in EVERYTHING.items()})
    before = w.model_dump()
    build_pathways_jobset(w, target(), secret_name="s")
    assert w.model_dump() == before

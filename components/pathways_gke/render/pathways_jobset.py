"""The Pathways JobSet (head + workers) as plain data — no Pulumi import.

`build_pathways_jobset(workload, placement, secret_name=...)` returns the `jobset.x-k8s.io/v1alpha2` JobSet
object for one `runtime: pathways` workload in any mode. Every value follows the peers' common core
(XPK https://github.com/AI-Hypercomputer/xpk/blob/v1.16.0/src/xpk/templates/pathways_workload_create.yaml.j2,
Cluster Toolkit, the google/pathways-job operator) — XPK's field layout where they differ only in form — and every
deliberate difference is listed in docs/coming-from-xpk.md. Deterministic: same inputs, same dict.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import naming
from ..catalog import SliceShape
from ..config.placement import Placement
from ..config.workloads import PathwaysWorkloadConfig
from ..pathways_facts import (COLOCATED_PYTHON_CONTAINER, COLOCATED_PYTHON_PORT, PROXY_CONTAINER, RM_CONTAINER,
                              WORKER_BACKOFF_PER_VM, WORKER_CONTAINER, pipe_timeout_env)
from .head import guard_head
from .pod import (PROXY_PORT, RM_PORT, RM_PORTS, WORKER_PORT, WORKER_PORTS, client_container, component_images,
                  container_ports, custom_env, dynamic_slice_annotations, field_env, fuse_mounts, fuse_volumes,
                  image_pull_policy, mtc_mounts, mtc_volumes, pod_options, server_resources, sidecar_container,
                  slice_exclusive_annotation, tpu_node_selector, tpu_pod_tolerations, tpu_shape, value_env)

# --- constants from the references ----------------------------------------------------------------------

SHARED_TMP = "shared-tmp"

COORDINATOR_LABEL_PATH = "metadata.labels['jobset.sigs.k8s.io/coordinator']"
JOBSET_NAME_PATH = "metadata.annotations['jobset.sigs.k8s.io/jobset-name']"
REPLICATED_JOB_NAME_PATH = "metadata.annotations['jobset.sigs.k8s.io/replicatedjob-name']"
REPLICATED_JOB_REPLICAS_PATH = "metadata.labels['jobset.sigs.k8s.io/replicatedjob-replicas']"
JOB_INDEX_PATH = "metadata.labels['jobset.sigs.k8s.io/job-index']"


# --- small helpers ---------------------------------------------------------------------------------------


def worker_backoff_limit(workload: PathwaysWorkloadConfig, shape: SliceShape) -> int:
    pw = workload.pathways
    if pw.elastic_slices > 0:
        return pw.max_slice_restarts * shape.vms_per_slice
    return WORKER_BACKOFF_PER_VM * shape.vms_per_slice


def _head_machine(workload: PathwaysWorkloadConfig, placement: Placement) -> Optional[str]:
    """The TPU VM machine type the head shares with a worker (mode colocated), else None (a CPU-pool head)."""
    return placement.shape.machine_type if workload.mode == "colocated" and placement.shape is not None else None


def headless(workload: PathwaysWorkloadConfig) -> bool:
    return workload.mode == "headless"


# --- containers ------------------------------------------------------------------------------------------


def rm_container(workload: PathwaysWorkloadConfig, placement: Placement, *, sidecar: bool) -> dict[str, Any]:
    pw = workload.pathways
    shape = tpu_shape(placement)
    args = [
        f"--server_port={RM_PORT}",
        f"--gcs_scratch_location={pw.gcs_scratch}",
        "--node_type=resource_manager",
        f"--instance_count={placement.slice_count}",
        f"--instance_type={shape.instance_type}",
        *(["--enable_metrics_collection=true"] if pw.metrics else []),
        *pw.flags.server,
    ]
    env = [
        field_env("REPLICATED_JOB_NAME", REPLICATED_JOB_NAME_PATH),
        field_env("JOBSET_NAME", JOBSET_NAME_PATH),
        field_env("HOST_ADDRESS", COORDINATOR_LABEL_PATH),
        value_env("TPU_SKIP_MDS_QUERY", "true"),
        *pipe_timeout_env(pw.pipe_unreachable_timeout),
        *custom_env(pw.env.server),
    ]
    container = {
        "name": RM_CONTAINER,
        "image": component_images(workload)["server"],
        "imagePullPolicy": image_pull_policy(workload),
        "args": args,
        "env": env,
        "ports": container_ports(*RM_PORTS),
        "resources": server_resources(RM_CONTAINER, _head_machine(workload, placement)),
    }
    if sidecar:
        container["restartPolicy"] = "Always"
    return container


def proxy_container(workload: PathwaysWorkloadConfig, *, sidecar: bool,
                    placement: Optional[Placement] = None) -> dict[str, Any]:
    pw = workload.pathways
    args = [
        f"--server_port={PROXY_PORT}",
        f"--resource_manager_address=$(PATHWAYS_HEAD):{RM_PORT}",
        f"--gcs_scratch_location={pw.gcs_scratch}",
        *([f"--num_elastic_slices={pw.elastic_slices}"] if pw.elastic_slices > 0 else []),
        *(["--enable_metrics_collection=true"] if pw.metrics else []),
        *pw.flags.proxy,
    ]
    container = {
        "name": PROXY_CONTAINER,
        "image": component_images(workload)["proxy"],
        "imagePullPolicy": image_pull_policy(workload),
        "args": args,
        "env": [field_env("PATHWAYS_HEAD", COORDINATOR_LABEL_PATH), *pipe_timeout_env(pw.pipe_unreachable_timeout),
                *custom_env(pw.env.proxy)],
        "ports": container_ports(PROXY_PORT),
        "resources": server_resources(PROXY_CONTAINER, _head_machine(workload, placement) if placement else None),
    }
    if sidecar:
        container["restartPolicy"] = "Always"
    return container


def user_container(workload: PathwaysWorkloadConfig, *, secret_name: Optional[str]) -> dict[str, Any]:
    backend = [
        field_env("PATHWAYS_HEAD", COORDINATOR_LABEL_PATH),
        value_env("JAX_PLATFORMS", "proxy"),
        value_env("XCLOUD_ENVIRONMENT", "GCP"),
        value_env("JAX_BACKEND_TARGET", f"grpc://$(PATHWAYS_HEAD):{PROXY_PORT}"),
        *pipe_timeout_env(workload.pathways.pipe_unreachable_timeout),
    ]
    return client_container(workload, backend, secret_name=secret_name, mounts=fuse_mounts(workload, workers=False))


def worker_container(workload: PathwaysWorkloadConfig, placement: Placement) -> dict[str, Any]:
    pw = workload.pathways
    shape = tpu_shape(placement)
    args = [
        f"--server_port={WORKER_PORT}",
        f"--resource_manager_address=$(PATHWAYS_HEAD):{RM_PORT}",
        f"--gcs_scratch_location={pw.gcs_scratch}",
        *(["--enable_metrics_collection=true"] if pw.metrics else []),
        *pw.flags.worker,
    ]
    env = [
        value_env("TPU_MIN_LOG_LEVEL", "0"),
        value_env("TF_CPP_MIN_LOG_LEVEL", "0"),
        value_env("XCLOUD_ENVIRONMENT", "GCP"),
        value_env("MEGASCALE_GRPC_ENABLE_XOR_TRACER", "false"),
        field_env("MEGASCALE_NUM_SLICES", REPLICATED_JOB_REPLICAS_PATH),
        field_env("JOBSET_NAME", JOBSET_NAME_PATH),
        field_env("REPLICATED_JOB_NAME", REPLICATED_JOB_NAME_PATH),
        field_env("MEGASCALE_SLICE_ID", JOB_INDEX_PATH),
        field_env("PATHWAYS_HEAD", COORDINATOR_LABEL_PATH),
        field_env("MEGASCALE_COORDINATOR_ADDRESS", COORDINATOR_LABEL_PATH),
        *pipe_timeout_env(pw.pipe_unreachable_timeout),
        *custom_env(pw.env.worker),
    ]
    return {
        "name": WORKER_CONTAINER,
        "image": component_images(workload)["worker"],
        "imagePullPolicy": image_pull_policy(workload),
        "args": args,
        "env": env,
        "ports": container_ports(*WORKER_PORTS),
        "resources": {"limits": {naming.TPU_RESOURCE: str(shape.chips_per_vm)}},
        "volumeMounts": [{"name": SHARED_TMP, "mountPath": "/tmp"}, *fuse_mounts(workload, workers=True),
                         *mtc_mounts(workload)],
    }


def colocated_python_container(workload: PathwaysWorkloadConfig) -> dict[str, Any]:
    return {
        "name": COLOCATED_PYTHON_CONTAINER,
        "image": component_images(workload)["colocatedPython"],
        "imagePullPolicy": image_pull_policy(workload),
        "env": [value_env("GRPC_SERVER_ADDRESS", f"0.0.0.0:{COLOCATED_PYTHON_PORT}"),
                value_env("PYTHONUNBUFFERED", "1")],
        "ports": container_ports(COLOCATED_PYTHON_PORT),
        # the sidecar writes the workers' local checkpoints (Orbax on Pathways): the RAM disk is mounted here too
        "volumeMounts": [{"name": SHARED_TMP, "mountPath": "/tmp"}, *mtc_mounts(workload)],
        "restartPolicy": "Always",
    }


# --- volumes ---------------------------------------------------------------------------------------------


def _pod_annotations(workload: PathwaysWorkloadConfig, *, workers: bool) -> dict[str, str]:
    if fuse_volumes(workload, workers=workers):
        return {naming.GCS_FUSE_ANNOTATION: "true"}
    return {}


# --- pods and jobs ---------------------------------------------------------------------------------------


def _pod_common(workload: PathwaysWorkloadConfig) -> dict[str, Any]:
    """Fields head and worker pods share (in the order they are written)."""
    return {"hostNetwork": True, "dnsPolicy": "ClusterFirstWithHostNet", **pod_options(workload)}


def head_pod_spec(workload: PathwaysWorkloadConfig, placement: Placement, *, secret_name: Optional[str]) -> dict:
    spec = _pod_common(workload)
    spec["restartPolicy"] = "Never"
    if workload.mode == "colocated":
        spec["nodeSelector"] = tpu_node_selector(placement)
        spec["tolerations"] = tpu_pod_tolerations(placement)
    else:
        spec["nodeSelector"] = {naming.NODE_POOL_LABEL: placement.cpu_pool}
    if headless(workload):
        spec["containers"] = [proxy_container(workload, sidecar=False, placement=placement),
                              rm_container(workload, placement, sidecar=False),
                              *(sidecar_container(workload, s, native=False) for s in workload.sidecars)]
    else:
        spec["initContainers"] = [proxy_container(workload, sidecar=True, placement=placement),
                                  rm_container(workload, placement, sidecar=True),
                                  *(sidecar_container(workload, s, native=True) for s in workload.sidecars)]
        spec["containers"] = [user_container(workload, secret_name=secret_name)]
        volumes = fuse_volumes(workload, workers=False)
        if volumes:
            spec["volumes"] = volumes
    return spec


def worker_pod_spec(workload: PathwaysWorkloadConfig, placement: Placement) -> dict:
    spec = _pod_common(workload)
    spec["restartPolicy"] = "OnFailure"
    spec["nodeSelector"] = tpu_node_selector(placement)
    spec["tolerations"] = tpu_pod_tolerations(placement)
    if workload.pathways.images.colocated_python:
        spec["initContainers"] = [colocated_python_container(workload)]
    spec["containers"] = [worker_container(workload, placement)]
    spec["volumes"] = [
        {"name": SHARED_TMP, "hostPath": {"path": "/tmp", "type": "DirectoryOrCreate"}},
        *fuse_volumes(workload, workers=True),
        *mtc_volumes(workload),
    ]
    return spec


def _pod_metadata(workload: PathwaysWorkloadConfig, *, workers: bool) -> dict[str, Any]:
    meta: dict[str, Any] = {"labels": {naming.WORKLOAD_LABEL: workload.name}}
    annotations = _pod_annotations(workload, workers=workers)
    if annotations:
        meta["annotations"] = annotations
    return meta


def _head_pod_template(workload: PathwaysWorkloadConfig, placement: Placement, *, secret_name: Optional[str]) -> dict:
    metadata, spec = guard_head(_pod_metadata(workload, workers=False),
                                head_pod_spec(workload, placement, secret_name=secret_name))
    return {"metadata": metadata, "spec": spec}


def head_pod_failure_policy(workload: PathwaysWorkloadConfig) -> dict[str, Any]:
    """`restartOnExitCodes`: any other failure of the user container fails the head Job at once (FailJob, reason
    PodFailurePolicy, which the JobSet rule turns into FailJobSet); a listed code, or an eviction (DisruptionTarget,
    counted first), spends the head's backoffLimit 0 and the JobSet restarts (maxRestarts). Cluster Toolkit's
    --restart-on-exit-codes rule (7c70d26), scoped to the user container so the servers' SIGTERM exits at pod end
    never count. Only here: the head's pods restart Never; the Job API refuses a podFailurePolicy on the workers'
    OnFailure pods (Cluster Toolkit puts it there too)."""
    if not workload.restart_on_exit_codes:
        return {}
    return {"podFailurePolicy": {"rules": [
        # a head evicted (node drain, spot preemption, maintenance) is counted as before: the run restarts rather
        # than ending on the SIGTERM exit code (143) of its user container
        {"action": "Count", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
        {"action": "FailJob",
         "onExitCodes": {"containerName": workload.container_name, "operator": "NotIn",
                         "values": list(workload.restart_on_exit_codes)}},
    ]}}


def failure_policy(workload: PathwaysWorkloadConfig) -> dict[str, Any]:
    """maxRestarts, the restart strategy, and the rules: FailJobSet when the head Job failed through its
    podFailurePolicy (restartOnExitCodes), RestartJob of the failed slice's Job only (restart.perSlice)."""
    policy: dict[str, Any] = {"maxRestarts": workload.max_restarts, "restartStrategy": workload.restart.strategy}
    rules = []
    if workload.restart_on_exit_codes:
        rules.append({"name": "failOnOtherExitCodes", "action": "FailJobSet",
                      "onJobFailureReasons": ["PodFailurePolicy"]})
    if workload.restart.per_slice:
        rules.append({"name": "restartFailedSlice", "action": "RestartJob",
                      "targetReplicatedJobs": [naming.PATHWAYS_WORKER_JOB]})
    if rules:
        policy["rules"] = rules
    return policy


def head_replicated_job(workload: PathwaysWorkloadConfig, placement: Placement, *, secret_name: Optional[str]) -> dict:
    job_meta: dict[str, Any] = {}
    if workload.mode != "colocated":  # one head per CPU node (host ports 29000-29002)
        job_meta = {"annotations": {naming.EXCLUSIVE_TOPOLOGY_ANNOTATION: naming.HOSTNAME_LABEL}}
    return {
        "name": naming.PATHWAYS_HEAD_JOB,
        "replicas": 1,
        "template": {
            **({"metadata": job_meta} if job_meta else {}),
            "spec": {
                "backoffLimit": 0,
                "completionMode": "Indexed",
                "completions": 1,
                "parallelism": 1,
                **head_pod_failure_policy(workload),
                "template": _head_pod_template(workload, placement, secret_name=secret_name),
            },
        },
    }


def worker_replicated_job(workload: PathwaysWorkloadConfig, placement: Placement) -> dict:
    shape = tpu_shape(placement)
    job_meta: dict[str, Any] = {}
    if workload.mode != "colocated" and (exclusive := slice_exclusive_annotation(placement)):
        job_meta = {"annotations": exclusive}  # one slice = one child Job = one node pool
    pod_meta = _pod_metadata(workload, workers=True)
    if dynamic := dynamic_slice_annotations(placement):
        pod_meta["annotations"] = dict(sorted({**pod_meta.get("annotations", {}), **dynamic}.items()))
    return {
        "name": naming.PATHWAYS_WORKER_JOB,
        "replicas": placement.slice_count,
        "template": {
            **({"metadata": job_meta} if job_meta else {}),
            "spec": {
                "backoffLimit": worker_backoff_limit(workload, shape),
                "completionMode": "Indexed",
                "completions": shape.vms_per_slice,
                "parallelism": shape.vms_per_slice,
                "template": {
                    "metadata": pod_meta,
                    "spec": worker_pod_spec(workload, placement),
                },
            },
        },
    }


def build_pathways_jobset(workload: PathwaysWorkloadConfig, placement: Placement, *,
                          secret_name: Optional[str] = None) -> dict[str, Any]:
    """The JobSet for a validated `runtime: pathways` workload on `placement` (see module doc)."""
    tpu_shape(placement)
    labels = {naming.WORKLOAD_LABEL: workload.name}
    if placement.queue_name:
        labels[naming.QUEUE_NAME_LABEL] = placement.queue_name
    spec: dict[str, Any] = {
        "failurePolicy": failure_policy(workload),
        "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
        "coordinator": {"replicatedJob": naming.PATHWAYS_HEAD_JOB, "jobIndex": 0, "podIndex": 0},
        "startupPolicy": {"startupPolicyOrder": "InOrder"},
    }
    if not headless(workload):
        spec["successPolicy"] = {"operator": "All", "targetReplicatedJobs": [naming.PATHWAYS_HEAD_JOB]}
    spec["replicatedJobs"] = [
        head_replicated_job(workload, placement, secret_name=secret_name),
        worker_replicated_job(workload, placement),
    ]
    return {
        "apiVersion": naming.JOBSET_API_VERSION,
        "kind": "JobSet",
        "metadata": {"name": workload.name, "namespace": placement.namespace, "labels": dict(sorted(labels.items()))},
        "spec": spec,
    }



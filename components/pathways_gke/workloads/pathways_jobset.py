"""The Pathways JobSet (head + workers) as plain data — no Pulumi import.

`build_pathways_jobset(workload, target, secret_name=...)` returns the `jobset.x-k8s.io/v1alpha2` JobSet
object for one `runtime: pathways` workload in any mode. Every value follows the peers' common core
(XPK https://github.com/AI-Hypercomputer/xpk/blob/v1.16.0/src/xpk/templates/pathways_workload_create.yaml.j2,
Cluster Toolkit, the google/pathways-job operator) — XPK's field layout where they differ only in form — and every
deliberate difference is listed in docs/coming-from-xpk.md. Deterministic: same inputs, same dict.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import naming
from ..capacity import capacity_node_selector, tpu_tolerations
from ..catalog import SliceShape
from ..config.pathways import Sidecar
from ..config.pathways_checks import quantity, tpu_head_server_sizes
from ..config.workloads import PathwaysWorkloadConfig, WorkloadBase
from .head import guard_head
from ..config.target import WorkloadTarget
from .wrapper import wrap_command

# --- constants from the references ----------------------------------------------------------------------

SERVER_IMAGE = "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server"
PROXY_IMAGE = "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server"

PROXY_PORT = naming.PROXY_PORT  # 29000, IFRT proxy gRPC (JAX_BACKEND_TARGET)
RM_PORTS = naming.RM_PORTS
RM_PORT = RM_PORTS[0]
WORKER_PORTS = naming.WORKER_PORTS
WORKER_PORT = WORKER_PORTS[0]
COLOCATED_PYTHON_PORT = 50051

RM_CONTAINER = "pathways-rm"
PROXY_CONTAINER = "pathways-proxy"
WORKER_CONTAINER = "pathways-worker"
COLOCATED_PYTHON_CONTAINER = "colocated-python-sidecar"
SHARED_TMP = "shared-tmp"

# limits only (requests = limits), XPK's units (its pathways_workload_create.yaml.j2)
RM_RESOURCES = {"limits": {"cpu": "8", "memory": "32G"}}
PROXY_RESOURCES = {"limits": {"cpu": "16", "memory": "100G"}}

WORKER_BACKOFF_PER_VM = 4  # OP/CTK/XPK: 4 x VMs per slice (non-elastic)
DEFAULT_GRACE_PERIOD = 30  # XPK -tgps / CTK --grace-period default (= Kubernetes default)

COORDINATOR_LABEL_PATH = "metadata.labels['jobset.sigs.k8s.io/coordinator']"
JOBSET_NAME_PATH = "metadata.annotations['jobset.sigs.k8s.io/jobset-name']"
REPLICATED_JOB_NAME_PATH = "metadata.annotations['jobset.sigs.k8s.io/replicatedjob-name']"
REPLICATED_JOB_REPLICAS_PATH = "metadata.labels['jobset.sigs.k8s.io/replicatedjob-replicas']"
JOB_INDEX_PATH = "metadata.labels['jobset.sigs.k8s.io/job-index']"


# --- small helpers ---------------------------------------------------------------------------------------


def _field_env(name: str, path: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": path}}}


def value_env(name: str, value: str) -> dict[str, Any]:
    return {"name": name, "value": value}


def custom_env(env: dict[str, str]) -> list[dict[str, Any]]:
    return [value_env(k, env[k]) for k in sorted(env)]


def container_ports(*ports: int) -> list[dict[str, Any]]:
    return [{"containerPort": p, "protocol": "TCP"} for p in ports]


def component_images(workload: PathwaysWorkloadConfig) -> dict[str, str]:
    """Image per component: custom images verbatim, default images tagged with `pathways.version`."""
    pw = workload.pathways
    tag = pw.version or ""
    server = pw.images.server or f"{SERVER_IMAGE}:{tag}"
    out = {
        "server": server,
        "proxy": pw.images.proxy or f"{PROXY_IMAGE}:{tag}",
        # OP bug #6 / XPK #17: workers follow a custom server image unless a worker image is given
        "worker": pw.images.worker or server,
    }
    if pw.images.colocated_python:
        out["colocatedPython"] = pw.images.colocated_python
    return out


def image_pull_policy(workload: WorkloadBase) -> str:
    # Every image is pinned (tag other than latest, or a digest): IfNotPresent avoids a registry round trip
    # and a surprise build on each restart. Users can force Always.
    return workload.image_pull_policy or "IfNotPresent"


def server_resources(container: str, tpu_machine_type: Optional[str] = None, *, proxy: bool = True) -> dict[str, Any]:
    """A Pathways server's resources (limits only; Kubernetes sets the requests to them): XPK's, or on a TPU VM
    (`tpu_machine_type`: a colocated head, a serving leader on its slice) sized by
    config/pathways_checks.tpu_head_server_sizes so the VM's worker keeps its host. `proxy=False`: the head has no
    proxy (a service backend's leader)."""
    if tpu_machine_type is not None:
        size = tpu_head_server_sizes(tpu_machine_type, proxy=proxy)[container]
        return {"limits": {k: quantity(k, v) for k, v in size.items()}}
    return _copy(RM_RESOURCES if container == RM_CONTAINER else PROXY_RESOURCES)


def worker_backoff_limit(workload: PathwaysWorkloadConfig, shape: SliceShape) -> int:
    pw = workload.pathways
    if pw.elastic_slices > 0:
        return pw.max_slice_restarts * shape.vms_per_slice
    return WORKER_BACKOFF_PER_VM * shape.vms_per_slice


def _head_machine(workload: PathwaysWorkloadConfig, target: WorkloadTarget) -> Optional[str]:
    """The TPU VM machine type the head shares with a worker (mode colocated), else None (a CPU-pool head)."""
    return target.shape.machine_type if workload.mode == "colocated" and target.shape is not None else None


def headless(workload: PathwaysWorkloadConfig) -> bool:
    return workload.mode == "headless"


# --- containers ------------------------------------------------------------------------------------------


def rm_container(workload: PathwaysWorkloadConfig, target: WorkloadTarget, *, sidecar: bool) -> dict[str, Any]:
    pw = workload.pathways
    shape = _shape(target)
    args = [
        f"--server_port={RM_PORT}",
        f"--gcs_scratch_location={pw.gcs_scratch}",
        "--node_type=resource_manager",
        f"--instance_count={target.slices}",
        f"--instance_type={shape.instance_type}",
        *(["--enable_metrics_collection=true"] if pw.metrics else []),
        *pw.flags.server,
    ]
    env = [
        _field_env("REPLICATED_JOB_NAME", REPLICATED_JOB_NAME_PATH),
        _field_env("JOBSET_NAME", JOBSET_NAME_PATH),
        _field_env("HOST_ADDRESS", COORDINATOR_LABEL_PATH),
        value_env("TPU_SKIP_MDS_QUERY", "true"),
        *custom_env(pw.env.server),
    ]
    container = {
        "name": RM_CONTAINER,
        "image": component_images(workload)["server"],
        "imagePullPolicy": image_pull_policy(workload),
        "args": args,
        "env": env,
        "ports": container_ports(*RM_PORTS),
        "resources": server_resources(RM_CONTAINER, _head_machine(workload, target)),
    }
    if sidecar:
        container["restartPolicy"] = "Always"
    return container


def proxy_container(workload: PathwaysWorkloadConfig, *, sidecar: bool,
                    target: Optional[WorkloadTarget] = None) -> dict[str, Any]:
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
        "env": [_field_env("PATHWAYS_HEAD", COORDINATOR_LABEL_PATH), *custom_env(pw.env.proxy)],
        "ports": container_ports(PROXY_PORT),
        "resources": server_resources(PROXY_CONTAINER, _head_machine(workload, target) if target else None),
    }
    if sidecar:
        container["restartPolicy"] = "Always"
    return container


def client_container(workload: PathwaysWorkloadConfig, backend_env: list[dict[str, Any]], *, secret_name: Optional[str],
                     mounts: list[dict[str, Any]], extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """The user's JAX program as a client of the IFRT proxy: in the JobSet head pod, or in a serving leader.

    `backend_env` says where the proxy is (JAX_PLATFORMS=proxy, JAX_BACKEND_TARGET, ...); `extra` adds fields
    after the env (a server's ports and probes)."""
    env = [*backend_env, *custom_env(workload.env)]
    if workload.secret_env:
        if not secret_name:
            raise ValueError(f"workload {workload.name!r} has secretEnv but no Secret name was given")
        env += [{"name": k, "valueFrom": {"secretKeyRef": {"name": secret_name, "key": k}}}
                for k in sorted(workload.secret_env)]
    container: dict[str, Any] = {
        "name": workload.container_name,
        "image": workload.image,
        "imagePullPolicy": image_pull_policy(workload),
    }
    if workload.command_text is not None:
        container["command"] = wrap_command(workload.command_text)  # args are in the command text
    elif workload.args:
        container["args"] = list(workload.args)  # the image's entrypoint gets them
    container["env"] = env
    container.update(extra or {})
    resources = {k: dict(sorted(v.items())) for k, v in (("requests", workload.resources.requests),
                                                         ("limits", workload.resources.limits)) if v}
    if resources:
        container["resources"] = resources
    if workload.privileged:
        container["securityContext"] = {"privileged": True}
    if mounts:
        container["volumeMounts"] = mounts
    return container


def sidecar_container(workload: PathwaysWorkloadConfig, sidecar: Sidecar, *, native: bool,
                      port_names: Optional[dict[int, str]] = None, extra: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """One of the workload's extra head containers (config `sidecars`): a native sidecar (an init container with
    restartPolicy Always) in a JobSet head, so the head Job completes with the user container; a regular container
    in a LeaderWorkerSet leader. `port_names` names the ports that are serving ports; `extra` adds probes."""
    container: dict[str, Any] = {"name": sidecar.name, "image": sidecar.image,
                                 "imagePullPolicy": image_pull_policy(workload)}
    if sidecar.command is not None:
        container["command"] = list(sidecar.command)
    if sidecar.args:
        container["args"] = list(sidecar.args)
    if sidecar.env:
        container["env"] = custom_env(sidecar.env)
    if sidecar.ports:
        names = port_names or {}
        container["ports"] = [{**({"name": names[p]} if p in names else {}), "containerPort": p, "protocol": "TCP"}
                              for p in sidecar.ports]
    container.update(extra or {})
    resources = {k: dict(sorted(v.items())) for k, v in (("requests", sidecar.resources.requests),
                                                         ("limits", sidecar.resources.limits)) if v}
    if resources:
        container["resources"] = resources
    if native:
        container["restartPolicy"] = "Always"
    return container


def user_container(workload: PathwaysWorkloadConfig, *, secret_name: Optional[str]) -> dict[str, Any]:
    backend = [
        _field_env("PATHWAYS_HEAD", COORDINATOR_LABEL_PATH),
        value_env("JAX_PLATFORMS", "proxy"),
        value_env("XCLOUD_ENVIRONMENT", "GCP"),
        value_env("JAX_BACKEND_TARGET", f"grpc://$(PATHWAYS_HEAD):{PROXY_PORT}"),
    ]
    return client_container(workload, backend, secret_name=secret_name, mounts=fuse_mounts(workload, workers=False))


def worker_container(workload: PathwaysWorkloadConfig, target: WorkloadTarget) -> dict[str, Any]:
    pw = workload.pathways
    shape = _shape(target)
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
        _field_env("MEGASCALE_NUM_SLICES", REPLICATED_JOB_REPLICAS_PATH),
        _field_env("JOBSET_NAME", JOBSET_NAME_PATH),
        _field_env("REPLICATED_JOB_NAME", REPLICATED_JOB_NAME_PATH),
        _field_env("MEGASCALE_SLICE_ID", JOB_INDEX_PATH),
        _field_env("PATHWAYS_HEAD", COORDINATOR_LABEL_PATH),
        _field_env("MEGASCALE_COORDINATOR_ADDRESS", COORDINATOR_LABEL_PATH),
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
        "volumeMounts": [{"name": SHARED_TMP, "mountPath": "/tmp"}, *fuse_mounts(workload, workers=True)],
    }


def colocated_python_container(workload: PathwaysWorkloadConfig) -> dict[str, Any]:
    return {
        "name": COLOCATED_PYTHON_CONTAINER,
        "image": component_images(workload)["colocatedPython"],
        "imagePullPolicy": image_pull_policy(workload),
        "env": [value_env("GRPC_SERVER_ADDRESS", f"0.0.0.0:{COLOCATED_PYTHON_PORT}"),
                value_env("PYTHONUNBUFFERED", "1")],
        "ports": container_ports(COLOCATED_PYTHON_PORT),
        "volumeMounts": [{"name": SHARED_TMP, "mountPath": "/tmp"}],
        "restartPolicy": "Always",
    }


# --- volumes ---------------------------------------------------------------------------------------------


def fuse_mounts(workload: PathwaysWorkloadConfig, *, workers: bool) -> list[dict[str, Any]]:
    return [
        {"name": v.name, "mountPath": v.mount_path, **({"readOnly": True} if v.read_only else {})}
        for v in workload.gcs_fuse if (v.workers if workers else True)
    ]


def fuse_volumes(workload: PathwaysWorkloadConfig, *, workers: bool, host_network: bool = True) -> list[dict[str, Any]]:
    """GCS FUSE CSI volumes. On a hostNetwork pod (every JobSet pod) the FUSE sidecar needs the pod's KSA
    passed explicitly (`hostNetworkPodKSA`); LeaderWorkerSet pods use the pod network and do not."""
    out = []
    for v in workload.gcs_fuse:
        if workers and not v.workers:
            continue
        attributes = {"bucketName": v.bucket}
        if v.mount_options:
            attributes["mountOptions"] = ",".join(v.mount_options)
        if host_network:
            attributes["hostNetworkPodKSA"] = "true"
        out.append({"name": v.name, "csi": {"driver": "gcsfuse.csi.storage.gke.io",
                                            **({"readOnly": True} if v.read_only else {}),
                                            "volumeAttributes": attributes}})
    return out


def _pod_annotations(workload: PathwaysWorkloadConfig, *, workers: bool) -> dict[str, str]:
    if fuse_volumes(workload, workers=workers):
        return {naming.GCS_FUSE_ANNOTATION: "true"}
    return {}


# --- pods and jobs ---------------------------------------------------------------------------------------


def _tpu_node_selector(target: WorkloadTarget) -> dict[str, str]:
    shape = _shape(target)
    selector = {
        naming.TPU_ACCELERATOR_LABEL: shape.accelerator_label,
        naming.TPU_TOPOLOGY_LABEL: shape.topology,
    }
    if target.tpu_group:
        selector[naming.TPU_GROUP_LABEL] = target.tpu_group
    if target.placement_policy:
        selector[naming.PLACEMENT_POLICY_LABEL] = target.placement_policy
    selector.update(capacity_node_selector(target.capacity))
    return dict(sorted(selector.items()))


def _tpu_tolerations(target: WorkloadTarget) -> list[dict[str, str]]:
    return tpu_tolerations(target.capacity)


def _pod_common(workload: PathwaysWorkloadConfig) -> dict[str, Any]:
    """Fields head and worker pods share (in the order they are written)."""
    return {"hostNetwork": True, "dnsPolicy": "ClusterFirstWithHostNet", **pod_options(workload)}


def pod_options(workload: PathwaysWorkloadConfig) -> dict[str, Any]:
    """The workload's pod-level options, for every Pathways pod (JobSet or LeaderWorkerSet)."""
    spec: dict[str, Any] = {
        "terminationGracePeriodSeconds": (workload.termination_grace_period_seconds
                                          if workload.termination_grace_period_seconds is not None
                                          else DEFAULT_GRACE_PERIOD),
    }
    if workload.priority_class:
        spec["priorityClassName"] = workload.priority_class
    if workload.service_account:
        spec["serviceAccountName"] = workload.service_account
    if workload.image_pull_secrets:
        spec["imagePullSecrets"] = [{"name": n} for n in workload.image_pull_secrets]
    return spec


def head_pod_spec(workload: PathwaysWorkloadConfig, target: WorkloadTarget, *, secret_name: Optional[str]) -> dict:
    spec = _pod_common(workload)
    spec["restartPolicy"] = "Never"
    if workload.mode == "colocated":
        spec["nodeSelector"] = _tpu_node_selector(target)
        spec["tolerations"] = _tpu_tolerations(target)
    else:
        spec["nodeSelector"] = {naming.NODE_POOL_LABEL: target.cpu_pool}
    if headless(workload):
        spec["containers"] = [proxy_container(workload, sidecar=False, target=target),
                              rm_container(workload, target, sidecar=False),
                              *(sidecar_container(workload, s, native=False) for s in workload.sidecars)]
    else:
        spec["initContainers"] = [proxy_container(workload, sidecar=True, target=target),
                                  rm_container(workload, target, sidecar=True),
                                  *(sidecar_container(workload, s, native=True) for s in workload.sidecars)]
        spec["containers"] = [user_container(workload, secret_name=secret_name)]
        volumes = fuse_volumes(workload, workers=False)
        if volumes:
            spec["volumes"] = volumes
    return spec


def worker_pod_spec(workload: PathwaysWorkloadConfig, target: WorkloadTarget) -> dict:
    spec = _pod_common(workload)
    spec["restartPolicy"] = "OnFailure"
    spec["nodeSelector"] = _tpu_node_selector(target)
    spec["tolerations"] = _tpu_tolerations(target)
    if workload.pathways.images.colocated_python:
        spec["initContainers"] = [colocated_python_container(workload)]
    spec["containers"] = [worker_container(workload, target)]
    spec["volumes"] = [
        {"name": SHARED_TMP, "hostPath": {"path": "/tmp", "type": "DirectoryOrCreate"}},
        *fuse_volumes(workload, workers=True),
    ]
    return spec


def _pod_metadata(workload: PathwaysWorkloadConfig, *, workers: bool) -> dict[str, Any]:
    meta: dict[str, Any] = {"labels": {naming.WORKLOAD_LABEL: workload.name}}
    annotations = _pod_annotations(workload, workers=workers)
    if annotations:
        meta["annotations"] = annotations
    return meta


def _head_pod_template(workload: PathwaysWorkloadConfig, target: WorkloadTarget, *, secret_name: Optional[str]) -> dict:
    metadata, spec = guard_head(_pod_metadata(workload, workers=False),
                                head_pod_spec(workload, target, secret_name=secret_name))
    return {"metadata": metadata, "spec": spec}


def head_replicated_job(workload: PathwaysWorkloadConfig, target: WorkloadTarget, *, secret_name: Optional[str]) -> dict:
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
                "template": _head_pod_template(workload, target, secret_name=secret_name),
            },
        },
    }


def worker_replicated_job(workload: PathwaysWorkloadConfig, target: WorkloadTarget) -> dict:
    shape = _shape(target)
    job_meta: dict[str, Any] = {}
    if workload.mode != "colocated":  # one slice = one child Job = one node pool
        job_meta = {"annotations": {naming.EXCLUSIVE_TOPOLOGY_ANNOTATION: naming.NODE_POOL_LABEL}}
    return {
        "name": naming.PATHWAYS_WORKER_JOB,
        "replicas": target.slices,
        "template": {
            **({"metadata": job_meta} if job_meta else {}),
            "spec": {
                "backoffLimit": worker_backoff_limit(workload, shape),
                "completionMode": "Indexed",
                "completions": shape.vms_per_slice,
                "parallelism": shape.vms_per_slice,
                "template": {
                    "metadata": _pod_metadata(workload, workers=True),
                    "spec": worker_pod_spec(workload, target),
                },
            },
        },
    }


def build_pathways_jobset(workload: PathwaysWorkloadConfig, target: WorkloadTarget, *,
                          secret_name: Optional[str] = None) -> dict[str, Any]:
    """The JobSet for a validated `runtime: pathways` workload on `target` (see module doc)."""
    _shape(target)
    labels = {naming.WORKLOAD_LABEL: workload.name}
    if target.queue_name:
        labels[naming.QUEUE_NAME_LABEL] = target.queue_name
    spec: dict[str, Any] = {
        "failurePolicy": {"maxRestarts": workload.max_restarts, "restartStrategy": "Recreate"},
        "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
        "coordinator": {"replicatedJob": naming.PATHWAYS_HEAD_JOB, "jobIndex": 0, "podIndex": 0},
        "startupPolicy": {"startupPolicyOrder": "InOrder"},
    }
    if not headless(workload):
        spec["successPolicy"] = {"operator": "All", "targetReplicatedJobs": [naming.PATHWAYS_HEAD_JOB]}
    spec["replicatedJobs"] = [
        head_replicated_job(workload, target, secret_name=secret_name),
        worker_replicated_job(workload, target),
    ]
    return {
        "apiVersion": naming.JOBSET_API_VERSION,
        "kind": "JobSet",
        "metadata": {"name": workload.name, "namespace": target.namespace, "labels": dict(sorted(labels.items()))},
        "spec": spec,
    }


def _shape(target: WorkloadTarget) -> SliceShape:
    if target.shape is None or target.slices < 1:
        raise ValueError("a Pathways workload needs a TPU pool group (shape and slices) to run its workers on")
    return target.shape


def _copy(value: dict) -> dict:
    return {k: (_copy(v) if isinstance(v, dict) else v) for k, v in value.items()}

"""The pod and container pieces every Pathways object shares, as plain data — no Pulumi import.

The Pathways JobSet (pathways_jobset.py) and the serving LeaderWorkerSet (serving_lws.py) lay their pods out
differently (host network and JobSet coordinator labels vs. the pod network and the LWS leader address), but their
containers are made of the same pieces: the workload's images, pull policy, env, ports, the servers' resources,
the user's client container and the extra sidecars, the GCS FUSE mounts and volumes, the TPU pool's node selector
and tolerations, and the workload's pod-level options. They are written once, here.
"""

from __future__ import annotations

from typing import Any, Optional

from ..ironwood import worker_annotations
from .. import naming
from ..capacity import capacity_node_selector, tpu_tolerations
from ..catalog import SliceShape
from ..config.pathways import Sidecar
from ..config.pathways_checks import quantity, tpu_head_server_sizes
from ..config.placement import Placement
from ..config.workloads import PathwaysWorkloadConfig, WorkloadBase
from ..pathways_facts import DEFAULT_GRACE_PERIOD, PROXY_CONTAINER, PROXY_IMAGE, RM_CONTAINER, SERVER_IMAGE, SERVER_LIMITS
from .wrapper import wrap_command

PROXY_PORT = naming.PROXY_PORT  # 29000, IFRT proxy gRPC (JAX_BACKEND_TARGET)
RM_PORTS = naming.RM_PORTS
RM_PORT = RM_PORTS[0]
WORKER_PORTS = naming.WORKER_PORTS
WORKER_PORT = WORKER_PORTS[0]

RM_RESOURCES = {"limits": SERVER_LIMITS[RM_CONTAINER]}
PROXY_RESOURCES = {"limits": SERVER_LIMITS[PROXY_CONTAINER]}


def field_env(name: str, path: str) -> dict[str, Any]:
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
        container["command"] = sidecar.argv
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


def mtc_volumes(workload: WorkloadBase) -> list[dict[str, Any]]:
    """The multi-tier checkpointing RAM disk as the pod's CSI volume (XPK docker_resources.get_volumes: a CSI
    ephemeral volume of driver multitier-checkpoint.csi.storage.gke.io, no attributes)."""
    if workload.multi_tier_checkpointing is None:
        return []
    return [{"name": naming.MTC_VOLUME, "csi": {"driver": naming.MTC_CSI_DRIVER}}]


def mtc_mounts(workload: WorkloadBase) -> list[dict[str, Any]]:
    """Its mount at `multiTierCheckpointing.mountPath`, where the program's local checkpoints go."""
    if workload.multi_tier_checkpointing is None:
        return []
    return [{"name": naming.MTC_VOLUME, "mountPath": workload.multi_tier_checkpointing.mount_path}]


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


def tpu_shape(placement: Placement) -> SliceShape:
    if placement.shape is None or placement.slice_count < 1:
        raise ValueError("a Pathways workload needs a TPU pool group (shape and slices) to run its workers on")
    return placement.shape


def tpu_node_selector(placement: Placement) -> dict[str, str]:
    shape = tpu_shape(placement)
    selector = {naming.TPU_ACCELERATOR_LABEL: shape.accelerator_label}
    if not placement.dynamic_slice:  # a dynamic slice is asked for by annotation (dynamic_slice_annotations)
        selector[naming.TPU_TOPOLOGY_LABEL] = shape.topology
    if placement.fallback:  # ordered fallback: Kueue injects the admitted flavor's group and capacity labels
        return dict(sorted(selector.items()))
    if placement.tpu_group:
        selector[naming.TPU_GROUP_LABEL] = placement.tpu_group
    if placement.placement_policy:
        selector[naming.PLACEMENT_POLICY_LABEL] = placement.placement_policy
    selector.update(capacity_node_selector(placement.capacity))
    return dict(sorted(selector.items()))


def dynamic_slice_annotations(placement: Placement) -> dict[str, str]:
    """A dynamic slice's worker annotations (ironwood.worker_annotations); none for a node-pool slice."""
    if not placement.dynamic_slice:
        return {}
    shape = tpu_shape(placement)
    return worker_annotations(shape.topology, placement.slice_count, shape.vms_per_slice)


def slice_exclusive_annotation(placement: Placement) -> dict[str, str]:
    """One slice (child Job) per node pool; a dynamic slice spans several sub-block pools, which GKE's slice
    controller joins, so it has none (XPK drops it for super-slicing)."""
    return {} if placement.dynamic_slice else {naming.EXCLUSIVE_TOPOLOGY_ANNOTATION: naming.NODE_POOL_LABEL}


def tpu_pod_tolerations(placement: Placement) -> list[dict[str, str]]:
    """GKE's TPU taint, the capacity mode's, and the slices' own group taint where they carry it (group_taint).

    Ordered fallback: only the google.com/tpu toleration every TPU node needs; the admitted flavor's capacity and
    group tolerations are injected by Kueue (capacity stays "on-demand", which adds none; group_taint is off)."""
    out = tpu_tolerations(placement.capacity)
    if placement.group_taint and placement.tpu_group:
        out.append(group_toleration(placement.tpu_group))
    return out


def group_toleration(group: str) -> dict[str, str]:
    """Tolerates `naming.slice_group_taint(group)` (Kubernetes spells GKE's NO_SCHEDULE as NoSchedule)."""
    taint = naming.slice_group_taint(group)
    return {"key": taint["key"], "operator": "Equal", "value": taint["value"], "effect": "NoSchedule"}


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


def _copy(value: dict) -> dict:
    return {k: (_copy(v) if isinstance(v, dict) else v) for k, v in value.items()}

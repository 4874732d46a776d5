"""Adopting an existing cluster (`cluster.create: false`): what it must already have, checked from its read state.

`adopted_cluster_problems` is pure: it takes the read cluster's properties (Pulumi names, camelCase; absent or
unknown values are skipped, as in an offline plan) and the stack, and says in plain words what is missing.
The component runs it on the `gcp.container.Cluster.get` result, so `pulumi preview` stops before any node
pool or install is created on a cluster that cannot run the workloads.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from ..config.stack import StackConfig
from ..gke_rules import (GCS_FUSE_HOST_NETWORK_MIN_GKE, JOBSET_RESTARTS_MIN_GKE, MTC_MIN_GKE, auto_upgrade_problem,
                         below_floor, below_line_floors, version_floor_problems, version_floors)

ADVANCED_DATAPATH = "ADVANCED_DATAPATH"


def _get(props: Mapping[str, Any], *path: str) -> Any:
    """props[a][b]…, accepting camelCase or snake_case keys, lists of one item (TF blocks); None if absent."""
    value: Any = props
    for key in path:
        if isinstance(value, (list, tuple)):
            value = value[0] if value else None
        if not isinstance(value, Mapping):
            return None
        snake = "".join(f"_{c.lower()}" if c.isupper() else c for c in key)
        value = value.get(key, value.get(snake))
    return value


def adopted_cluster_problems(props: Mapping[str, Any], stack: StackConfig) -> list[str]:
    """What the adopted cluster lacks for this stack (empty when it has everything, or when nothing is known)."""
    out: list[str] = []
    name = f"cluster {stack.cluster.name} ({stack.cluster.location})"
    pool = _get(props, "workloadIdentityConfig", "workloadPool")
    identity_known = "workloadIdentityConfig" in props or "workload_identity_config" in props
    if identity_known and not pool:
        out.append(f"{name} has no Workload Identity pool; the node pools run with GKE_METADATA, which GKE refuses "
                   "without it. Enable it: gcloud container clusters update "
                   f"{stack.cluster.name} --location {stack.cluster.location} "
                   f"--workload-pool={stack.project}.svc.id.goog")
    datapath = _get(props, "datapathProvider")
    needs_dpv2 = [p.name for p in stack.tpu_pools if p.network_profile_on]
    if needs_dpv2 and datapath is not None and datapath != ADVANCED_DATAPATH:
        out.append(f"{name} does not run Dataplane V2 (datapathProvider {datapath or 'unset'}), which the "
                   f"accelerator network profile of TPU pool group(s) {', '.join(needs_dpv2)} needs; Dataplane V2 "
                   "can only be chosen at cluster creation: set networkProfile: false on those groups")
    fuse_users = [w.name for w in stack.workloads if getattr(w, "gcs_fuse", None)]
    addons = _get(props, "addonsConfig")
    if fuse_users and addons is not None and not _get(props, "addonsConfig", "gcsFuseCsiDriverConfig", "enabled"):
        out.append(f"{name} does not have the GCS FUSE CSI driver addon, which workload(s) {', '.join(fuse_users)} "
                   "mount buckets with. Enable it: gcloud container clusters update "
                   f"{stack.cluster.name} --location {stack.cluster.location} --update-addons GcsFuseCsiDriver=ENABLED")
    if (stack.cluster.multi_tier_checkpointing is not None and addons is not None
            and not _get(props, "addonsConfig", "highScaleCheckpointingConfig", "enabled")):
        out.append(f"{name} does not have the multi-tier checkpointing add-on, which cluster.multiTierCheckpointing "
                   "configures. Enable it: gcloud container clusters update "
                   f"{stack.cluster.name} --location {stack.cluster.location} --update-addons "
                   "HighScaleCheckpointing=ENABLED,GcsFuseCsiDriver=ENABLED")
    channel: Optional[str] = _get(props, "releaseChannel", "channel")
    for pool in stack.tpu_pools:
        if channel is not None:
            problem = auto_upgrade_problem(channel, pool.auto_upgrade)
            if problem:
                out.append(f"{name}: TPU pool group {pool.name} has autoUpgrade false, which {problem}")
        version = _get(props, "masterVersion")
        if isinstance(version, str) and version and pool.topology is not None:
            floors = version_floors(pool.type, pool.capacity, pool.network_profile_on)
            for message in version_floor_problems(version.split("+")[0], floors):
                out.append(f"{name} runs {message.split(';')[0].lstrip()} (tpuPools {pool.name}); upgrade the "
                           "control plane first")
    version = _get(props, "masterVersion")
    if isinstance(version, str) and version:
        running = version.split("+")[0]
        if (stack.observability.alerts and any(not w.on_lws for w in stack.workloads)
                and below_line_floors(running, JOBSET_RESTARTS_MIN_GKE)):
            out.append(f"{name} runs {running}, older than " + " / ".join(JOBSET_RESTARTS_MIN_GKE) + " (per minor "
                       "line), which export kube_jobset_restarts for the restart alert of observability.alerts; "
                       "upgrade the control plane or set observability.alerts: false")
        if stack.cluster.multi_tier_checkpointing is not None and below_floor(running, MTC_MIN_GKE):
            out.append(f"{name} runs {running}, older than {MTC_MIN_GKE}, the first GKE version with multi-tier "
                       "checkpointing (cluster.multiTierCheckpointing); upgrade the control plane first")
        fuse_on_host = [w.name for w in stack.workloads if getattr(w, "gcs_fuse", None) and not w.on_lws]
        if fuse_on_host and below_floor(running, GCS_FUSE_HOST_NETWORK_MIN_GKE):
            out.append(f"{name} runs {running}, older than {GCS_FUSE_HOST_NETWORK_MIN_GKE}, whose GCS FUSE driver "
                       f"mounts volumes in hostNetwork pods (workload(s) {', '.join(fuse_on_host)}); upgrade the "
                       "control plane first")
    return out

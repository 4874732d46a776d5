"""Checks across sections of how runs survive failures (docs/resilience.md): multi-tier checkpointing against the
cluster, the TPU pools and the JobSet controller; per-slice restart against the JobSet release and its gates.
Path-named Problems, all reported at once. A workload's own keys: config/resilience_workload.py."""

from __future__ import annotations

from .. import naming
from ..errors import Problem
from ..gke_rules import MTC_MIN_GKE, below_floor
from ..releases import RESTART_JOB_GATE, RESTART_JOB_SINCE, version_key
from .model import StackConfig
from .workloads import PathwaysWorkloadConfig


# XPK's JobSet controller for MTC (src/xpk/core/mtc.py update_jobset_manifest): requests at least 1000m CPU and
# 1Gi memory, a memory limit of at least 2Gi. Our sizing's floors (addons/sizing.py: 1000m, 4096Mi requests =
# limits) meet them; the release manifest's own (500m / 128Mi at v0.12.0) do not: sizeForCluster must stay on.

def checkpointing_problems(stack: StackConfig) -> list[Problem]:
    """cluster.multiTierCheckpointing and workloads[].multiTierCheckpointing (docs/resilience.md)."""
    out: list[Problem] = []
    mtc = stack.cluster.multi_tier_checkpointing
    if mtc is not None:
        at = "cluster.multiTierCheckpointing"
        if not stack.cluster.project_number:
            out.append(Problem("cluster.projectNumber", f"is required with {at}: the add-on's node agent is granted "
                               "roles/storage.objectUser on the bucket as the Workload Identity principal "
                               "principal://iam.googleapis.com/projects/<number>/locations/global/workloadIdentityPools/"
                               f"{stack.project}.svc.id.goog/subject/ns/{naming.MTC_AGENT_NAMESPACE}/sa/"
                               f"{naming.MTC_AGENT_KSA} (gcloud projects describe {stack.project} "
                               "--format='value(projectNumber)')"))
        if stack.cluster.version and below_floor(stack.cluster.version, MTC_MIN_GKE):
            out.append(Problem("cluster.version", f"is older than {MTC_MIN_GKE}, the first GKE version with "
                               f"multi-tier checkpointing ({at}; GKE's multi-tier checkpointing guide, "
                               "Requirements): raise the version", stack.cluster.version))
        if not stack.tpu_pools:
            out.append(Problem(at, "needs a TPU pool group: each CheckpointConfiguration selects the nodes of one "
                               "TPU machine type, and this stack has no tpuPools"))
        if not stack.jobset.size_for_cluster:
            out.append(Problem("jobset.sizeForCluster", f"is false, but {at} needs the JobSet controller at least "
                               "as XPK sizes it for multi-tier checkpointing (requests 1000m CPU / 1Gi, memory limit "
                               "2Gi; the release manifest's are 500m / 128Mi): leave sizeForCluster on"))
    for i, w in enumerate(stack.workloads):
        if w.multi_tier_checkpointing is not None and mtc is None:
            out.append(Problem(f"workloads[{i}].multiTierCheckpointing", "needs cluster.multiTierCheckpointing (the "
                               "add-on, its bucket and the RAM disk per TPU VM): add it, or remove this"))
    return out


def resilience_problems(stack: StackConfig) -> list[Problem]:
    """The resilience keys against the rest of the stack (the workload-level ones: config/resilience_workload.py)."""
    out: list[Problem] = checkpointing_problems(stack)
    gates = stack.jobset.feature_gates
    for i, w in enumerate(stack.workloads):
        if not w.restart.per_slice or not isinstance(w, PathwaysWorkloadConfig) or w.on_lws:
            continue
        at = f"workloads[{i}].restart.perSlice"
        if version_key(stack.jobset.version) < version_key(RESTART_JOB_SINCE):
            out.append(Problem(at, f"needs JobSet {RESTART_JOB_SINCE} or later (the RestartJob failure-policy action, "
                               f"behind its alpha gate RestartJob); jobset.version is {stack.jobset.version}: raise "
                               "it or remove perSlice"))
        elif gates.get(RESTART_JOB_GATE) is False:
            out.append(Problem(at, "needs the JobSet feature gate RestartJob, which jobset.featureGates turns off (the "
                               "webhook refuses a RestartJob rule without it)"))
    return out

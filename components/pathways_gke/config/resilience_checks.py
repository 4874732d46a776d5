"""Checks across sections of how runs survive failures: restart strategies, per-slice restart, restart on exit
codes and the pipe-unreachable timeout (docs/resilience.md). Path-named Problems, all reported at once."""

from __future__ import annotations

from .. import naming
from ..errors import Problem
from ..gke_rules import MTC_MIN_GKE, below_floor
from ..pathways_facts import ABSL_FLAGS_ENV
from ..releases import RESTART_JOB_GATE, RESTART_JOB_SINCE, version_key
from .model import StackConfig
from .workloads import JaxWorkloadConfig, PathwaysWorkloadConfig, is_given

RESTART_ON_EXIT_CODES_MODES = ("default", "colocated")


# XPK's JobSet controller for MTC (src/xpk/core/mtc.py update_jobset_manifest): requests at least 1000m CPU and
# 1Gi memory, a memory limit of at least 2Gi. Our sizing's floors (addons/sizing.py: 1000m, 4096Mi requests =
# limits) meet them; the release manifest's own (500m / 128Mi at v0.12.0) do not.
XPK_MTC_CONTROLLER = {"cpu": "1000m", "memory": "1Gi", "memory limit": "2Gi"}


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
        if w.multi_tier_checkpointing is None:
            continue
        at = f"workloads[{i}].multiTierCheckpointing"
        if mtc is None:
            out.append(Problem(at, "needs cluster.multiTierCheckpointing (the add-on, its bucket and the RAM disk "
                               "per TPU VM): add it, or remove this"))
        if isinstance(w, JaxWorkloadConfig) and w.tpu_pool is None:
            out.append(Problem(at, "needs a TPU workload: the RAM disk exists only on the TPU VMs a "
                               "CheckpointConfiguration selects, and this jax workload runs on the CPU pool"))
        if isinstance(w, PathwaysWorkloadConfig):
            if w.on_lws:
                out.append(Problem(at, f"is refused in mode '{w.mode}': no source gives a LeaderWorkerSet layout for "
                                   "it (Cluster Toolkit's and XPK's are JobSets)"))
            elif not w.pathways.images.colocated_python:
                out.append(Problem(at, "needs pathways.images.colocatedPython: on Pathways the workers write the "
                                   "local checkpoints through the colocated-python sidecar (Cluster Toolkit's MTC "
                                   "layout pairs the RAM disk with it), where the volume is mounted"))
            for j, volume in enumerate(w.gcs_fuse):
                if volume.mount_path == w.multi_tier_checkpointing.mount_path:
                    out.append(Problem(f"{at}.mountPath", f"is also gcsFuse[{j}].mountPath",
                                       volume.mount_path))
    return out


def resilience_problems(stack: StackConfig) -> list[Problem]:
    out: list[Problem] = checkpointing_problems(stack)
    gates = stack.jobset.feature_gates
    for i, w in enumerate(stack.workloads):
        at = f"workloads[{i}]"
        if w.on_lws and is_given(w, "restart"):
            out.append(Problem(f"{at}.restart", "applies to JobSet workloads; a LeaderWorkerSet restarts its whole "
                               "group when a pod fails (RecreateGroupOnPodRestart): remove it"))
        elif w.restart.per_slice:
            if isinstance(w, JaxWorkloadConfig):
                out.append(Problem(f"{at}.restart.perSlice", "is refused for runtime 'jax': every process of a "
                                   "multi-controller JAX run joins one jax.distributed group, so a slice's Job "
                                   "restarted alone waits for peers that never rejoin; the JobSet restarts them all"))
            elif version_key(stack.jobset.version) < version_key(RESTART_JOB_SINCE):
                out.append(Problem(f"{at}.restart.perSlice", f"needs JobSet {RESTART_JOB_SINCE} or later (the "
                                   "RestartJob failure-policy action, behind its alpha gate RestartJob); jobset.version "
                                   f"is {stack.jobset.version}: raise it or remove perSlice"))
            elif gates.get(RESTART_JOB_GATE) is False:
                out.append(Problem(f"{at}.restart.perSlice", "needs the JobSet feature gate RestartJob, which "
                                   "jobset.featureGates turns off (the webhook refuses a RestartJob rule without it)"))
        if isinstance(w, PathwaysWorkloadConfig):
            if w.restart_on_exit_codes and w.mode not in RESTART_ON_EXIT_CODES_MODES:
                out.append(Problem(f"{at}.restartOnExitCodes", f"applies to modes {', '.join(RESTART_ON_EXIT_CODES_MODES)} "
                                   f"(the exit codes of the head's user container); mode '{w.mode}' has "
                                   + ("no user container" if w.mode == "headless" else "no head Job (a "
                                      "LeaderWorkerSet)")))
            if w.pathways.pipe_unreachable_timeout:
                given = [f"{at}.env.{ABSL_FLAGS_ENV}"] if ABSL_FLAGS_ENV in w.env else []
                given += [f"{at}.pathways.env.{c}.{ABSL_FLAGS_ENV}" for c in ("server", "proxy", "worker")
                          if ABSL_FLAGS_ENV in getattr(w.pathways.env, c)]
                for path in given:
                    out.append(Problem(path, "is also set by pathways.pipeUnreachableTimeout (ABSL_FLAGS="
                                       "--pathways_pipe_unreachable_timeout=...) in that container; put the flag into "
                                       "this value and remove pipeUnreachableTimeout, or remove this one"))
    return out

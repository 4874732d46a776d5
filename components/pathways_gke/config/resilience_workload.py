"""One workload's resilience keys against the workload alone (restart, restartOnExitCodes, pipeUnreachableTimeout,
multiTierCheckpointing): what the builders rely on, checked both for a stack's workloads and for a standalone
workload component (config/pathways_checks.py and config/checks.py call it; the checks that need the rest of the
stack, the JobSet release and the cluster's checkpointing, are config/resilience_checks.py)."""

from __future__ import annotations

from ..errors import Problem
from ..pathways_facts import ABSL_FLAGS_ENV
from .workloads import JaxWorkloadConfig, PathwaysWorkloadConfig, WorkloadBase, is_given

RESTART_ON_EXIT_CODES_MODES = ("default", "colocated")


def workload_resilience_problems(w: WorkloadBase, path: str) -> list[Problem]:
    out: list[Problem] = []
    if w.on_lws and is_given(w, "restart"):
        out.append(Problem(f"{path}.restart", "applies to JobSet workloads; a LeaderWorkerSet restarts its whole "
                           "group when a pod fails (RecreateGroupOnPodRestart): remove it"))
    elif w.restart.per_slice and isinstance(w, JaxWorkloadConfig):
        out.append(Problem(f"{path}.restart.perSlice", "is refused for runtime 'jax': every process of a "
                           "multi-controller JAX run joins one jax.distributed group, so a slice's Job restarted "
                           "alone waits for peers that never rejoin; the JobSet restarts them all"))
    elif w.restart.per_slice and w.max_restarts == 0:
        # jobset v0.12.0 pkg/controllers/failure_policy.go restartJobActionApplier: the JobSet fails once its
        # restarts (RestartJob's included) reach maxRestarts, so with 0 the first failed slice ends the run
        out.append(Problem(f"{path}.restart.perSlice", "restarts a failed slice within maxRestarts (JobSet's "
                           "RestartJob fails the JobSet once its restarts reach maxRestarts), and maxRestarts is 0: "
                           "the first failed slice would end the run; set maxRestarts"))
    mtc = w.multi_tier_checkpointing
    if mtc is not None and isinstance(w, JaxWorkloadConfig) and w.tpu_pool is None:
        out.append(Problem(f"{path}.multiTierCheckpointing", "needs a TPU workload: the RAM disk exists only on the "
                           "TPU VMs a CheckpointConfiguration selects, and this jax workload runs on the CPU pool"))
    if not isinstance(w, PathwaysWorkloadConfig):
        return out
    if w.restart_on_exit_codes and w.mode not in RESTART_ON_EXIT_CODES_MODES:
        out.append(Problem(f"{path}.restartOnExitCodes", f"applies to modes {', '.join(RESTART_ON_EXIT_CODES_MODES)} "
                           f"(the exit codes of the head's user container); mode '{w.mode}' has "
                           + ("no user container" if w.mode == "headless" else "no head Job (a LeaderWorkerSet)")))
    if w.pathways.pipe_unreachable_timeout:
        given = [f"{path}.env.{ABSL_FLAGS_ENV}"] if ABSL_FLAGS_ENV in w.env else []
        given += [f"{path}.pathways.env.{c}.{ABSL_FLAGS_ENV}" for c in ("server", "proxy", "worker")
                  if ABSL_FLAGS_ENV in getattr(w.pathways.env, c)]
        for at in given:
            out.append(Problem(at, "is also set by pathways.pipeUnreachableTimeout (ABSL_FLAGS="
                               "--pathways_pipe_unreachable_timeout=...) in that container; put the flag into this "
                               "value and remove pipeUnreachableTimeout, or remove this one"))
    if mtc is not None:
        at = f"{path}.multiTierCheckpointing"
        if w.on_lws:
            out.append(Problem(at, f"is refused in mode '{w.mode}': no source gives a LeaderWorkerSet layout for it "
                               "(Cluster Toolkit's and XPK's are JobSets)"))
        elif not w.pathways.images.colocated_python:
            out.append(Problem(at, "needs pathways.images.colocatedPython: on Pathways the workers write the local "
                               "checkpoints through the colocated-python sidecar (Cluster Toolkit's MTC layout pairs "
                               "the RAM disk with it), where the volume is mounted"))
        for j, volume in enumerate(w.gcs_fuse):
            if volume.mount_path == mtc.mount_path:
                out.append(Problem(f"{at}.mountPath", f"is also gcsFuse[{j}].mountPath", volume.mount_path))
    return out

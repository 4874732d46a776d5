"""Checks across sections of how runs survive failures: restart strategies, per-slice restart, restart on exit
codes and the pipe-unreachable timeout (docs/resilience.md). Path-named Problems, all reported at once."""

from __future__ import annotations

from ..errors import Problem
from ..pathways_facts import ABSL_FLAGS_ENV
from ..releases import RESTART_JOB_GATE, RESTART_JOB_SINCE, version_key
from .model import StackConfig
from .workloads import JaxWorkloadConfig, PathwaysWorkloadConfig, is_given

RESTART_ON_EXIT_CODES_MODES = ("default", "colocated")


def resilience_problems(stack: StackConfig) -> list[Problem]:
    out: list[Problem] = []
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

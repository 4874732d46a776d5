"""Multi-controller JAX JobSets (runtime: jax), as plain data. No Pulumi import.

Every process runs the user's program (as in the JobSet TPU multislice example and Kubeflow's JAXJob).
One JobSet, one replicatedJob `workers`:

- TPU: one Job per slice (`replicas` = slices), one pod per TPU VM (`parallelism` = `completions` = VMs per
  slice, Indexed), each slice's Job alone on one node pool (exclusive placement), `google.com/tpu` = chips
  per VM, host networking, and the multislice (MEGASCALE) environment when there are several slices.
- CPU (no tpuPool): `jax.processes` pods on the CPU pool, split into `jax.slices` Jobs (default 1), with
  JAX on the CPU platform.

Every pod is told, from the downward API and literals (never computed by a controller of ours):

| variable | value |
|---|---|
| `JAX_COORDINATOR_ADDRESS` | `<jobset>-workers-0-0.<jobset>:<port>` (host of process 0, from the JobSet coordinator label) — read by `jax.distributed.initialize()` itself |
| `JAX_NUM_PROCESSES`, `JAX_PROCESS_COUNT` | total number of processes |
| `JAX_PROCESS_ID` | `JOB_INDEX * PROCESSES_IN_JOB + JOB_COMPLETION_INDEX`, computed by the command wrapper (Kubernetes cannot do arithmetic) |
| `JOB_INDEX`, `JOB_COMPLETION_INDEX`, `PROCESSES_IN_JOB` | the inputs of that sum (XPK/MaxText names) |
| `MEGASCALE_COORDINATOR_ADDRESS`, `MEGASCALE_NUM_SLICES`, `MEGASCALE_SLICE_ID` | TPU with several slices |

JAX 0.10 reads only `JAX_COORDINATOR_ADDRESS` from the environment; on CPU the program passes
`num_processes`/`process_id` from `JAX_NUM_PROCESSES`/`JAX_PROCESS_ID` (docs/jax-workloads.md). On TPU,
`jax.distributed.initialize()` without arguments also works (JAX's GKE TPU detection agrees with these values).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from ..capacity import capacity_node_selector
from ..config.workloads import JaxWorkloadConfig
from ..naming import (
    JAX_PLATFORM_ENV,
    COMPLETION_INDEX_ANNOTATION,
    COORDINATOR_KEY,
    JOB_INDEX_KEY,
    JOBSET_API_VERSION,
    JOBSET_NAME_KEY,
    NODE_POOL_LABEL,
    PLACEMENT_POLICY_LABEL,
    QUEUE_NAME_LABEL,
    REPLICATED_JOB_NAME_KEY,
    REPLICATED_JOB_REPLICAS_KEY,
    RUNTIME_LABEL,
    TPU_ACCELERATOR_LABEL,
    TPU_GROUP_LABEL,
    TPU_RESOURCE,
    TPU_TOPOLOGY_LABEL,
    WORKLOAD_LABEL,
)
from .head import never_evict
from .pod import (dynamic_slice_annotations, image_pull_policy, mtc_mounts, mtc_volumes, slice_exclusive_annotation,
                  tpu_pod_tolerations)
from ..config.placement import Placement
from .wrapper import wrap_command

REPLICATED_JOB = "workers"
CONTAINER = "jax"

# Ports each process listens on (with hostNetwork on TPU they are host ports: one process per TPU VM).
# TPU: 8471 TPU runtime between the hosts of a slice, 8080 multislice (megascale) DCN traffic — as in the
# JobSet multislice example and XPK; 8482 the JAX coordinator on process 0 (JAX's default on Cloud TPU).
# CPU: the JAX coordinator on process 0 (XPK's CPU port).
PORTS: dict[str, tuple[tuple[str, int], ...]] = {
    "tpu": (("tpu-runtime", 8471), ("megascale", 8080), ("jax-coordinator", 8482)),
    "cpu": (("jax-coordinator", 1234),),
}
COORDINATOR_PORT = {"tpu": 8482, "cpu": 1234}

# With parallel containers (XPK's two per tpu7x-standard-4t VM): each container is a process of its own,
# numbered pod by pod (PARALLEL_CONTAINERS, CONTAINER_INDEX set per container).
PARALLEL_PROCESS_ID_SETUP = (
    ': "${JOB_INDEX:?is not set (JobSet downward API)}" "${JOB_COMPLETION_INDEX:?is not set (Indexed Job)}"',
    "JAX_PROCESS_ID=0",
    "(( JAX_PROCESS_ID = (JOB_INDEX * PROCESSES_IN_JOB + JOB_COMPLETION_INDEX) * PARALLEL_CONTAINERS"
    " + CONTAINER_INDEX )) || :",
    "export JAX_PROCESS_ID",
)

# Run by the command wrapper before the user's command: the global process id from the pod's indexes.
PROCESS_ID_SETUP = (
    ': "${JOB_INDEX:?is not set (JobSet downward API)}" "${JOB_COMPLETION_INDEX:?is not set (Indexed Job)}"',
    "JAX_PROCESS_ID=0",
    "(( JAX_PROCESS_ID = JOB_INDEX * PROCESSES_IN_JOB + JOB_COMPLETION_INDEX )) || :",
    "export JAX_PROCESS_ID",
)


@dataclass(frozen=True)
class JaxLayout:
    """How the processes of a jax workload are laid out: `jobs` Jobs of `processes_per_job` pods."""

    platform: str  # "tpu" | "cpu"
    jobs: int
    processes_per_job: int  # pods per Job
    containers: int = 1  # JAX processes per pod: 2 with parallelContainers (one per chip pair)

    @property
    def processes(self) -> int:
        return self.jobs * self.processes_per_job * self.containers

    @property
    def multislice(self) -> bool:
        return self.platform == "tpu" and self.jobs > 1


def jax_layout(workload: JaxWorkloadConfig, placement: Placement) -> JaxLayout:
    """The process layout; config/checks.py has already rejected combinations this cannot honour."""
    if placement.shape is not None:
        return JaxLayout("tpu", placement.slice_count, placement.shape.vms_per_slice,
                         workload.parallel_containers or 1)
    processes = workload.jax.processes
    if processes is None:
        raise ValueError(f"workload {workload.name!r}: jax.processes is required on the CPU pool")
    jobs = workload.jax.slices or 1
    if processes % jobs:
        raise ValueError(f"workload {workload.name!r}: jax.processes {processes} is not a multiple of "
                         f"jax.slices {jobs}")
    return JaxLayout("cpu", jobs, processes // jobs)


def coordinator_host(name: str) -> str:
    """Hostname of process 0 (job 0, pod 0), as the JobSet coordinator label spells it."""
    return f"{name}-{REPLICATED_JOB}-0-0.{name}"


def coordinator_address(workload: JaxWorkloadConfig, placement: Placement) -> str:
    platform = jax_layout(workload, placement).platform
    return f"{coordinator_host(workload.name)}:{COORDINATOR_PORT[platform]}"


def _field(name: str, kind: str, key: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": f"metadata.{kind}['{key}']"}}}


def _env(workload: JaxWorkloadConfig, layout: JaxLayout, secret_name: Optional[str]) -> list[dict[str, Any]]:
    env: list[dict[str, Any]] = [
        _field("JOBSET_NAME", "annotations", JOBSET_NAME_KEY),
        _field("REPLICATED_JOB_NAME", "annotations", REPLICATED_JOB_NAME_KEY),
        _field("JOB_INDEX", "labels", JOB_INDEX_KEY),
        _field("JOB_COMPLETION_INDEX", "annotations", COMPLETION_INDEX_ANNOTATION),
        _field("JOBSET_COORDINATOR", "labels", COORDINATOR_KEY),
        {"name": "PROCESSES_IN_JOB", "value": str(layout.processes_per_job)},
        {"name": "JAX_NUM_PROCESSES", "value": str(layout.processes)},
        {"name": "JAX_PROCESS_COUNT", "value": str(layout.processes)},
        {"name": "JAX_COORDINATOR_PORT", "value": str(COORDINATOR_PORT[layout.platform])},
        # $(VAR) in a value expands variables defined earlier in this list
        # (https://kubernetes.io/docs/tasks/inject-data-application/define-interdependent-environment-variables/)
        {"name": "JAX_COORDINATOR_ADDRESS", "value": "$(JOBSET_COORDINATOR):$(JAX_COORDINATOR_PORT)"},
    ]
    if layout.multislice:
        env += [
            {"name": "MEGASCALE_COORDINATOR_ADDRESS", "value": "$(JOBSET_COORDINATOR)"},
            _field("MEGASCALE_NUM_SLICES", "labels", REPLICATED_JOB_REPLICAS_KEY),
            _field("MEGASCALE_SLICE_ID", "labels", JOB_INDEX_KEY),
        ]
    env += [{"name": key, "value": value} for key, value in JAX_PLATFORM_ENV[layout.platform].items()]
    env += [{"name": key, "value": workload.env[key]} for key in sorted(workload.env)]
    if workload.secret_env:
        if secret_name is None:
            raise ValueError(f"workload {workload.name!r} has secretEnv but no Secret name was given")
        env += [{"name": key, "valueFrom": {"secretKeyRef": {"name": secret_name, "key": key}}}
                for key in sorted(workload.secret_env)]
    return env


def parallel_containers(container: dict[str, Any], count: int) -> list[dict[str, Any]]:
    """The pod's containers: one, or XPK's `count` copies named `<name>-1`, `<name>-2`, … (xpk 1.16.0
    core/docker_container.py `get_main_container`), each with chips_per_vm / count chips (docker_resources.py) and
    its index in CONTAINER_INDEX. XPK declares no container ports on them; only the first keeps ours, since a
    hostNetwork pod cannot declare one host port twice (process 0, the coordinator, is pod 0's first container)."""
    if count == 1:
        return [container]
    out = []
    for index in range(count):
        copy = {**container, "name": f"{container['name']}-{index + 1}",
                "env": [*container["env"], {"name": "PARALLEL_CONTAINERS", "value": str(count)},
                        {"name": "CONTAINER_INDEX", "value": str(index)}]}
        if index:
            copy.pop("ports", None)
        out.append(copy)
    return out


def _pod_spec(workload: JaxWorkloadConfig, placement: Placement, layout: JaxLayout,
              secret_name: Optional[str]) -> dict[str, Any]:
    assert workload.image is not None and workload.command_text is not None  # config/checks.py
    container: dict[str, Any] = {
        "name": CONTAINER,
        "image": workload.image,
        "imagePullPolicy": image_pull_policy(workload),
        "command": wrap_command(workload.command_text,
                                setup=PARALLEL_PROCESS_ID_SETUP if layout.containers > 1 else PROCESS_ID_SETUP),
        "env": _env(workload, layout, secret_name),
        "ports": [{"name": name, "containerPort": port, "protocol": "TCP"} for name, port in PORTS[layout.platform]],
    }
    spec: dict[str, Any] = {"restartPolicy": "Never"}
    if layout.platform == "tpu":
        assert placement.shape is not None and (placement.tpu_group is not None or placement.fallback)
        chips = str(placement.shape.chips_per_vm // layout.containers)
        container["resources"] = {"limits": {TPU_RESOURCE: chips}}  # requests default to the limit
        selector = {TPU_ACCELERATOR_LABEL: placement.shape.accelerator_label}
        if not placement.dynamic_slice:  # a dynamic slice is asked for by annotation instead
            selector[TPU_TOPOLOGY_LABEL] = placement.shape.topology
        if not placement.fallback:  # ordered fallback: Kueue injects the admitted flavor's labels
            selector[TPU_GROUP_LABEL] = placement.tpu_group or ""
            if placement.placement_policy:
                selector[PLACEMENT_POLICY_LABEL] = placement.placement_policy
            selector.update(capacity_node_selector(placement.capacity))
        spec.update({
            "hostNetwork": True,  # TPU runtime and DCN traffic on the VM's NICs; one process per VM
            "dnsPolicy": "ClusterFirstWithHostNet",  # keep cluster DNS (the coordinator's name) with hostNetwork
            "nodeSelector": dict(sorted(selector.items())),
            "tolerations": tpu_pod_tolerations(placement),
        })
    else:
        container["resources"] = {
            "requests": {"cpu": workload.jax.cpu, "memory": workload.jax.memory},
            "limits": {"memory": workload.jax.memory},
        }
        spec["nodeSelector"] = {NODE_POOL_LABEL: placement.cpu_pool}
    if workload.privileged:
        container["securityContext"] = {"privileged": True}
    if workload.multi_tier_checkpointing is not None:  # the RAM disk where the program's local checkpoints go
        container["volumeMounts"] = mtc_mounts(workload)
        spec["volumes"] = mtc_volumes(workload)
    spec["containers"] = parallel_containers(container, layout.containers)  # parallel copies share the RAM disk
    if workload.image_pull_secrets:
        spec["imagePullSecrets"] = [{"name": n} for n in workload.image_pull_secrets]
    if workload.priority_class:
        spec["priorityClassName"] = workload.priority_class
    if workload.service_account:
        spec["serviceAccountName"] = workload.service_account
    if workload.termination_grace_period_seconds is not None:
        spec["terminationGracePeriodSeconds"] = workload.termination_grace_period_seconds
    return dict(sorted(spec.items()))


def build_jax_jobset(workload: JaxWorkloadConfig, placement: Placement, *,
                     secret_name: Optional[str] = None) -> dict[str, Any]:
    """The JobSet for a `runtime: jax` workload (validated config + where it runs) as a plain dict.

    `secret_name` is the Kubernetes Secret holding the workload's secretEnv values (keys = variable
    names); required when the workload has secretEnv.
    """
    if workload.runtime != "jax":
        raise ValueError(f"workload {workload.name!r} has runtime {workload.runtime!r}, not 'jax'")
    layout = jax_layout(workload, placement)
    labels = {WORKLOAD_LABEL: workload.name, RUNTIME_LABEL: "jax"}
    job_spec: dict[str, Any] = {
        "parallelism": layout.processes_per_job,
        "completions": layout.processes_per_job,
        "completionMode": "Indexed",
        # one failed process fails its Job, and the JobSet restarts every process together
        "backoffLimit": 0,
        # a pod evicted by node maintenance or spot preemption fails the Job with reason
        # PodFailurePolicy, which the JobSet restarts without spending maxRestarts (failurePolicy below)
        "podFailurePolicy": {"rules": [{"action": "FailJob",
                                        "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]},
        "template": {
            # every process, process 0 (the coordinator) included: evicting any one restarts them all
            "metadata": never_evict({"labels": {WORKLOAD_LABEL: workload.name}}),
            "spec": _pod_spec(workload, placement, layout, secret_name),
        },
    }
    job_template: dict[str, Any] = {"spec": job_spec}
    if layout.platform == "tpu" and (exclusive := slice_exclusive_annotation(placement)):
        # one slice (child Job) per node pool; read from the Job template (docs/jax-workloads.md)
        job_template = {"metadata": {"annotations": exclusive}, "spec": job_spec}
    if dynamic := dynamic_slice_annotations(placement):
        pod_meta = job_spec["template"]["metadata"]
        pod_meta["annotations"] = dict(sorted({**pod_meta.get("annotations", {}), **dynamic}.items()))
    metadata: dict[str, Any] = {"name": workload.name, "namespace": placement.namespace,
                                "labels": dict(sorted(labels.items()))}
    if placement.queue_name:
        metadata["labels"] = dict(sorted({**labels, QUEUE_NAME_LABEL: placement.queue_name}.items()))
    return {
        "apiVersion": JOBSET_API_VERSION,
        "kind": "JobSet",
        "metadata": metadata,
        "spec": {
            "coordinator": {"replicatedJob": REPLICATED_JOB, "jobIndex": 0, "podIndex": 0},
            "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True},
            "failurePolicy": {
                "maxRestarts": workload.max_restarts,
                "restartStrategy": workload.restart.strategy,
                "rules": [{"name": "disruption", "action": "RestartJobSetAndIgnoreMaxRestarts",
                           "onJobFailureReasons": ["PodFailurePolicy"]}],
            },
            "successPolicy": {"operator": "All", "targetReplicatedJobs": [REPLICATED_JOB]},
            "replicatedJobs": [{"name": REPLICATED_JOB, "replicas": layout.jobs, "template": job_template}],
        },
    }

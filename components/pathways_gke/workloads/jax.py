"""JaxWorkload: a multi-controller JAX JobSet (TPU multislice or CPU) as a Pulumi component.

Thin shell: inputs are validated by workloads/jax_inputs.py (the stack-config models), the JobSet is
built by workloads/jax_jobset.py; this module only registers the Kubernetes objects.

Children (names are public API):
- `{name}-env`: Secret with the workload's secretEnv values (only when it has secretEnv);
- `{name}-jobset`: the JobSet custom resource. Its spec is immutable server-side, so a spec change
  replaces it (delete first: the name is fixed).

The module must stay cross-language clean (schema inference of pulumi/provider/experimental/analyzer.py):
TypedDict args, no Union/Literal,
and no `from __future__ import annotations` here.
"""

from typing import Any, Mapping, NotRequired, Optional, TypedDict

import pulumi
import pulumi_kubernetes as k8s

from ..component import checking_args, rehydrated, split_options
from ..config.stack import StackConfig
from ..config.workloads import JaxWorkloadConfig
from ..naming import RUNTIME_LABEL, WORKLOAD_LABEL, workload_secret_name
from ..config.deferrable import WORKLOAD_FIELDS
from ..deferred import Deferred, defer_workload_outputs
from ..protection import protect_child
from ..tokens import JAX_WORKLOAD
from .jax_inputs import jax_inputs_from_stack, validate_jax_inputs
from .jax_jobset import build_jax_jobset, coordinator_address, jax_layout


class JaxProcess(TypedDict):
    """Process layout on the CPU pool (on TPU it comes from the slices: one process per TPU VM)."""

    processes: NotRequired[int]
    """CPU: total number of JAX processes (pods)."""
    slices: NotRequired[int]
    """CPU: split the processes into this many Jobs, like TPU slices (default 1)."""
    cpu: NotRequired[str]
    """CPU: CPU request per process (default "1")."""
    memory: NotRequired[str]
    """CPU: memory request and limit per process (default "4Gi")."""


class JaxWorkloadSpec(TypedDict):
    """The workload: what every process runs."""

    name: str
    """JobSet name: a DNS-1035 label of at most 22 characters."""
    image: pulumi.Input[str]
    """Container image, pinned to a tag or digest (may be an Output, e.g. an image built in the program)."""
    command: str
    """Bash text every process runs (one line or many); wrapped so SIGTERM reaches it."""
    tpu_pool: NotRequired[str]
    """TPU pool group the workload runs on; absent: the CPU pool."""
    jax: NotRequired[JaxProcess]
    """Process layout on the CPU pool."""
    env: NotRequired[dict[str, pulumi.Input[str]]]
    """Extra environment variables (values may be Outputs)."""
    secret_env: NotRequired[dict[str, str]]
    """Environment variable -> key of `secrets`; delivered through a Kubernetes Secret."""
    max_restarts: NotRequired[int]
    """JobSet restarts after a failure (evictions do not count)."""
    priority_class: NotRequired[str]
    """Kubernetes PriorityClass of the pods."""
    service_account: NotRequired[pulumi.Input[str]]
    """Kubernetes service account of the pods (Workload Identity)."""
    termination_grace_period_seconds: NotRequired[int]
    """Pod termination grace period in seconds."""
    privileged: NotRequired[bool]
    """Run the container privileged (default false)."""


class JaxTarget(TypedDict):
    """Where the workload runs (the cluster side)."""

    namespace: str
    """Kubernetes namespace of the JobSet."""
    cpu_pool: str
    """GKE node-pool name of the CPU pool."""
    tpu_group: NotRequired[str]
    """TPU pool group (node label pathways-gke/tpu-group); with tpu_type/topology for a TPU workload."""
    tpu_type: NotRequired[str]
    """TPU generation (v4, v5e, v5p, v6e, tpu7x) of the pool group."""
    topology: NotRequired[str]
    """Slice topology, e.g. 2x2x2."""
    machine_type: NotRequired[str]
    """TPU machine type of the slices."""
    slices: NotRequired[int]
    """Number of slices (node pools) of the TPU pool group."""
    capacity: NotRequired[str]
    """on-demand | spot | reservation | flex-start | queued."""
    reservation: NotRequired[str]
    """Reservation the slices consume (capacity reservation)."""
    placement_policy: NotRequired[str]
    """tpu7x multi-host workload-policy name."""
    queue_name: NotRequired[str]
    """Kueue LocalQueue when Kueue is enabled."""


# the names before the schema dropped the "Args" suffix (generated SDKs add their own: JaxTargetArgsArgs)
JaxProcessArgs = JaxProcess
JaxWorkloadSpecArgs = JaxWorkloadSpec
JaxTargetArgs = JaxTarget


class JaxWorkloadArgs(TypedDict):
    """Inputs of a JaxWorkload."""

    workload: JaxWorkloadSpec
    """The workload: what every process runs."""
    target: JaxTarget
    """Where it runs (the cluster side)."""
    secrets: NotRequired[dict[str, pulumi.Input[str]]]
    """Secret values by key (Pulumi secrets), for secret_env."""


class JaxWorkload(pulumi.ComponentResource):
    """Every process runs the user's program: one JobSet, one Job per TPU slice (or per CPU group)."""

    jobset_name: pulumi.Output[str]
    """Name of the JobSet (and of its headless Service)."""
    namespace: pulumi.Output[str]
    """Namespace of the JobSet."""
    coordinator_address: pulumi.Output[str]
    """host:port of process 0, as every process is told in JAX_COORDINATOR_ADDRESS."""
    processes: pulumi.Output[int]
    """Total number of JAX processes."""

    def __init__(self, name: str, args: JaxWorkloadArgs, opts: Optional[pulumi.ResourceOptions] = None):
        if rehydrated(self, JAX_WORKLOAD, name, opts):
            return
        secrets: Mapping[str, Any] = args.get("secrets") or {}
        deferred = Deferred(WORKLOAD_FIELDS)
        with checking_args():  # validate before the first registration: bad args register nothing
            spec = defer_workload_outputs(args["workload"], deferred)
            workload, target = validate_jax_inputs(spec, args["target"], tuple(sorted(secrets)))
        if deferred:  # image / env / serviceAccount Outputs: validated when known, swapped into the children
            deferred.validate_with(spec, lambda known: validate_jax_inputs(known, args["target"],
                                                                           tuple(sorted(secrets))))
        own, inherited = split_options(opts, deferred)
        super().__init__(JAX_WORKLOAD, name, {}, own)
        manifest_secret = workload_secret_name(workload.name) if workload.secret_env else None

        secret = None
        if manifest_secret is not None:
            secret = k8s.core.v1.Secret(
                f"{name}-env",
                metadata={"name": manifest_secret, "namespace": target.namespace,
                          "labels": {WORKLOAD_LABEL: workload.name, RUNTIME_LABEL: "jax"}},
                type="Opaque",
                string_data={env: pulumi.Output.secret(secrets[key])
                             for env, key in sorted(workload.secret_env.items())},
                opts=inherited.child(self, protect=protect_child("workload-secret", False)),
            )

        manifest = build_jax_jobset(workload, target, secret_name=manifest_secret)
        jobset = k8s.apiextensions.CustomResource(
            f"{name}-jobset",
            api_version=manifest["apiVersion"],
            kind=manifest["kind"],
            metadata=manifest["metadata"],
            spec=manifest["spec"],
            # replaced on every spec change (never protected), and with the pools it runs on
            opts=inherited.child(self, after=[secret] if secret else [], replaced=True,
                                 protect=protect_child("jobset", False), replace_on_changes=["spec"],
                                 delete_before_replace=True),
        )

        # plain, deterministic values, tied to the JobSet so consumers wait for it
        self.jobset_name = jobset.urn.apply(lambda _: workload.name)
        self.namespace = jobset.urn.apply(lambda _: target.namespace)
        self.coordinator_address = jobset.urn.apply(lambda _: coordinator_address(workload, target))
        self.processes = jobset.urn.apply(lambda _: jax_layout(workload, target).processes)
        self.register_outputs({
            "jobsetName": self.jobset_name,
            "namespace": self.namespace,
            "coordinatorAddress": self.coordinator_address,
            "processes": self.processes,
        })


def jax_args_from_stack(stack: StackConfig, workload: JaxWorkloadConfig,
                        secrets: Optional[Mapping[str, pulumi.Input[str]]] = None) -> JaxWorkloadArgs:
    """Component args for one `runtime: jax` workload of a validated stack.

    `secrets`: the stack's secret values by name (Pulumi secrets); only those the workload uses are passed.
    """
    inputs = jax_inputs_from_stack(stack, workload)
    used = {key: (secrets or {})[key] for key in sorted(set(workload.secret_env.values())) if key in (secrets or {})}
    args: dict[str, Any] = {"workload": inputs["workload"], "target": inputs["target"]}
    if used:
        args["secrets"] = used
    return args  # type: ignore[return-value]

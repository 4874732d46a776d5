"""JaxWorkload: a multi-controller JAX JobSet (TPU multislice or CPU) as a Pulumi component.

Thin shell: the args (`JaxWorkloadArgs`: `workload`, the placement args every workload component takes, and
`secrets`) are generated into args_types.py from the models; they are validated by workloads/jax_inputs.py (the
stack-config and placement models), the JobSet is built by render/jax_jobset.py; this module only registers the
Kubernetes objects.

Children (names are public API):
- `{name}-env`: Secret with the workload's secretEnv values (only when it has secretEnv);
- `{name}-jobset`: the JobSet custom resource. Its spec is immutable server-side, so a spec change
  replaces it (delete first: the name is fixed).

The module must stay cross-language clean (schema inference of pulumi/provider/experimental/analyzer.py):
no `from __future__ import annotations` here.
"""

from typing import Any, Mapping, Optional

import pulumi
import pulumi_kubernetes as k8s

from ..args_types import JaxWorkloadArgs
from ..component import checking_args, env_secret, rehydrated, split_options
from ..config.stack import StackConfig
from ..config.workloads import JaxWorkloadConfig
from ..naming import RUNTIME_LABEL, workload_secret_name
from ..config.deferrable import WORKLOAD_FIELDS
from ..deferred import Deferred, defer_workload_outputs
from ..apply_rules import JOBSET_REPLACE_ON_CHANGES
from ..protection import child_options
from ..tokens import JAX_WORKLOAD
from .jax_inputs import jax_inputs_from_stack, validate_jax_args
from ..render.jax_jobset import build_jax_jobset, coordinator_address, jax_layout


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
        given: dict[str, Any] = dict(args or {})
        secrets: Mapping[str, Any] = given.get("secrets") or {}
        deferred = Deferred(WORKLOAD_FIELDS)
        with checking_args():  # validate before the first registration: bad args register nothing
            given["workload"] = defer_workload_outputs(given.get("workload"), deferred)
            workload, target = validate_jax_args(given)
        if deferred:  # image / env Outputs: validated when known, swapped into the children
            deferred.validate_with(given, validate_jax_args)
        own, inherited = split_options(opts, deferred, protectable=False)
        super().__init__(JAX_WORKLOAD, name, {}, own)
        manifest_secret = workload_secret_name(workload.name) if workload.secret_env else None

        secret = None
        if manifest_secret is not None:
            secret = env_secret(self, name, workload=workload.name, namespace=target.namespace,
                                values={env: secrets[key] for env, key in workload.secret_env.items()},
                                inherited=inherited, labels={RUNTIME_LABEL: "jax"})

        manifest = build_jax_jobset(workload, target, secret_name=manifest_secret)
        jobset = k8s.apiextensions.CustomResource(
            f"{name}-jobset",
            api_version=manifest["apiVersion"],
            kind=manifest["kind"],
            metadata=manifest["metadata"],
            spec=manifest["spec"],
            # replaced on every spec or queue-name change (never protected), and with the pools it runs on
            opts=inherited.child(self, after=[secret] if secret else [], replaced=True,
                                 **child_options("jobset", False), replace_on_changes=list(JOBSET_REPLACE_ON_CHANGES),
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
    args: dict[str, Any] = dict(inputs)
    if used:
        args["secrets"] = used
    return args  # type: ignore[return-value]

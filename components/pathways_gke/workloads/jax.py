"""JaxWorkload: a multi-controller JAX JobSet (TPU multislice or CPU) as a Pulumi component.

Thin shell: the args (`JaxWorkloadArgs`: `workload`, the placement args every workload component takes, and
`secrets`) are generated into args_types.py from the models; they are validated by config/jax_args.py (the
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

from ..args_types import JaxWorkloadArgs
from ..config.stack import StackConfig
from ..config.workloads import JaxWorkloadConfig
from ..naming import RUNTIME_LABEL
from ..tokens import JAX_WORKLOAD
from ..config.jax_args import jax_inputs_from_stack, validate_jax_args
from ..render.jax_jobset import coordinator_address, jax_layout
from ..render.objects import objects_for
from .base import Checked, WorkloadComponent


class JaxWorkload(WorkloadComponent):
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
        built = self._construct(JAX_WORKLOAD, name, args, opts, validate_args, secret_labels={RUNTIME_LABEL: "jax"})
        if built is None:
            return
        checked, inherited = built
        self.jobset = self._jobset(name, checked, inherited)
        workload, placement = checked.workload, checked.placement
        assert isinstance(workload, JaxWorkloadConfig)
        self.jobset_name = self._known(self.jobset, workload.name)
        self.namespace = self._known(self.jobset, placement.namespace)
        self.coordinator_address = self._known(self.jobset, coordinator_address(workload, placement))
        self.processes = self._known(self.jobset, jax_layout(workload, placement).processes)
        self._finish({
            "jobsetName": self.jobset_name,
            "namespace": self.namespace,
            "coordinatorAddress": self.coordinator_address,
            "processes": self.processes,
        })


def validate_args(args: Mapping[str, Any]) -> Checked:
    """Validate component args (config/jax_args.py); return the workload, where it runs, its JobSet and the
    secret values by env. Raises ConfigError naming every bad input path."""
    workload, placement = validate_jax_args(args)
    secrets: Mapping[str, Any] = args.get("secrets") or {}
    return Checked(workload, placement, objects_for(workload, placement),
                   {env: secrets[key] for env, key in workload.secret_env.items()})


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

"""`PathwaysWorkload`: one Pathways head + worker JobSet (and its env Secret) as a Pulumi component.

Usable inside `PathwaysCluster` and on its own against an existing cluster: pass your
`pulumi_kubernetes.Provider` through `opts` (`providers=[k8s_provider]` or `provider=`). The JobSet itself is
rendered by the pure builder in `render/pathways_jobset.py`; this module only validates the args and registers
resources.

Cross-language clean on purpose (schema inference of pulumi/provider/experimental/analyzer.py): the args,
`PathwaysWorkloadArgs`, are generated into args_types.py (`python -m pathways_gke.argsgen`) from the workload and
placement models; ints may arrive as floats, and this module must NOT use `from __future__ import annotations`.
"""

import json
from typing import Any, Mapping, Optional

import pulumi
from pydantic import ValidationError

from .. import naming
from ..args_types import PathwaysWorkloadArgs
from ..config.base import problems_from
from ..config.pathways_checks import pathways_workload_problems
from ..config.placement import Placement
from ..config.workloads import PathwaysWorkloadConfig, cluster_wired_problems, without_cluster_wired
from ..errors import ConfigError, Problem
from ..tokens import PATHWAYS_WORKLOAD
from ..render.objects import objects_for
from .base import Checked, WorkloadComponent
from ..config.placement import placement_problems, plain, secret_values_from_args


class PathwaysWorkload(WorkloadComponent):
    """A Pathways workload (head + workers) as a JobSet, with a Secret for its secret env values."""

    jobset_name: pulumi.Output[str]
    """Name of the JobSet (= the workload name)."""
    namespace: pulumi.Output[str]
    """Namespace of the JobSet."""
    head_host: pulumi.Output[str]
    """The head pod's host name within the namespace: <name>-pathways-head-0-0.<name>."""
    head_dns_name: pulumi.Output[str]
    """Fully qualified head DNS name (cluster domain cluster.local)."""
    jax_backend_target: pulumi.Output[str]
    """In-cluster JAX_BACKEND_TARGET of the IFRT proxy: grpc://<head host>:29000."""
    port_forward_command: pulumi.Output[str]
    """Ready-to-paste kubectl port-forward to the head's IFRT proxy (for notebooks, headless mode)."""

    def __init__(self, name: str, args: PathwaysWorkloadArgs, opts: Optional[pulumi.ResourceOptions] = None):
        built = self._construct(PATHWAYS_WORKLOAD, name, args, opts, validate_args)
        if built is None:
            return
        checked, inherited = built
        self.jobset = self._jobset(name, checked, inherited)
        ns = checked.placement.namespace
        facts = access_facts(checked.workload.name, ns)
        self.jobset_name = self._known(self.jobset, checked.workload.name)
        self.namespace = self._known(self.jobset, ns)
        self.head_host = self._known(self.jobset, facts["head_host"])
        self.head_dns_name = self._known(self.jobset, facts["head_dns_name"])
        self.jax_backend_target = self._known(self.jobset, facts["jax_backend_target"])
        self.port_forward_command = self._known(self.jobset, facts["port_forward_command"])
        self._finish({
            "jobsetName": self.jobset_name,
            "namespace": self.namespace,
            "headHost": self.head_host,
            "headDnsName": self.head_dns_name,
            "jaxBackendTarget": self.jax_backend_target,
            "portForwardCommand": self.port_forward_command,
        })


def access_facts(jobset: str, namespace: str) -> dict[str, str]:
    """Where a client reaches the head (https://cloud.google.com/ai-hypercomputer/docs/workloads/pathways-on-cloud/pathways-interactive-mode)."""
    host = naming.pathways_head_host(jobset)
    return {
        "head_host": host,
        "head_dns_name": f"{host}.{namespace}.svc.cluster.local",
        "jax_backend_target": f"grpc://{host}:{naming.PROXY_PORT}",
        "port_forward_command": (f"kubectl port-forward -n {namespace} job/{naming.pathways_head_job(jobset)} "
                                 f"{naming.PROXY_PORT}:{naming.PROXY_PORT}  # then: JAX_PLATFORMS=proxy "
                                 f"JAX_BACKEND_TARGET=grpc://127.0.0.1:{naming.PROXY_PORT}"),
    }


def workload_from_args(args: Mapping[str, Any], problems: list[Problem]) -> Optional[PathwaysWorkloadConfig]:
    """The `workload` arg of a Pathways workload component through the config model (its problems appended),
    refusing the keys only PathwaysCluster can honour."""
    raw_workload = args.get("workload")
    if not isinstance(raw_workload, Mapping):
        problems.append(Problem("workload", "is required: a mapping like one pathways-gke:workloads entry"))
        return None
    try:
        workload = PathwaysWorkloadConfig.model_validate(plain(raw_workload), by_alias=True)
    except ValidationError as exc:
        problems.extend(problems_from(exc, PathwaysWorkloadConfig, ["workload"]))
        return None
    problems.extend(cluster_wired_problems(workload, "workload"))
    return workload


def validate_args(args: Mapping[str, Any]) -> Checked:
    """Validate component args through the config models; return the workload, where it runs, its JobSet and the
    secret values by env.

    Raises ConfigError naming every bad arg path (e.g. `workload.pathways.version`, `tpu_topology`).
    """
    problems: list[Problem] = []
    workload = workload_from_args(args, problems)
    placement, placement_errors = placement_problems(args, ("workload", "secrets"), tpu_required=True)
    problems.extend(placement_errors)
    secret_values: dict[str, Any] = {}
    if workload is not None and placement is not None:
        if workload.image is None and workload.mode != "headless":
            problems.append(Problem("workload.image", "is required (the user container's image, pinned to a tag); "
                                    "only headless workloads have no user container"))
        problems.extend(pathways_workload_problems(workload, placement, "workload", "cpu_machine_type"))
        secret_values = secret_values_from_args(workload, args, problems)
    if problems or workload is None or placement is None:
        raise ConfigError(problems)
    return Checked(workload, placement, objects_for(workload, placement), secret_values)


def pathways_args_from_stack(stack: Any, workload: PathwaysWorkloadConfig,
                             secrets: Optional[Mapping[str, Any]] = None) -> PathwaysWorkloadArgs:
    """Args for one `runtime: pathways` workload of a validated StackConfig (used by PathwaysCluster)."""
    placement = Placement.of(stack, workload)
    if placement.shape is None:
        raise ValueError(f"workload {workload.name!r} has no TPU pool group")
    args: dict[str, Any] = {
        "workload": json.loads(workload.model_dump_json(by_alias=True, exclude_unset=True,
                                                        include=without_cluster_wired(workload))),
        **placement.args(),
    }
    needed = sorted(set(workload.secret_env.values()))
    if needed:
        if isinstance(secrets, Mapping):
            args["secrets"] = {k: v for k, v in secrets.items() if k in needed}
        elif secrets is not None:  # an Output of the whole mapping (pulumi.Config.get_secret_object)
            whole = pulumi.Output.secret(secrets)
            args["secrets"] = {k: whole.apply(lambda m, k=k: (m or {}).get(k)) for k in needed}
    return args  # type: ignore[return-value]

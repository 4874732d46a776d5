"""`PathwaysServing`: a Pathways serving workload (mode serving) or persistent Pathways service (mode service)
on a LeaderWorkerSet, as a Pulumi component.

Usable inside `PathwaysCluster` and on its own against a cluster that runs the LWS controller: pass your
`pulumi_kubernetes.Provider` through `opts`. The objects are rendered by the pure builder in `render/serving_lws.py`;
this module validates the args and registers one resource per object, so adding or removing a service
client touches only that client's Deployment and Service.

Cross-language clean (see workloads/pathways.py): generated TypedDict args (`PathwaysServingArgs`, args_types.py),
no `from __future__ import annotations`.
"""

from typing import Any, Mapping, Optional

import pulumi
import pulumi_kubernetes as k8s
from pydantic import ValidationError

from ..args_types import PathwaysServingArgs
from ..config.addons import KueueConfig, LwsConfig
from ..config.base import problems_from
from ..config.pathways_checks import pathways_workload_problems
from ..config.serving_checks import MUTABLE_SIZE_SINCE, serving_workload_problems
from ..releases import version_key
from ..config.workloads import PathwaysWorkloadConfig
from ..errors import ConfigError, Problem
from ..apply_rules import lws_kueue_replace_on_changes
from ..protection import child_options
from .pathways import pathways_args_from_stack, workload_from_args
from ..config.placement import placement_problems, secret_values_from_args
from ..render.objects import objects_for
from ..render.serving_lws import access_facts
from .base import Checked, WorkloadComponent
from ..tokens import PATHWAYS_SERVING


class PathwaysServing(WorkloadComponent):
    """Pathways serving (LeaderWorkerSet + Service) or a persistent Pathways service (LWS + a proxy per client)."""

    lws_name: pulumi.Output[str]
    """Name of the LeaderWorkerSet (= the workload name)."""
    namespace: pulumi.Output[str]
    """Namespace of the objects."""
    service_name: Optional[pulumi.Output[str]]
    """mode serving: the Service in front of the leaders (<name>-svc)."""
    endpoint: Optional[pulumi.Output[str]]
    """mode serving: in-cluster URL of the server's first port through the Service."""
    port_forward_command: Optional[pulumi.Output[str]]
    """mode serving: kubectl port-forward to the Service (for a quick test from a laptop)."""
    client_targets: Optional[pulumi.Output[dict[str, str]]]
    """mode service: each client's in-cluster JAX_BACKEND_TARGET (its own proxy's Service)."""
    client_port_forward_commands: Optional[pulumi.Output[dict[str, str]]]
    """mode service: per client, kubectl port-forward to its proxy (then JAX_BACKEND_TARGET=grpc://127.0.0.1:29000)."""
    load_balancer_address: Optional[pulumi.Output[Optional[str]]]
    """mode serving with serving.loadBalancer: the internal load balancer's address (the Service's status.loadBalancer.ingress[0]) once GKE assigns it; the Service is not awaited, so null until a `pulumi refresh` reads it."""

    def __init__(self, name: str, args: PathwaysServingArgs, opts: Optional[pulumi.ResourceOptions] = None):
        # StatefulSets reschedule on a replaced pool: no child is replaced with it
        built = self._construct(PATHWAYS_SERVING, name, args, opts, validate_args)
        if built is None:
            return
        checked, inherited = built
        objects, workload = checked.objects, checked.workload
        assert isinstance(workload, PathwaysWorkloadConfig) and checked.lws_version is not None
        lws = objects.primary
        self.lws = k8s.apiextensions.CustomResource(
            f"{name}-lws",
            api_version=lws["apiVersion"], kind=lws["kind"], metadata=lws["metadata"], spec=lws["spec"],
            # everything else rolls group by group; these the LWS webhook refuses to change in place
            opts=inherited.child(self, after=self._after_secret, **child_options("serving", False),
                                 replace_on_changes=immutable_paths(lws, checked.lws_version) or None,
                                 delete_before_replace=True),  # fixed name
        )
        self.service = None
        if objects.service is not None:
            svc = objects.service
            # a new spec.type (ClusterIP <-> internal LoadBalancer) updates it in place (pulumi-kubernetes replaces a
            # Service only on spec.clusterIP); its name is fixed, so a replacement deletes first
            self.service = k8s.core.v1.Service(
                f"{name}-svc", metadata=svc["metadata"], spec=svc["spec"],
                opts=inherited.child(self, **child_options("serving", False), delete_before_replace=True))
        self.clients = {}
        for client, (deployment, svc) in objects.clients.items():
            proxy = k8s.apps.v1.Deployment(
                f"{name}-proxy-{client}", metadata=deployment["metadata"], spec=deployment["spec"],
                opts=inherited.child(self, after=[self.lws], **child_options("serving", False),
                                     delete_before_replace=True))
            service = k8s.core.v1.Service(
                f"{name}-proxy-{client}-svc", metadata=svc["metadata"], spec=svc["spec"],
                opts=inherited.child(self, **child_options("serving", False), delete_before_replace=True))
            self.clients[client] = (proxy, service)

        facts = access_facts(workload, checked.placement.namespace)
        known = lambda key: self._known(self.lws, facts[key]) if key in facts else None  # noqa: E731
        self.lws_name = self._known(self.lws, workload.name)
        self.namespace = self._known(self.lws, checked.placement.namespace)
        self.service_name = known("service_name")
        self.endpoint = known("endpoint")
        self.port_forward_command = known("port_forward_command")
        self.client_targets = known("client_targets")
        self.client_port_forward_commands = known("client_port_forward_commands")
        self.load_balancer_address = (self.service.status.apply(ingress_address)
                                      if self.service is not None and objects.service is not None
                                      and objects.service["spec"].get("type") == "LoadBalancer" else None)
        self._finish({
            "lwsName": self.lws_name,
            "namespace": self.namespace,
            "serviceName": self.service_name,
            "endpoint": self.endpoint,
            "portForwardCommand": self.port_forward_command,
            "clientTargets": self.client_targets,
            "clientPortForwardCommands": self.client_port_forward_commands,
            "loadBalancerAddress": self.load_balancer_address,
        })


def ingress_address(status: Any) -> Optional[str]:
    """`status.loadBalancer.ingress[0]` ip (or hostname) of a Service: the SDK's ServiceStatus, a plain dict (mocks),
    or nothing yet."""
    def field(obj: Any, *names: str) -> Any:
        for name in names:
            value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
            if value is not None:
                return value
        return None

    ingress = field(field(status, "load_balancer", "loadBalancer"), "ingress") or []
    first = ingress[0] if ingress else None
    return field(first, "ip", "hostname") if first is not None else None


def immutable_paths(lws: Mapping[str, Any], lws_version: str) -> list[str]:
    """LWS spec paths the webhook refuses to update: a change there replaces the LWS (delete, then create).

    `subGroupPolicy` cannot be added, removed or resized; `size` is immutable before v0.7.0
    (kubernetes-sigs/lws `pkg/webhooks/leaderworkerset_webhook.go` ValidateUpdate). Kueue's webhook refuses adding
    or removing the queue-name label and, while it is set, changes of the group size and of the pod templates'
    frozen shape (container count, requests, ports, nodeSelector, affinity, tolerations, ...; apply_rules
    `kueue-lws-*`): those replace it too.
    """
    paths = ["spec.leaderWorkerTemplate.subGroupPolicy"]
    if version_key(lws_version) < version_key(MUTABLE_SIZE_SINCE):
        paths.append("spec.leaderWorkerTemplate.size")
    return list(dict.fromkeys(paths + list(lws_kueue_replace_on_changes(lws))))


def _release_arg(args: Mapping[str, Any], arg: str, model: type[LwsConfig] | type[KueueConfig],
                 problems: list[Problem]) -> str:
    """A controller release arg checked as the stack's `<addon>.version` is (its default when absent)."""
    version: str = model().version
    try:
        version = model.model_validate({"version": args.get(arg, version)}).version
    except ValidationError as exc:
        problems.extend(Problem(arg, p.message, args.get(arg)) for p in problems_from(exc, model, []))
    return version


def validate_args(args: Mapping[str, Any]) -> Checked:
    """Validate component args; return the workload, where it runs, its objects, the secret values by env and the
    LWS version.

    Raises ConfigError naming every bad arg path (e.g. `workload.serving.port`, `lws_version`).
    """
    problems: list[Problem] = []
    workload = workload_from_args(args, problems)
    lws_version = _release_arg(args, "lws_version", LwsConfig, problems)
    kueue_version = _release_arg(args, "kueue_version", KueueConfig, problems)
    placement, placement_errors = placement_problems(args, ("workload", "secrets", "lws_version", "kueue_version"),
                                                     tpu_required=True)
    problems.extend(placement_errors)
    if placement is not None and placement.dynamic_slice:
        problems.append(Problem("dynamic_slice", "is not supported by PathwaysServing: GKE's slice controller forms "
                                "a dynamic slice for a JobSet admitted through Kueue (docs/ironwood.md), not for a "
                                "LeaderWorkerSet's groups; serve from a node-pool slice group", True))
    secret_values: dict[str, Any] = {}
    if workload is not None and placement is not None:
        if not workload.on_lws:
            problems.append(Problem("workload.mode", "must be 'serving' or 'service' (runtime pathways) for a "
                                    "PathwaysServing; other workloads are PathwaysWorkload / JaxWorkload",
                                    workload.mode))
        else:
            if workload.image is None and workload.mode == "serving":
                problems.append(Problem("workload.image", "is required (the server container's image, pinned to "
                                        "a tag)"))
            problems.extend(pathways_workload_problems(workload, placement, "workload", "cpu_machine_type"))
            problems.extend(serving_workload_problems(workload, placement, "workload", lws_version=lws_version,
                                                      kueue_version=kueue_version))
        secret_values = secret_values_from_args(workload, args, problems)
    if problems or workload is None or placement is None:
        raise ConfigError(problems)
    return Checked(workload, placement, objects_for(workload, placement), secret_values, lws_version=lws_version)


def serving_args_from_stack(stack: Any, workload: PathwaysWorkloadConfig,
                            secrets: Optional[Mapping[str, Any]] = None) -> PathwaysServingArgs:
    """Args for one serving/service workload of a validated StackConfig (used by PathwaysCluster)."""
    args: dict[str, Any] = dict(pathways_args_from_stack(stack, workload, secrets))
    args["lws_version"] = stack.lws.version
    if stack.kueue.enabled:
        args["kueue_version"] = stack.kueue.version
    return args  # type: ignore[return-value]


__all__ = ["PathwaysServing", "PathwaysServingArgs", "immutable_paths", "serving_args_from_stack", "validate_args"]

"""The typed arguments of the components: the surface other languages see.

Pulumi's component provider infers the package schema from these annotations
(pulumi.provider.experimental.analyzer), so the types stay within what it can read: TypedDicts, Enums,
list / dict[str, T], no Union, no Literal, and NO `from __future__ import annotations` (the analyzer reads
annotations without evaluating strings). The docstring under each field becomes its schema description.

PathwaysClusterArgs (from the root model `StackConfig`, its args the stack keys in snake_case) and the sections'
types (Cluster, TpuPool, Workload, ... and the Enums) are generated from the config models into args_types.py by
`python -m pathways_gke.argsgen`: one source for fields, requiredness, types and descriptions.
Values that only flow into properties (the list is `config.deferrable.STACK_FIELDS`) are `pulumi.Input`s there;
everything that shapes the resource graph is plain.

Validation is NOT done here: `stack_input(args)` turns these dicts into the stack-config mapping that
`config.parse_stack` validates (one model decides every rule).
"""

import math
from collections import abc
from enum import Enum
from types import UnionType
from typing import Any, Mapping, Optional, Union, get_args, get_origin, get_type_hints, is_typeddict

import pulumi

from .args_types import (  # noqa: F401 - re-exported; generated from the config models (pathways_gke.argsgen)
    AdditionalNetwork, AuthorizedNetwork, Autoprovisioning, Bucket, BucketAccess, BucketAccessMode, Capacity, Cluster,
    ClusterCheckpointing, ClusterDns, ContainerResources, CpuPool, DiskType, DynamicSlice, GcsFuseVolume,
    HostMaintenanceInterval, ImagePullPolicy, JaxSettings, JobSet, Kueue, LeaderPlacement, LoadBalancer, Lws,
    Maintenance, MaintenanceExclusion, MaintenanceScope, MaintenanceWindow, Nat, NetworkDeviceMode, NodeServiceAccount,
    Observability, PathwaysClusterArgs, PathwaysEnv, PathwaysFlags, PathwaysImages, PathwaysSettings, ReleaseChannel,
    Reservation, RestartSettings, RestartStrategy, Runtime, ServiceSettings, ServingPort, ServingProbes,
    ServingSettings, Sidecar, SidecarResources, TpuPool, Workload, WorkloadCheckpointing, WorkloadMode,
    WorkloadPlacement,
)
from .config.deferrable import accepted_paths
from .config.model import STACK_KEYS
from .config.stack import SECRET_NAME_PLACEHOLDER, secret_name_placeholders  # noqa: F401 - re-exported
from .errors import ConfigError, Problem


# --- the cluster component's arguments ---------------------------------------------------------
# PathwaysClusterArgs is generated from the root model (config/model.py StackConfig) into args_types.py: its
# args are the stack keys in snake_case (`project` is gcp:project); `secrets` takes the values, each an Input.


# --- args -> stack config mapping ----------------------------------------------------------------


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def stack_input(args: Mapping[str, Any], deferred: Any = None) -> dict[str, Any]:
    """PathwaysClusterArgs (Python snake_case, or the provider's mapped inputs) -> `parse_stack` input.

    Keys become the stack file's camelCase names (so errors name the stack-config paths), Enum
    members their values, integral floats ints where the field is an int (cross-language numbers
    arrive as floats). Secret VALUES never enter validation: only their names do. An Output at a path
    that accepts one is handed to `deferred` (a `pathways_gke.deferred.Deferred`), which gives a stand-in;
    raises ConfigError for Outputs anywhere else (those values decide the resource graph).
    """
    problems: list[Problem] = []
    if not isinstance(args, Mapping):
        raise ConfigError([Problem("args", "must be a mapping of PathwaysClusterArgs", type(args).__name__)])
    hints = field_types(PathwaysClusterArgs)
    out: dict[str, Any] = {}
    for key, value in args.items():
        if key == "secrets":
            out["secrets"] = _secret_names(value, problems)
            continue
        if ":" in key:  # already a stack-config key (gcp:project, pathways-gke:cluster)
            out[key] = _convert(value, None, key.split(":", 1)[1], problems, deferred)
            continue
        field = _field_of(hints, key)
        name = field or key
        target = STACK_KEYS.get(name, camel(name))
        out[target] = _convert(value, hints.get(name), target, problems, deferred)
    if problems:
        raise ConfigError(problems)
    return out


def _secret_names(value: Any, problems: list[Problem]) -> Any:
    if value is None:
        return {}
    if isinstance(value, pulumi.Output):
        problems.append(Problem("secrets", "must be a map whose keys are known when the component is created "
                                "(the values may be secrets or outputs); a whole-map Output was given"))
        return {}
    if not isinstance(value, Mapping):
        return value  # parse_stack reports the wrong type
    return secret_name_placeholders(value)


def field_types(typed_dict: type) -> dict[str, Any]:
    """Field name -> type of a TypedDict (NotRequired dropped; pulumi.Input's forward ref resolved)."""
    from pulumi.output import T

    return get_type_hints(typed_dict, localns={"Output": pulumi.Output, "T": T})


def _field_of(hints: Mapping[str, Any], key: str) -> Optional[str]:
    """The python field a key names: its snake_case name, or its camelCase schema name."""
    if key in hints:
        return key
    for name in hints:
        if camel(name) == key:
            return name
    return None


def _unwrap(annotation: Any) -> Any:
    """Optional[T] -> T. (get_type_hints already drops NotRequired; Input only wraps `secrets`.)"""
    if get_origin(annotation) is Union or get_origin(annotation) is UnionType:
        members = [a for a in get_args(annotation) if a is not type(None)]
        return members[0] if len(members) == 1 else Any
    return annotation


def _convert(value: Any, annotation: Any, path: str, problems: list[Problem], deferred: Any = None) -> Any:
    if isinstance(value, pulumi.Output):
        if deferred is not None and deferred.accepts(path):
            return deferred.take(path, value)
        problems.append(Problem(path, "must be a plain value known when the component is created: it shapes "
                                "the resource graph (which resources exist and their names), so it cannot wait "
                                f"for another resource; an Output was given. Outputs are accepted for: "
                                f"{accepted_paths()}"))
        return None
    if isinstance(value, Enum):
        return value.value
    kind = _unwrap(annotation)
    if kind is int and isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    origin, params = get_origin(kind), get_args(kind)
    if isinstance(value, Mapping):
        if is_typeddict(kind):
            hints = field_types(kind)
            converted = {}
            for key, item in value.items():
                field = _field_of(hints, str(key))
                target = camel(field) if field else str(key)
                converted[target] = _convert(item, hints.get(field) if field else None, f"{path}.{target}",
                                             problems, deferred)
            return converted
        item_kind = params[1] if origin in (dict, abc.Mapping) and len(params) == 2 else None
        return {k: _convert(v, item_kind, f"{path}.{k}", problems, deferred) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        item_kind = params[0] if origin in (list, abc.Sequence) and params else None
        return [_convert(v, item_kind, f"{path}[{i}]", problems, deferred) for i, v in enumerate(value)]
    return value

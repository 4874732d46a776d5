"""What every pathways-gke component does alike at its boundary (docs/architecture.md, "Component conventions").

- `rehydrated`: a component built from a resource reference (`opts.urn`) registers nothing and reads no args.
- `split_options`: a component is never replaced itself; Pulumi hands neither `depends_on` nor `replace_with`
  to children, so the component passes them on (`Inherited.child`) to the children it decides.
- `checking_args`: invalid args leave the constructor as one `pulumi.InputPropertiesError` (a Python program,
  the component provider and the offline plan see the same error); it is also the `ConfigError` it was built
  from, so the CLI prints `render()` exactly as for a stack file.
"""

import copy
import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator, Mapping, Optional, Sequence

import pulumi
import pulumi_kubernetes as k8s
from pulumi.errors import InputPropertyErrorDetails

from .args import camel
from .deferred import Deferred
from .errors import ConfigError, Problem
from .naming import WORKLOAD_LABEL, workload_secret_name
from .protection import child_options


def rehydrated(component: pulumi.ComponentResource, token: str, name: str,
               opts: Optional[pulumi.ResourceOptions]) -> bool:
    """Whether `opts.urn` names an existing component (a resource reference being rehydrated). Then `component`
    is initialised from it and its constructor returns: no args are checked, no child is registered."""
    if opts is None or not opts.urn:
        return False
    pulumi.ComponentResource.__init__(component, token, name, None, opts)
    return True


@dataclass(frozen=True)
class Inherited:
    """The component's `depends_on` and `replace_with`, for the children it passes them on to."""

    depends_on: tuple[Any, ...] = ()
    replace_with: tuple[Any, ...] = ()

    def child(self, parent: pulumi.Resource, *, after: Sequence[Any] = (), replaced: bool = False,
              **extra: Any) -> pulumi.ResourceOptions:
        """Options of a child that waits for what the component waits for (and `after`); `replaced`: it is also
        replaced with what the component was told to be replaced with (a JobSet whose pools are replaced)."""
        return pulumi.ResourceOptions(parent=parent, depends_on=[*self.depends_on, *after],
                                      replace_with=(list(self.replace_with) or None) if replaced else None, **extra)


def split_options(opts: Optional[pulumi.ResourceOptions], deferred: Optional[Deferred] = None, *,
                  protectable: bool = True) -> tuple[Optional[pulumi.ResourceOptions], Inherited]:
    """(the component's own options, what its children inherit). Its own keep everything but `replace_with`;
    with Outputs among the args (`deferred`), they carry the transformation that swaps them into the children.

    `protectable=False` (the workload components): the component's own `protect` is dropped. Its children are
    never protected (a JobSet or LeaderWorkerSet must stay replaceable), and the engine deletes children before
    their parent, so a protected workload component removed from the program would be half-deleted: its objects
    gone, the component refused ("unable to delete resource … protect", pulumi/pulumi pkg/resource/deploy/step.go).
    """
    own = copy.copy(opts)
    if own is not None:
        own.replace_with = None
        if not protectable:
            own.protect = False
    if deferred:
        own = pulumi.ResourceOptions.merge(own, pulumi.ResourceOptions(transformations=[deferred.transformation]))
    if opts is None:
        return own, Inherited()
    return own, Inherited(_as_tuple(opts.depends_on), _as_tuple(opts.replace_with))


class InvalidArgsError(ConfigError, pulumi.InputPropertiesError):
    """A component's invalid args: one entry per problem, by the component's input property name (camelCase,
    e.g. `tpuPools[0].topology`), which TypeScript, Go and YAML show per property. Its text is `render()`."""

    def __init__(self, problems: Sequence[Problem]):
        ConfigError.__init__(self, problems)
        self.message = self.render()
        self.errors: Optional[list[InputPropertyErrorDetails]] = [
            {"property_path": property_path(p.path), "reason": str(p)[len(p.path) + 2:]}  # "<value> <message>"
            for p in self.problems]


def input_properties_error(error: ConfigError) -> InvalidArgsError:
    """`error` as the per-property error a component raises (itself when it already is one)."""
    return error if isinstance(error, InvalidArgsError) else InvalidArgsError(error.problems)


@contextmanager
def checking_args() -> Iterator[None]:
    """Around a constructor's validation: a ConfigError leaves it as the InvalidArgsError of its problems."""
    try:
        yield
    except ConfigError as error:
        raise input_properties_error(error) from None


def property_path(path: str) -> str:
    """A problem's path as an input property path: each key camelCase (`tpu_topology` -> `tpuTopology`), the
    stack file's `gcp:project` the `project` input."""
    return ".".join(re.sub(r"^[a-z0-9_]+", lambda m: camel(m.group(0)), part)
                    for part in path.replace("gcp:project", "project").split("."))


def _as_tuple(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    return tuple(value) if isinstance(value, (list, tuple)) else (value,)


__all__ = ["Inherited", "InvalidArgsError", "checking_args", "input_properties_error", "property_path",
           "rehydrated", "split_options"]


def env_secret(parent: pulumi.Resource, name: str, *, workload: str, namespace: str, values: Mapping[str, Any],
               inherited: Inherited, labels: Optional[Mapping[str, str]] = None) -> k8s.core.v1.Secret:
    """`<name>-env`: the Secret a workload component's pods read their secretEnv from, so the values travel as
    Pulumi secrets and never appear in the pod spec (never protected: replaced with its workload)."""
    return k8s.core.v1.Secret(
        f"{name}-env",
        metadata={"name": workload_secret_name(workload), "namespace": namespace,
                  "labels": {WORKLOAD_LABEL: workload, **(labels or {})}},
        type="Opaque",
        string_data={env: pulumi.Output.secret(value) for env, value in sorted(values.items())},
        opts=inherited.child(parent, **child_options("workload-secret", False)),
    )

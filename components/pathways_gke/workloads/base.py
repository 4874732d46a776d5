"""What the three workload components (`PathwaysWorkload`, `JaxWorkload`, `PathwaysServing`) do alike.

Every one of them: validate its args through the config models (bad args register nothing) → take the Outputs
among them out (config.deferrable: validated once known, swapped into the children) → render its objects with the
one dispatch (render/objects.py `objects_for`) → register them with `parent=self`, then its outputs, last. Each
component states only what differs: its token, how its args are checked (a `validate` function returning `Checked`),
which children its objects become, and which outputs it has. Its outputs are plain, deterministic values tied to
the object they describe (the JobSet or LeaderWorkerSet), so a consumer waits for it.

Pure Pulumi shell: the objects come from render/, the checks from config/.
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, TypeVar

import pulumi
import pulumi_kubernetes as k8s

from ..apply_rules import JOBSET_REPLACE_ON_CHANGES
from ..component import Inherited, checking_args, env_secret, rehydrated, split_options
from ..config.deferrable import WORKLOAD_FIELDS
from ..config.placement import Placement
from ..config.workloads import WorkloadConfig
from ..deferred import Deferred, defer_workload_outputs
from ..protection import child_options
from ..render.objects import WorkloadObjects

T = TypeVar("T")


@dataclass(frozen=True)
class Checked:
    """A workload component's args once valid: the workload, where it runs, its objects, and the value of each
    secretEnv entry by env name (from the `secrets` arg)."""

    workload: WorkloadConfig
    placement: Placement
    objects: WorkloadObjects
    secret_values: Mapping[str, Any] = field(default_factory=dict)
    lws_version: Optional[str] = None
    """PathwaysServing: the LeaderWorkerSet release its objects are checked against."""


class WorkloadComponent(pulumi.ComponentResource):
    """The shared constructor of the workload components (see the module doc). `self.secret` is `{name}-env`, the
    Secret of the workload's secretEnv values (None without secretEnv)."""

    def _construct(self, token: str, name: str, args: Any, opts: Optional[pulumi.ResourceOptions],
                   validate: Callable[[Mapping[str, Any]], Checked], *,
                   secret_labels: Optional[Mapping[str, str]] = None) -> Optional[tuple[Checked, Inherited]]:
        """Validate, defer, register the component and its env Secret; None when rehydrated (nothing to do).

        The caller registers its objects (parented to `self`, after `self.secret`) and then `_finish`es."""
        if rehydrated(self, token, name, opts):
            return None
        given: dict[str, Any] = dict(args or {})
        deferred = Deferred(WORKLOAD_FIELDS)
        with checking_args():  # validate before the first registration: bad args register nothing
            given["workload"] = defer_workload_outputs(given.get("workload"), deferred)
            checked = validate(given)
        if deferred:  # image / env / ... Outputs: validated when known, swapped into the children's inputs
            deferred.validate_with(given, validate)
        own, inherited = split_options(opts, deferred, protectable=False)
        pulumi.ComponentResource.__init__(self, token, name, None, own)
        self.secret: Optional[k8s.core.v1.Secret] = None
        if checked.secret_values:
            self.secret = env_secret(self, name, workload=checked.workload.name, namespace=checked.placement.namespace,
                                     values=checked.secret_values, inherited=inherited, labels=secret_labels)
        return checked, inherited

    def _jobset(self, name: str, checked: Checked, inherited: Inherited) -> k8s.apiextensions.CustomResource:
        """The workload's JobSet, `{name}-jobset` (PathwaysWorkload and JaxWorkload alike): replaced on every spec or
        queue-name change (apply_rules.JOBSET_REPLACE_ON_CHANGES; never protected), and with the pools it runs on."""
        jobset = checked.objects.primary
        return k8s.apiextensions.CustomResource(
            f"{name}-jobset",
            api_version=jobset["apiVersion"],
            kind=jobset["kind"],
            metadata=jobset["metadata"],
            spec=jobset["spec"],
            opts=inherited.child(self, after=self._after_secret, replaced=True,
                                 **child_options("jobset", False), replace_on_changes=list(JOBSET_REPLACE_ON_CHANGES),
                                 delete_before_replace=True),
        )

    @property
    def _after_secret(self) -> list[pulumi.Resource]:
        return [self.secret] if self.secret is not None else []

    @staticmethod
    def _known(primary: pulumi.Resource, value: T) -> pulumi.Output[T]:
        """A plain output value, tied to the object it describes."""
        return primary.urn.apply(lambda _: value)

    def _finish(self, outputs: Mapping[str, Optional[pulumi.Output[Any]]]) -> None:
        """Register the component's outputs (by their camelCase names), last."""
        self.register_outputs(dict(outputs))


__all__ = ["Checked", "WorkloadComponent"]

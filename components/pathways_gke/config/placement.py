"""Where a workload runs (namespace, pools, TPU shape, capacity, queue): the one model the builders, the checks and
the three workload components read. It is built from the stack (`Placement.of`, `Placement.for_pool`) or from a
component's args (`placement_problems`, validated with the same catalog and messages as the stack config), and
`args()` turns it back into those args: the cluster's `tpuPools` output is one `args()` per TPU pool group, so a
platform program passes it to a workload component unchanged. Its fields, written once here, are the components'
flat placement args (args_types.py is generated from this model by `python -m pathways_gke.argsgen`)."""

from __future__ import annotations

from enum import Enum
from functools import cached_property
from typing import Any, Mapping, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..capacity import Capacity
from ..catalog import CatalogError, SliceShape, parse_shorthand, resolve
from .base import fail, problems_from
from ..naming import LOCAL_QUEUE_NAME, workload_policy_name
from .model import StackConfig
from .tpu import TpuPoolConfig
from .types import CpuMachineType, KubernetesName, LabelValue, Namespace, NodePoolName
from .workloads import WorkloadBase
from ..errors import Problem

TPU_ONLY = ("tpu_topology", "tpu_machine_type", "slices", "tpu_group", "placement_policy", "fallback_groups")
"""Placement args that describe the TPU slices: without tpu_type there are none."""


class Placement(BaseModel):
    """Where a workload runs on an existing cluster: its namespace, the CPU pool, and the TPU slices it may use
    (none: the CPU pool, which only a JaxWorkload runs on)."""

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True, use_attribute_docstrings=True)

    tpu_type: Optional[str] = None
    """TPU generation of the slices: v4, v5e, v5p, v6e, tpu7x (or a shorthand such as v6e-16). Required by
    PathwaysWorkload and PathwaysServing; a JaxWorkload without it runs on the CPU pool."""
    tpu_topology: Optional[str] = None
    """Slice topology, e.g. 4x4 (implied by a shorthand tpu_type)."""
    slices: Optional[int] = Field(default=None, ge=1, le=256)
    """Number of slices (one node pool each) the workload may use; required with tpu_type."""
    tpu_machine_type: Optional[str] = None
    """Host machine type when several fit the topology (e.g. ct6e-standard-8t for one 8-chip 2x4 host)."""
    namespace: Namespace = "default"
    """Kubernetes namespace of the workload's objects. Default: "default"."""
    cpu_pool: NodePoolName = "cpu-np"
    """GKE node pool of the CPU pods: a Pathways head in modes default/headless, a CPU leader, client proxies,
    JAX processes without tpu_type. Default: "cpu-np"."""
    cpu_machine_type: Optional[CpuMachineType] = None
    """Machine type of the CPU pool (a CPU machine, e.g. n2-standard-64): a Pathways head, a CPU leader and each JAX
    process on the CPU pool are checked to fit one of its nodes (optional)."""
    tpu_group: Optional[LabelValue] = None
    """Value of the node label pathways-gke/tpu-group on the slices' nodes. A JaxWorkload on TPU requires it; a
    Pathways workload may omit it on clusters whose TPU pools were not created by pathways-gke (workers then select
    on accelerator and topology only)."""
    group_taint: bool = False
    """The slices carry the taint pathways-gke/tpu-group=<tpu_group>:NoSchedule, as the TPU pools a stack creates on
    an adopted cluster do (it keeps another scheduler's pods, such as XPK's queue's, off them): the pods tolerate
    it. Needs tpu_group. Default: false."""
    capacity: Capacity = "on-demand"
    """How the slices are provisioned: adds the matching worker tolerations and node selectors. Default:
    "on-demand"."""
    placement_policy: Optional[LabelValue] = None
    """tpu7x multi-host workload-policy name (node label cloud.google.com/placement-policy-name)."""
    queue_name: Optional[KubernetesName] = None
    """Kueue LocalQueue; sets kueue.x-k8s.io/queue-name on the JobSet or LeaderWorkerSet."""
    fallback_groups: Optional[list[LabelValue]] = None
    """Ordered fallback: the TPU pool groups Kueue may admit the workload to, first choice first (instead of
    tpu_group). The workers select the shape only (accelerator, topology): Kueue injects the admitted flavor's node
    labels and tolerations. Needs queue_name; capacity stays unset (each group has its own)."""
    dynamic_slice: Optional[bool] = None
    """true: tpu7x dynamic slicing; `slices` slices of `tpu_topology` are formed by GKE's slice controller from
    reserved 4x4x4 sub-blocks, and the workers carry the slice-topology annotations instead of a topology node
    selector and of a one-slice-per-node-pool placement (needs queue_name: Kueue admits the slice)."""

    @model_validator(mode="after")
    def _shape(self) -> "Placement":
        if self.tpu_type is None:
            for field in TPU_ONLY:
                if getattr(self, field) is not None:
                    raise fail("tpu", "describes TPU slices, but tpu_type is not set: give tpu_type too, or remove "
                               "it to run on the CPU pool", field=field)
            if self.dynamic_slice:
                raise fail("tpu", "describes TPU slices, but tpu_type is not set: give tpu_type tpu7x too, or remove "
                           "it to run on the CPU pool", field="dynamic_slice")
            if self.group_taint:
                raise fail("tpu", "describes TPU slices, but tpu_type is not set: give tpu_type too, or remove it to "
                           "run on the CPU pool", field="group_taint")
            if self.capacity != "on-demand":  # how slices are provisioned: the CPU pool has none to apply it to
                raise fail("tpu", "describes how the TPU slices are provisioned, but tpu_type is not set: the CPU "
                           "pool has no slices; remove it (or give tpu_type)", field="capacity")
            return self
        if self.slices is None:
            raise fail("tpu", "is required with tpu_type: the number of slices the workload may use", field="slices")
        if self.group_taint and self.tpu_group is None:
            raise fail("tpu", "names the taint pathways-gke/tpu-group=<tpu_group>, so it needs tpu_group",
                       field="group_taint")
        if self.fallback_groups is not None:
            for other, wrong in (("tpu_group", self.tpu_group is not None),
                                 ("capacity", self.capacity != "on-demand"),
                                 ("placement_policy", self.placement_policy is not None)):
                if wrong:
                    raise fail("tpu", f"cannot be used with {other}, which selects one group or capacity: with "
                               "fallback_groups the workers select the shape only and Kueue injects the admitted "
                               f"group's labels and tolerations; remove {other}", field="fallback_groups")
            if self.dynamic_slice:
                raise fail("tpu", "cannot be used with dynamic_slice: a dynamic slice is formed by GKE's slice "
                           "controller on one group's sub-blocks, while fallback workers select a shape any listed "
                           "group may admit; give tpu_group instead", field="fallback_groups")
            if self.queue_name is None:
                raise fail("tpu", "is required with fallback_groups: the fallback order is the Kueue ClusterQueue's "
                           "flavor order, so the workload must be queued", field="queue_name")
        self.shape  # noqa: B018 - raises a field-named error when the catalog rejects the combination
        if self.dynamic_slice and (self.shape is None or self.shape.generation != "tpu7x"
                                   or self.queue_name is None or self.placement_policy is not None):
            raise fail("tpu", "is a tpu7x feature admitted through Kueue: it needs tpu_type tpu7x and queue_name, "
                       "and no placement_policy (the slice controller, not a workload policy, joins the sub-blocks)",
                       field="dynamic_slice")
        return self

    @classmethod
    def of(cls, stack: StackConfig, workload: WorkloadBase) -> "Placement":
        """Where a workload of a validated stack runs: its TPU pool group, its ordered fallback groups, or the CPU
        pool when it names none."""
        if workload.tpu_pools:
            return cls.for_fallback(stack, [stack.pool(name) for name in workload.tpu_pools])
        pool = stack.pool(workload.tpu_pool) if workload.tpu_pool else None
        placement = cls.for_pool(stack, pool)
        dynamic = workload.dynamic_slice
        # (the slice's shape was checked against tpu7x when the workload parsed; another generation's group with
        # dynamicSlicing is refused at tpuPools[i].dynamicSlicing)
        if pool is not None and pool.dynamic_slicing and dynamic is not None and pool.type == "tpu7x":
            # the workload's own slice, formed from the group's sub-blocks (no workload-policy node label: the
            # sub-blocks' policy is PROVISION_ONLY and the slice controller, not a policy, joins them)
            values = {**{k: getattr(placement, k) for k in cls.model_fields}, "tpu_topology": dynamic.topology, "slices": dynamic.count,
                      "tpu_machine_type": pool.shape.machine_type, "placement_policy": None, "dynamic_slice": True}
            return cls.model_construct(**values)
        return placement

    @classmethod
    def for_fallback(cls, stack: StackConfig, pools: list[Optional[TpuPoolConfig]]) -> "Placement":
        """An ordered fallback over pool groups of one shape (config/fallback.py checks that they are): the first
        group's shape, the fewest slices any group has (the workload must fit whichever Kueue admits it to), no
        group, capacity or placement-policy selector."""
        present = [pool for pool in pools if pool is not None]
        base = cls.for_pool(stack, present[0] if present else None)
        if not present:
            return base
        values = {**dict(base), "slices": min(pool.slices for pool in present), "tpu_group": None,
                  "group_taint": False,  # Kueue injects the admitted flavor's toleration of its group's taint
                  "capacity": "on-demand", "placement_policy": None,
                  "fallback_groups": [pool.name for pool in present]}
        return cls.model_construct(**values)

    @property
    def group_text(self) -> str:
        """The group(s) for messages: the one group, or the fallback list."""
        return self.tpu_group or " or ".join(self.fallback_groups or []) or "(none)"

    @property
    def fallback(self) -> bool:
        """Placed by Kueue on one of several groups: workers select the shape only."""
        return bool(self.fallback_groups)

    @classmethod
    def for_pool(cls, stack: StackConfig, pool: Optional[TpuPoolConfig]) -> "Placement":
        """A workload's placement on one TPU pool group of a validated stack (None: the CPU pool only).

        Built without re-validation: every value comes from models the stack has validated, and this is also what
        runs inside the stack's own cross-section checks. A component re-validates it when given as `args()`."""
        values: dict[str, Any] = {"namespace": stack.namespace, "cpu_pool": stack.cpu_pool.name,
                                  "cpu_machine_type": stack.cpu_pool.machine_type}
        if pool is not None:
            shape = pool.shape
            values.update(tpu_type=shape.generation, tpu_topology=shape.topology, tpu_machine_type=shape.machine_type,
                          slices=pool.slices, capacity=pool.capacity)
            if pool.create:  # existing slices (an adopted cluster's, XPK's) carry no group label and no taint
                values.update(tpu_group=pool.name, group_taint=not stack.cluster.create)
            if pool.dynamic_slicing:
                # sub-blocks provisioned, not joined: GKE's slice controller forms every slice, a 4x4x4 one too
                values["dynamic_slice"] = True
            elif shape.needs_workload_policy:
                values["placement_policy"] = workload_policy_name(stack.cluster.name, pool.name)
        if stack.kueue.enabled:
            values["queue_name"] = LOCAL_QUEUE_NAME
        return cls.model_construct(**values)

    def args(self) -> dict[str, Any]:
        """This placement as a workload component's placement args (unset ones left out, and group_taint unless
        the slices carry it: the cluster's `tpuPools` output stays as it was for every cluster that is not adopted)."""
        return self.model_dump(exclude_none=True, exclude=None if self.group_taint else {"group_taint"})

    @property
    def slice_count(self) -> int:
        """Slices the workload may use; 0 on the CPU pool."""
        return self.slices or 0

    @cached_property
    def shape(self) -> Optional[SliceShape]:
        """The resolved slice shape (catalog), or None on the CPU pool."""
        if self.tpu_type is None:
            return None
        try:
            generation, implied = parse_shorthand(self.tpu_type)
            topology = self.tpu_topology or implied
            if topology is None:
                raise CatalogError("topology", None, "is required (or use a shorthand tpu_type such as v6e-16)")
            if implied is not None and self.tpu_topology is not None and self.tpu_topology != implied:
                raise CatalogError("topology", self.tpu_topology,
                                   f"conflicts with tpu_type {self.tpu_type!r}, which means {implied}")
            return resolve(generation, topology, self.tpu_machine_type)
        except CatalogError as exc:
            field = {"type": "tpu_type", "topology": "tpu_topology", "machineType": "tpu_machine_type"}[exc.field]
            raise fail("catalog", str(exc), field=field) from None


def plain(value: Any) -> Any:
    """Cross-language inputs as the models read them: Enum members (what the provider maps schema enums to) become
    their values, tuples lists (ints arriving as floats, 3.0, are taken by pydantic's lax int)."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def placement_problems(args: Mapping[str, Any], own: tuple[str, ...], *,
                       tpu_required: bool) -> tuple[Optional[Placement], list[Problem]]:
    """A component's `args` but its `own` keys through the one model (so an unknown arg is reported too).

    `tpu_required`: the workload runs on TPU slices only (Pathways), so a missing tpu_type is reported there.
    """
    values = {key: plain(value) for key, value in args.items() if key not in own}
    problems: list[Problem] = []
    if tpu_required and values.get("tpu_type") is None:
        problems.append(Problem("tpu_type", "is required: a Pathways workload runs on TPU slices; give tpu_type (v4, "
                                "v5e, v5p, v6e, tpu7x or a shorthand such as v6e-16) and slices"))
        values = {key: value for key, value in values.items() if key not in TPU_ONLY}  # the rest is still checked
    try:
        placement = Placement.model_validate(values)
    except ValidationError as exc:
        return None, problems + problems_from(exc, Placement, [])
    return (None, problems) if problems else (placement, [])


def secret_values_from_args(workload: WorkloadBase, args: Mapping[str, Any],
                            problems: list[Problem]) -> dict[str, Any]:
    """The value of each `secretEnv` entry, by env name, from the `secrets` arg (a missing one is a problem): the
    same check for every workload component."""
    secrets = args.get("secrets") or {}
    values: dict[str, Any] = {}
    for env, secret_name in sorted(workload.secret_env.items()):
        if secret_name not in secrets:
            problems.append(Problem(f"workload.secretEnv.{env}", "names no entry of secrets; "
                                    + (f"allowed: {', '.join(sorted(secrets))}" if secrets else
                                       "pass secrets={name: pulumi secret}"), secret_name))
        else:
            values[env] = secrets[secret_name]
    return values

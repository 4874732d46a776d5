"""`pathways-gke:tpuPools`: one entry per TPU pool group (one node pool per slice)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from ..capacity import PROVISIONED_ON_DEMAND, Capacity
from ..catalog import GENERATIONS, CatalogError, SliceShape, chips_of, parse_shorthand, resolve
from ..errors import Problem
from ..gke_rules import tpu_disk_type_problem
from ..naming import tpu_node_pool_name
from .base import Model, fail
from .cluster import DiskType
from .types import DiskImage, NodeLabels, PoolGroupName, ProjectId, ReservationName, ReservationPartName, TpuZone

HostMaintenanceInterval = Literal["AS_NEEDED", "PERIODIC"]

DURATION = re.compile(r"^([0-9]+)(s|m|h|d)$")


class Reservation(Model):
    """A specific reservation, optionally a block / sub-block, possibly shared from another project."""

    name: ReservationPartName
    """Reservation name."""
    project: Optional[ProjectId] = None
    """Project that owns a shared reservation (a project id); default: the stack's project."""
    block: Optional[ReservationPartName] = None
    """Reservation block."""
    sub_block: Optional[ReservationPartName] = None
    """Sub-block of `block`."""

    @model_validator(mode="after")
    def _sub_block_needs_block(self) -> "Reservation":
        if self.sub_block and not self.block:
            raise ValueError("subBlock needs block")
        return self


def parse_duration_seconds(value: str) -> int:
    match = DURATION.match(value)
    if not match:
        raise ValueError(f"'{value}' is not a duration such as 3600s, 90m, 24h or 7d")
    return int(match[1]) * {"s": 1, "m": 60, "h": 3600, "d": 86400}[match[2]]


def _flex_start_duration(value: str) -> str:
    try:
        seconds = parse_duration_seconds(value)
    except ValueError as exc:
        raise fail("duration", str(exc).split("' ", 1)[1]) from None
    if not 600 <= seconds <= 7 * 86400:
        raise fail("duration", "must lie between 10m and 7d (the flex-start limit)")
    return value


MaxRunDuration = Annotated[str, AfterValidator(_flex_start_duration)]


class TpuPoolConfig(Model):
    """One TPU pool group: one GKE node pool per slice, named <cluster>-<group>-<i>."""

    name: PoolGroupName
    """Group name (node label pathways-gke/tpu-group): lower-case letters, digits and '-', at most 20 characters."""
    type: str
    """TPU generation (v4, v5e, v5p, v6e, tpu7x) or a shorthand that implies the topology, e.g. v6e-16."""
    topology: Optional[str] = None
    """Slice topology, e.g. 4x4 (v5e/v6e) or 2x2x2 (v4/v5p/tpu7x); implied by a shorthand type."""
    slices: int = Field(default=1, ge=1, le=256)
    """Number of slices, one node pool each (1-256). Default: 1."""
    create: bool = True
    """Create the group's node pools (true), or run on node pools an adopted cluster already has (false): the
    existing pools <cluster>-<name>-0 … <cluster>-<name>-<slices-1> (XPK names its slice pools <cluster>-np-<i>, so
    `name: np` names XPK's), read at preview and never created, changed or deleted; only with cluster.create: false.
    Default: true."""
    zone: TpuZone
    """Zone of the slices, in the cluster's region."""
    capacity: Capacity = "on-demand"
    """How the slices are obtained. Default: "on-demand"."""
    reservation: Optional[Union[ReservationName, Reservation]] = None
    """The reservation to consume (capacity reservation only)."""  # NAME is short for {name: NAME}
    reservations: Optional[list[Union[ReservationName, Reservation]]] = None
    """A reservation per slice (capacity reservation only; instead of `reservation`): one entry that every slice
    consumes, or one entry per slice, slice i consuming entry i (each a name, or {name, project, block, subBlock})."""
    max_run_duration: Optional[MaxRunDuration] = None
    """flex-start only: maximum run time of a node, e.g. 24h (at most 7d)."""
    autoscaling: Optional[bool] = None
    """Scale each slice between 0 and its VM count (always on for flex-start and queued)."""
    machine_type: Optional[str] = None
    """TPU machine type; default: the catalog's machine for the type and topology."""
    network_profile: Optional[bool] = None
    """Use the accelerator network profile (v6e and tpu7x)."""
    dynamic_slicing: bool = False
    """Ironwood dynamic slicing (docs/ironwood.md): the group's node pools are reserved 4x4x4 sub-blocks (topology
    4x4x4, capacity reservation, Kueue on, slices = sub-blocks) and GKE's slice controller forms each workload's
    slice (workloads[].dynamicSlice) from them. Default: false."""
    numa_aware: bool = False
    """tpu7x only: NUMA-aware kubelet on this group's hosts (static CPU manager, restricted topology manager,
    Static memory manager), so a pod's CPUs, memory and chips stay on one of the VM's two NUMA nodes. Default:
    false."""
    disk_size_gb: Optional[int] = Field(default=None, ge=10, le=65536)
    """Boot disk size in GB (10-65536); GKE's default when unset."""
    disk_type: Optional[DiskType] = None
    """Boot disk type; GKE's default when unset. v6e and tpu7x hosts take hyperdisk-balanced, v4/v5e/v5p pd-balanced."""
    image_streaming: bool = True
    """GKE image streaming (GCFS). Default: true."""
    image_cache_disk: Optional[DiskImage] = None
    """Pinned disk image (projects/P/global/images/NAME) attached as a container-image-cache secondary boot disk."""
    auto_upgrade: bool = True
    """GKE node auto-upgrade. Default: true."""
    max_pods_per_node: Optional[int] = Field(default=None, ge=8, le=256)
    """Maximum pods per node (8-256); GKE's default when unset."""
    host_maintenance_interval: HostMaintenanceInterval = "AS_NEEDED"
    """Host maintenance interval of the TPU VMs. Default: "AS_NEEDED"."""
    protect: Optional[bool] = None
    """Pulumi `protect` on this group's node pools; default: cluster.protect."""
    labels: NodeLabels = Field(default_factory=dict)
    """Extra Kubernetes node labels (values may be Outputs)."""

    @model_validator(mode="before")
    @classmethod
    def _expand_shorthand(cls, data: Any) -> Any:
        """Accept `type: v6e-16` (and `v5litepod-16`) and fill in the topology it implies."""
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            return data
        try:
            generation, topology = parse_shorthand(data["type"])
        except CatalogError:
            return data  # the `type` field validator reports it at tpuPools[i].type
        data = dict(data)
        given = data.get("topology")
        if topology is not None and given is not None and given != topology:
            gen = GENERATIONS[generation]
            if given not in gen.topologies or chips_of(given) != chips_of(topology):
                raise fail("tpu_type", f"'{given}' conflicts with type '{data['type']}', which means "
                           f"topology {topology}; drop one of them", field="topology")
            topology = given
        data["type"] = generation
        if topology is not None:
            data["topology"] = topology
        return data

    @field_validator("type")
    @classmethod
    def _type(cls, value: str) -> str:
        try:
            parse_shorthand(value)
        except CatalogError as exc:
            raise fail("tpu_type", str(exc)) from None
        return value

    @field_validator("topology")
    @classmethod
    def _topology(cls, value: Optional[str], info: ValidationInfo) -> Optional[str]:
        generation = info.data.get("type")
        if value is None or generation not in GENERATIONS:
            return value
        try:
            resolve(generation, value)
        except CatalogError as exc:
            raise fail("topology", str(exc)) from None
        return value

    @field_validator("machine_type")
    @classmethod
    def _machine_type(cls, value: Optional[str], info: ValidationInfo) -> Optional[str]:
        generation, topology = info.data.get("type"), info.data.get("topology")
        if value is None or generation not in GENERATIONS or topology is None:
            return value
        try:
            resolve(generation, topology, value)
        except CatalogError as exc:
            raise fail("machine_type", str(exc)) from None
        return value

    @property
    def shape(self) -> SliceShape:
        return resolve(self.type, self.topology or "", self.machine_type)

    @property
    def scaled(self) -> bool:
        """Autoscaled pools (0..VMs) — flex-start and queued always are."""
        if self.capacity in PROVISIONED_ON_DEMAND:
            return True
        return bool(self.autoscaling)

    @property
    def network_profile_on(self) -> bool:
        """The accelerator network profile: as asked, else the catalog's default (v6e on, as XPK does)."""
        if self.network_profile is not None:
            return self.network_profile
        return GENERATIONS[self.type].network_profile

    @property
    def flex_start(self) -> bool:
        """flex-start capacity, and queued provisioning (GKE's current recipe pairs the two)."""
        return self.capacity in PROVISIONED_ON_DEMAND

    @property
    def reservation_spec(self) -> Optional[Reservation]:
        """The reservation of slice 0 (every slice's, unless `reservations` gives one per slice)."""
        return self.reservation_for(0)

    @property
    def reservation_specs(self) -> list[Reservation]:
        """Each distinct reservation the group consumes, in slice order (one for `reservation`)."""
        entries = self.reservations if self.reservations else ([self.reservation] if self.reservation else [])
        return [Reservation(name=e) if isinstance(e, str) else e for e in entries]

    def reservation_for(self, index: int) -> Optional[Reservation]:
        """The reservation slice `index` consumes: entry i of a per-slice list, else the one reservation."""
        specs = self.reservation_specs
        if not specs:
            return None
        return specs[index] if len(specs) > 1 else specs[0]

    def node_pool_name(self, cluster: str, index: int) -> str:
        return tpu_node_pool_name(cluster, self.name, index)


def pool_problems(pool: TpuPoolConfig, path: str) -> list[Problem]:
    """Capacity and shape rules of GKE TPU node pools (https://cloud.google.com/kubernetes-engine/docs/concepts/tpus),
    each naming the field at fault."""
    out: list[Problem] = []
    gen = GENERATIONS[pool.type]
    at = lambda field: f"{path}.{field}"  # noqa: E731
    if pool.topology is None:
        out.append(Problem(at("topology"), f"is required for type {pool.type} (allowed: "
                           f"{', '.join(gen.topologies[:6])}, ...), or use a shorthand type such as {pool.type}-16"))
        return out
    disk_problem = tpu_disk_type_problem(pool.type, pool.disk_type)
    if disk_problem:
        out.append(Problem(at("diskType"), disk_problem, pool.disk_type))
    out += reservations_problems(pool, at)
    if pool.capacity == "reservation" and pool.reservation is None and not pool.reservations:
        out.append(Problem(at("reservation"), "is required with capacity 'reservation': give the reservation "
                           "name, or {name, project, block, subBlock} (or `reservations`, one per slice)"))
    if pool.capacity != "reservation" and pool.reservation is not None:
        out.append(Problem(at("reservation"), f"cannot be used with capacity '{pool.capacity}'; only capacity "
                           "'reservation' consumes a reservation (spot, flex-start and queued need NO_RESERVATION)",
                           pool.reservation if isinstance(pool.reservation, str) else pool.reservation.name))
    if pool.capacity in PROVISIONED_ON_DEMAND and pool.autoscaling is False:
        out.append(Problem(at("autoscaling"), f"is not allowed with capacity '{pool.capacity}': such pools have "
                           "no fixed size; GKE provisions the whole slice from 0 nodes", False))
    if pool.flex_start and not gen.flex_start:
        out.append(Problem(at("capacity"), f"is not available for {gen.name}; flex-start TPUs: "
                           + ", ".join(g.name for g in GENERATIONS.values() if g.flex_start), pool.capacity))
    if pool.max_run_duration is not None and pool.capacity != "flex-start":
        out.append(Problem(at("maxRunDuration"), f"applies to capacity 'flex-start' only, not '{pool.capacity}'",
                           pool.max_run_duration))
    if pool.network_profile and gen.name not in ("v6e", "tpu7x"):
        out.append(Problem(at("networkProfile"), f"the accelerator network profile exists on v6e and tpu7x only, "
                           f"not {gen.name}", True))
    return out


def reservations_problems(pool: TpuPoolConfig, at: Any) -> list[Problem]:
    """`reservations`: exclusive with `reservation`, capacity reservation only, 1 entry or one per slice (XPK 1.16
    core/nodepool.py accepts a reservation count of 1 or the number of new pools, pool i taking entry i)."""
    if pool.reservations is None:
        return []
    count = len(pool.reservations)
    if pool.reservation is not None:
        return [Problem(at("reservations"), "cannot be used with `reservation`: give one reservation for every "
                        "slice (`reservation`) or a list (`reservations`), not both", f"{count} entries")]
    if pool.capacity != "reservation":
        return [Problem(at("reservations"), f"cannot be used with capacity '{pool.capacity}'; only capacity "
                        "'reservation' consumes a reservation", f"{count} entries")]
    if count not in (1, pool.slices):
        return [Problem(at("reservations"), f"has {count} entries for {pool.slices} slice(s); allowed: 1 (every "
                        f"slice consumes it) or {pool.slices} (slice i consumes entry i)", f"{count} entries")]
    return []

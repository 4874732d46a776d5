"""The TPU catalog as data, and the slice shapes derived from it.

One table (`GENERATIONS`) decides every per-accelerator fact: machine types and chips
per VM, the GKE accelerator label, allowed topologies, the Pathways instance key and
capacity-mode support. Everything else (node-pool specs, JobSet workers, Kueue quotas)
reads `SliceShape`s resolved from it. Sources: https://cloud.google.com/kubernetes-engine/docs/concepts/tpus,
the google/pathways-job v0.1.4 topology lists and XPK's core/system_characteristics.py (machine types).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce
from typing import Optional

def chips_of(topology: str) -> int:
    return reduce(lambda a, b: a * b, (int(d) for d in topology.split("x")), 1)


def cubes_of(topology: str) -> int:
    """How many 4x4x4 cubes a cube-built 3-D topology is (`16x24x32` -> 192)."""
    return reduce(lambda a, b: a * b, (int(d) // 4 for d in topology.split("x")), 1)


# --- topology lists (OP v0.1.4, sorted by chip count) --------------------------------

_TOPOLOGIES_2D = ("1x1", "2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16")

_TOPOLOGIES_V4 = (
    "2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x8", "4x4x16", "4x8x8", "8x8x8",
    "8x8x12", "4x16x16", "8x8x16", "8x16x16",
)

_TOPOLOGIES_V5P = (
    "2x2x1", "2x2x2", "2x2x4", "2x4x4", "4x4x4", "4x4x8", "4x4x12", "4x8x8", "4x4x20",
    "4x8x12", "4x4x28", "8x8x8", "4x12x12", "4x8x20", "4x4x44", "8x8x12", "4x4x52",
    "4x8x28", "4x12x20", "8x8x16", "4x4x68", "8x12x12", "4x4x76", "8x8x20", "4x12x28",
    "4x8x44", "4x4x92", "8x12x16", "4x20x20", "4x8x52", "12x12x12", "8x8x28", "4x4x116",
    "8x12x20", "4x4x124", "8x16x16", "4x12x44", "4x8x68", "4x20x28", "12x12x16",
    "4x4x148", "4x8x76", "4x12x52", "8x16x20", "4x4x164", "8x12x28", "4x4x172", "8x8x44",
    "12x12x20", "4x8x92", "4x4x188", "12x16x16", "4x28x28", "8x20x20", "4x12x68",
    "8x8x52", "4x4x212", "12x12x24", "4x20x44", "8x16x28", "4x12x76", "4x8x116",
    "4x4x236", "12x16x20", "4x4x244", "4x8x124", "12x12x28", "16x16x16", "4x20x52",
    "8x12x44", "8x8x68", "4x12x92", "8x20x28", "12x16x24", "4x8x148", "12x20x20",
    "8x8x76", "4x28x44", "8x12x52", "16x16x20", "12x12x36", "4x8x164", "12x16x28",
    "4x20x68", "4x8x172", "4x12x116", "8x16x44", "12x20x24", "4x28x52", "8x8x92",
    "4x12x124", "4x8x188", "4x20x76", "16x16x24", "12x24x24", "16x20x28",
)



@dataclass(frozen=True)
class CubeRule:
    """A 3-D torus generation's rule: slices are the base shapes or built of 4x4x4 cubes.

    Both peers state it the same way for tpu7x-standard-4t: the base shapes 2x2x1, 2x2x2, 2x2x4, 2x4x4, and
    every AxBxC with A <= B <= C, each a multiple of 4, of at most `max_cubes` cubes of 4x4x4. Sources:
    XPK 1.16.0 (PyPI) xpk/core/system_characteristics.py `generate_tpu_topologies(max_cubes=144)` for
    tpu7x-standard-4t (the same file as XPK main 367c838, last changed in 4f782c32, 2026-03-16) and Cluster Toolkit
    pkg/config/hardware.go `Validate3DTopology` with `tpu3DConstraintsMap["tpu7x"] = {maxCubes: 144}` (commit
    00774fd4 / develop 1047080375, 2026-06-25). XPK also caps every side at 256 (its generator's range); Cluster
    Toolkit has no such cap, so a side above 256 is a shape only one peer accepts, and we refuse it.
    """

    max_cubes: int
    max_side: int = 256
    base_shapes: tuple[str, ...] = ("2x2x1", "2x2x2", "2x2x4", "2x4x4")

    def topologies(self) -> tuple[str, ...]:
        """Every shape the rule accepts: the base shapes, then the cube-built ones (A <= B <= C)."""
        out = list(self.base_shapes)
        sides = range(4, self.max_side + 1, 4)
        for a in sides:
            for b in (s for s in sides if s >= a):
                for c in (s for s in sides if s >= b):
                    if cubes_of(f"{a}x{b}x{c}") <= self.max_cubes:
                        out.append(f"{a}x{b}x{c}")
        return tuple(out)

    def problem(self, topology: str) -> Optional[str]:
        """Why `topology` breaks the rule (None when it is accepted)."""
        if topology in self.base_shapes:
            return None
        if not re.fullmatch(r"[1-9][0-9]*x[1-9][0-9]*x[1-9][0-9]*", topology):
            return "is not an AxBxC topology"
        sides = [int(d) for d in topology.split("x")]
        if any(side % 4 for side in sides):
            return (f"is neither a base shape ({', '.join(self.base_shapes)}) nor built of 4x4x4 cubes: every "
                    "side must be a multiple of 4")
        if sides != sorted(sides):
            ordered = "x".join(str(s) for s in sorted(sides))
            return f"must be written with non-decreasing sides (A <= B <= C): {ordered}"
        if max(sides) > self.max_side:
            return f"has a side of {max(sides)}; the longest side allowed is {self.max_side}"
        cubes = cubes_of(topology)
        if cubes > self.max_cubes:
            return f"is {cubes} cubes of 4x4x4; the limit is {self.max_cubes} cubes ({self.max_cubes * 64} chips)"
        return None

    def describe(self) -> str:
        return (f"{', '.join(self.base_shapes)}, or AxBxC with A <= B <= C multiples of 4 (each <= {self.max_side}) "
                f"of at most {self.max_cubes} cubes of 4x4x4, e.g. 4x4x4, 4x4x16, 8x8x32")


# tpu7x-standard-4t (XPK 1.16.0 `max_cubes=144`, Cluster Toolkit `"tpu7x": {maxCubes: 144}`): 432 shapes.
TPU7X_CUBE_RULE = CubeRule(max_cubes=144)
_TOPOLOGIES_TPU7X = TPU7X_CUBE_RULE.topologies()


@dataclass(frozen=True)
class MachineType:
    name: str
    chips_per_vm: int
    topologies: tuple[str, ...]
    instance_key: str  # Pathways --instance_type prefix for this host shape
    cube_rule: Optional[CubeRule] = None  # the rule `topologies` was built from, when there is one


@dataclass(frozen=True)
class Generation:
    name: str  # our config name: v4 | v5e | v5p | v6e | tpu7x
    aliases: tuple[str, ...]  # prefixes users type in shorthand ("v5litepod-16")
    accelerator_label: str  # cloud.google.com/gke-tpu-accelerator
    dims: int  # 2 or 3
    cores_per_chip: int  # shorthand suffix counts TensorCores for v4/v5p/tpu7x
    machine_types: tuple[MachineType, ...]
    flex_start: bool  # DWS flex-start supported (not v3/v4)
    workload_policy: bool  # multi-host pools need a HIGH_THROUGHPUT workload policy
    network_profile: bool  # accelerator network profile "auto" (DRANET) by default
    min_gke_version: str | None = None

    @property
    def topologies(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for machine in self.machine_types:
            for topo in machine.topologies:
                seen.setdefault(topo, None)
        return tuple(sorted(seen, key=lambda t: (chips_of(t), t)))


GENERATIONS: dict[str, Generation] = {
    g.name: g
    for g in (
        Generation(
            name="v4", aliases=("v4",), accelerator_label="tpu-v4-podslice", dims=3,
            cores_per_chip=2, flex_start=False, workload_policy=False, network_profile=False,
            machine_types=(MachineType("ct4p-hightpu-4t", 4, _TOPOLOGIES_V4, "tpuv4"),),
        ),
        Generation(
            name="v5e", aliases=("v5e", "v5litepod"), accelerator_label="tpu-v5-lite-podslice",
            dims=2, cores_per_chip=1, flex_start=True, workload_policy=False, network_profile=False,
            machine_types=(
                MachineType("ct5lp-hightpu-1t", 1, ("1x1",), "tpuv5e"),
                MachineType("ct5lp-hightpu-4t", 4, _TOPOLOGIES_2D[1:], "tpuv5e"),
                MachineType("ct5lp-hightpu-8t", 8, ("2x4",), "tpuv5e1t"),
            ),
        ),
        Generation(
            name="v5p", aliases=("v5p",), accelerator_label="tpu-v5p-slice", dims=3,
            cores_per_chip=2, flex_start=True, workload_policy=False, network_profile=False,
            machine_types=(MachineType("ct5p-hightpu-4t", 4, _TOPOLOGIES_V5P, "tpuv5"),),
        ),
        Generation(
            name="v6e", aliases=("v6e",), accelerator_label="tpu-v6e-slice", dims=2,
            cores_per_chip=1, flex_start=True, workload_policy=False, network_profile=True,
            machine_types=(
                MachineType("ct6e-standard-1t", 1, ("1x1",), "tpuv6e"),
                MachineType("ct6e-standard-4t", 4, _TOPOLOGIES_2D[1:], "tpuv6e"),
                MachineType("ct6e-standard-8t", 8, ("2x4",), "tpuv6e1t"),
            ),
        ),
        Generation(
            name="tpu7x", aliases=("tpu7x", "v7x"), accelerator_label="tpu7x", dims=3,
            cores_per_chip=2, flex_start=True, workload_policy=True, network_profile=False,
            min_gke_version="1.34.0-gke.2201000",
            machine_types=(
                MachineType("tpu7x-standard-1t", 1, ("1x1x1",), "tpu7x"),
                MachineType("tpu7x-standard-4t", 4, _TOPOLOGIES_TPU7X, "tpu7x", cube_rule=TPU7X_CUBE_RULE),
            ),
        ),
    )
}

TPU_TYPES = tuple(GENERATIONS)

# GKE version floors beyond a generation's own `min_gke_version` (the rulebook, gke_rules.py, checks them).
# Accelerator network profile: Cluster Toolkit modules/compute/gke-node-pool/main.tf preconditions.
ACCELERATOR_NETWORK_PROFILE_MIN_GKE = "1.34.1-gke.1829001"
# Flex-start TPUs: https://cloud.google.com/kubernetes-engine/docs/how-to/tpu-flex-start
FLEX_START_TPU_MIN_GKE = "1.33.0-gke.1712000"


@dataclass(frozen=True)
class SliceShape:
    """Everything a node pool or a JobSet needs to know about one slice."""

    generation: str
    topology: str
    machine_type: str
    chips_per_vm: int
    vms_per_slice: int
    accelerator_label: str
    instance_key: str

    @property
    def chips(self) -> int:
        return chips_of(self.topology)

    @property
    def multi_host(self) -> bool:
        return self.vms_per_slice > 1

    @property
    def instance_type(self) -> str:
        """Pathways resource-manager `--instance_type` value, e.g. `tpuv6e:4x4`."""
        return f"{self.instance_key}:{self.topology}"

    @property
    def needs_workload_policy(self) -> bool:
        return self.multi_host and GENERATIONS[self.generation].workload_policy

    @property
    def shorthand(self) -> str:
        """The accelerator name users know (`v6e-16`, `v5p-16` for 2x2x2)."""
        gen = GENERATIONS[self.generation]
        return f"{gen.name}-{self.chips * gen.cores_per_chip}"


class CatalogError(ValueError):
    """A look-up that failed; `field` says which config field is wrong."""

    def __init__(self, field: str, value: object, message: str):
        self.field = field
        self.value = value
        super().__init__(message)


def machine_types_for(generation: str, topology: str) -> tuple[MachineType, ...]:
    return tuple(m for m in GENERATIONS[generation].machine_types if topology in m.topologies)


def default_machine_type(generation: str, topology: str) -> MachineType:
    """Pick the host shape for a topology: 1-chip hosts for 1x1, else the 4-chip host.

    8-chip hosts (ct6e-standard-8t, ct5lp-hightpu-8t) are opt-in through `machineType`:
    XPK and most users run 2x4 as two 4-chip hosts.
    """
    candidates = machine_types_for(generation, topology)
    for machine in candidates:
        if machine.chips_per_vm == 4:
            return machine
    return candidates[0]


def topology_problem(gen: Generation, topology: str) -> str:
    """Why `topology` is not one of `gen`'s shapes: by the machine type's rule where it has one."""
    ruled = [m for m in gen.machine_types if m.cube_rule is not None]
    if not ruled:
        return f"is not a {gen.name} topology; allowed: {', '.join(gen.topologies)}"
    reasons = [f"on {m.name} it {m.cube_rule.problem(topology)}; allowed there: {m.cube_rule.describe()}"
               for m in ruled if m.cube_rule is not None]
    others = [f"{m.name} takes {', '.join(m.topologies)}" for m in gen.machine_types if m.cube_rule is None]
    return f"is not a {gen.name} topology: " + "; ".join(reasons + others)


def resolve(generation: str, topology: str, machine_type: str | None = None) -> SliceShape:
    """Resolve (type, topology[, machine type]) to a slice shape or raise CatalogError."""
    if generation not in GENERATIONS:
        raise CatalogError("type", generation, f"is not a TPU type; allowed: {', '.join(TPU_TYPES)}")
    gen = GENERATIONS[generation]
    if topology not in gen.topologies:
        raise CatalogError("topology", topology, topology_problem(gen, topology))
    if machine_type is None:
        machine = default_machine_type(generation, topology)
    else:
        by_name = {m.name: m for m in gen.machine_types}
        if machine_type not in by_name:
            raise CatalogError(
                "machineType", machine_type,
                f"is not a {gen.name} machine type; allowed: {', '.join(by_name)}",
            )
        machine = by_name[machine_type]
        if topology not in machine.topologies:
            fits = ", ".join(m.name for m in machine_types_for(generation, topology))
            raise CatalogError(
                "machineType", machine_type,
                f"cannot host topology {topology}; allowed for {topology}: {fits}",
            )
    chips = chips_of(topology)
    vms = max(1, chips // machine.chips_per_vm)
    return SliceShape(
        generation=gen.name,
        topology=topology,
        machine_type=machine.name,
        chips_per_vm=min(machine.chips_per_vm, chips),
        vms_per_slice=vms,
        accelerator_label=gen.accelerator_label,
        instance_key=machine.instance_key,
    )


_SHORTHAND = re.compile(r"^(?P<prefix>[a-z0-9]+)-(?P<count>[0-9]+)$")


def generation_for_alias(prefix: str) -> Generation | None:
    for gen in GENERATIONS.values():
        if prefix in gen.aliases:
            return gen
    return None


def parse_shorthand(value: str) -> tuple[str, str | None]:
    """Split `v6e-16` into (`v6e`, `4x4`); a bare `v6e` gives (`v6e`, None).

    The number counts chips for v5e/v6e and TensorCores for v4/v5p/tpu7x (as in XPK's
    `--tpu-type` and Cloud TPU names). When several topologies have that many chips the
    most cube-like one is chosen (smallest longest side), e.g. `v5p-512` -> 4x8x8.
    """
    text = value.strip().lower()
    gen = generation_for_alias(text)
    if gen is not None:
        return gen.name, None
    match = _SHORTHAND.match(text)
    if not match or generation_for_alias(match["prefix"]) is None:
        raise CatalogError("type", value, f"is not a TPU type; allowed: {', '.join(TPU_TYPES)} "
                           "or a shorthand such as v6e-16, v5p-128")
    gen = generation_for_alias(match["prefix"])
    assert gen is not None
    count = int(match["count"])
    if count % gen.cores_per_chip:
        raise CatalogError("type", value, f"{gen.name} sizes count TensorCores "
                           f"({gen.cores_per_chip} per chip); the number must be even")
    chips = count // gen.cores_per_chip
    shapes = [t for t in gen.topologies if chips_of(t) == chips]
    if not shapes:
        sizes = sorted({chips_of(t) * gen.cores_per_chip for t in gen.topologies})
        shown = ", ".join(f"{gen.name}-{s}" for s in sizes[:12]) + (", ..." if len(sizes) > 12 else "")
        raise CatalogError("type", value, f"is not a {gen.name} size; allowed: {shown}"
                           + ("; or give the topology" if len(sizes) > 12 else ""))
    best = min(shapes, key=lambda t: (max(int(d) for d in t.split("x")), t))
    return gen.name, best


# --- CPU machines (head pool) ---------------------------------------------------------

_GB_PER_VCPU = {"standard": 4, "highmem": 8, "highcpu": 1}
_HIGHCPU_GB = {"c3": 2, "c3d": 2, "c4": 2, "n4": 2}
_CPU_FAMILIES = ("e2", "n1", "n2", "n2d", "n4", "c2", "c2d", "c3", "c3d", "c4", "c4d", "m1", "m3", "t2d")


# Compute Engine's machine families a head pool can run on (general-purpose, compute-, memory- and
# accelerator-optimized: https://cloud.google.com/compute/docs/machine-resource) and the grammar of their
# machine-type names: FAMILY-KIND-VCPUS[-lssd|-metal|-highlssd|-standardlssd], an accelerator-optimized
# FAMILY-{high,mega,ultra,edge}gpu-Ng, FAMILY-custom-VCPUS-MEMORY_MB[-ext] (N1's custom types have no family
# prefix: custom-VCPUS-MEMORY_MB), E2's shared-core custom e2-custom-{micro,small,medium}-MEMORY_MB, and the
# shared-core e2-micro/small/medium, f1-micro, g1-small.
CPU_MACHINE_FAMILIES = ("e2", "n1", "n2", "n2d", "n4", "n4a", "n4d", "c2", "c2d", "c3", "c3d", "c4", "c4a", "c4d",
                        "h3", "h4d", "m1", "m2", "m3", "m4", "t2a", "t2d", "x4", "z3")
ACCELERATOR_MACHINE_FAMILIES = ("a2", "a3", "a4", "a4x", "g2", "g4")
_CPU_MACHINE_TYPE = re.compile(
    r"^(?:custom-(?P<n1_vcpus>[1-9][0-9]*)-(?P<n1_memory>[1-9][0-9]*)(?P<n1_ext>-ext)?"
    r"|(?P<family>[a-z][a-z0-9]*)-(?:"
    r"(?P<kind>standard|highmem|highcpu|megamem|ultramem|hypermem)-(?P<vcpus>[1-9][0-9]*)"
    r"(?:-(?:lssd|metal|highlssd|standardlssd))?"
    r"|(?:high|mega|ultra|edge)gpu-[1-9][0-9]*g"
    r"|custom-(?P<shared>micro|small|medium)-(?P<shared_memory>[1-9][0-9]*)"
    r"|custom-(?P<custom>[1-9][0-9]*)-(?P<memory>[1-9][0-9]*)(?P<ext>-ext)?"
    r"|(?P<size>micro|small|medium)))$")

# Arm machine series: GKE taints every Arm node `kubernetes.io/arch=arm64:NoSchedule` and adds the matching
# toleration only to pods that select `kubernetes.io/arch: arm64` ("Prepare to deploy an Arm workload in a Standard
# cluster", https://cloud.google.com/kubernetes-engine/docs/how-to/prepare-arm-workloads-for-deployment, read
# 2026-11-27). Tau T2A (Ampere Altra) and C4A (Google Axion) are Arm ("General-purpose machine family",
# https://cloud.google.com/compute/docs/general-purpose-machines); N4A is Axion too (Google Cloud's N4A
# announcement as reported in the stored pages, read 2026-11-27; the machine-family page stored here predates it).
ARM_MACHINE_FAMILIES = ("t2a", "c4a", "n4a")
ARM_NODE_TAINT = "kubernetes.io/arch=arm64:NoSchedule"


@dataclass(frozen=True)
class CustomShapeRule:
    """Compute Engine's limits on one family's custom machine types. Source: Google's custom machine type helper
    samples (https://cloud.google.com/compute/docs/samples/compute-custom-machine-type-helper-class, the Go, Node.js
    and Python versions agree; they cite https://cloud.google.com/compute/docs/general-purpose-machines#custom_machine_types)
    and the Cloud Billing API's CustomMachineType ("Memory ... Must be an increment of 0.25 (256 MB)")."""

    family: str
    vcpus: Optional[tuple[int, ...]]  # allowed vCPU counts; None: not in a stored source (not checked)
    vcpus_text: str
    min_mb_per_vcpu: Optional[int]
    max_mb_per_vcpu: Optional[int]
    extended_max_mb: Optional[int]  # the most memory with -ext; None: no extended memory


def _even(low: int, high: int, step: int = 2) -> tuple[int, ...]:
    return tuple(range(low, high + 1, step))


CUSTOM_MEMORY_STEP_MB = 256
CUSTOM_SHAPE_RULES: dict[str, CustomShapeRule] = {r.family: r for r in (
    CustomShapeRule("n1", (1, *_even(2, 96)), "1 or an even number up to 96", 922, 6656, 624 * 1024),
    CustomShapeRule("n2", _even(2, 32) + _even(36, 128, 4), "an even number up to 32, then a multiple of 4 up to 128",
                    512, 8192, 624 * 1024),
    CustomShapeRule("n2d", (2, 4, 8, 16, 32, 48, 64, 80, 96), "2, 4, 8, 16, 32, 48, 64, 80 or 96", 512, 8192,
                    768 * 1024),
    CustomShapeRule("e2", _even(2, 32), "an even number from 2 to 32", 512, 8192, None),
    # N4 has custom machine types (the "Create a VM with a custom machine type" page: N4, N2, N2D, E2, N1), but
    # none of the stored sources gives its vCPU or memory limits: only the 256 MB memory step is checked.
    CustomShapeRule("n4", None, "not checked offline (no stored source gives N4's limits)", None, None, None),
)}
# E2 shared-core custom types: total memory bounds in MB, as the helper samples' E2Micro/Small/Medium limits read.
E2_SHARED_CUSTOM_MEMORY_MB = {"micro": (1024, 2048), "small": (2048, 4096), "medium": (4096, 8192)}
# Shared-core machines: the vCPU share a VM gets sustained, and its memory (GB) (Compute Engine's general-purpose
# machine family page: e2-micro 0.25 vCPU / 1 GB, e2-small 0.5 / 2, e2-medium 1 / 4; N1 shared-core f1-micro 0.2 /
# 0.6, g1-small 0.5 / 1.7). The catalog sizes them by that share: a burst is no capacity to plan a pod on.
SHARED_CORE = {"e2-micro": (0.25, 1.0), "e2-small": (0.5, 2.0), "e2-medium": (1.0, 4.0),
               "f1-micro": (0.2, 0.6), "g1-small": (0.5, 1.7)}
_SHARED_CORE_CUSTOM_VCPUS = {"micro": 0.25, "small": 0.5, "medium": 1.0}


def _custom_problem(family: str, vcpus: int, memory_mb: int, extended: bool) -> Optional[str]:
    """Why Compute Engine refuses FAMILY-custom-VCPUS-MEMORY[-ext], or None."""
    rule = CUSTOM_SHAPE_RULES.get(family)
    if rule is None:
        return (f"is a custom machine type of family '{family}', which has no custom shapes; custom machine types "
                f"exist for: {', '.join(CUSTOM_SHAPE_RULES)} (N1's are written custom-VCPUS-MEMORY_MB)")
    if rule.vcpus is not None and vcpus not in rule.vcpus:
        return f"has {vcpus} vCPUs; {family} custom machine types allow {rule.vcpus_text}"
    if memory_mb % CUSTOM_MEMORY_STEP_MB:
        return (f"has {memory_mb} MB of memory; custom machine memory must be a multiple of {CUSTOM_MEMORY_STEP_MB} MB "
                f"(e.g. {memory_mb // CUSTOM_MEMORY_STEP_MB * CUSTOM_MEMORY_STEP_MB or CUSTOM_MEMORY_STEP_MB})")
    if rule.min_mb_per_vcpu is not None and memory_mb < rule.min_mb_per_vcpu * vcpus:
        return (f"has {memory_mb} MB for {vcpus} vCPUs; {family} custom machine types need at least "
                f"{rule.min_mb_per_vcpu} MB per vCPU ({rule.min_mb_per_vcpu * vcpus} MB)")
    if rule.max_mb_per_vcpu is not None and memory_mb > rule.max_mb_per_vcpu * vcpus:
        if rule.extended_max_mb is None:
            return (f"has {memory_mb} MB for {vcpus} vCPUs; {family} custom machine types allow at most "
                    f"{rule.max_mb_per_vcpu} MB per vCPU ({rule.max_mb_per_vcpu * vcpus} MB) and has no extended memory")
        if not extended:
            return (f"has {memory_mb} MB for {vcpus} vCPUs, more than {rule.max_mb_per_vcpu} MB per vCPU "
                    f"({rule.max_mb_per_vcpu * vcpus} MB); more memory is extended memory: add -ext")
    if extended and rule.extended_max_mb is None and rule.vcpus is not None:
        return f"asks for extended memory (-ext), which {family} custom machine types do not have"
    if extended and rule.extended_max_mb is not None and memory_mb > rule.extended_max_mb:
        return (f"has {memory_mb} MB; {family} extended memory allows at most {rule.extended_max_mb} MB "
                f"({rule.extended_max_mb // 1024} GB) per VM")
    return None


def cpu_machine_type_problem(name: str) -> Optional[str]:
    """Why `name` is not a Compute Engine machine type a node pool can have, or None."""
    match = _CPU_MACHINE_TYPE.match(name)
    if not match:
        return ("is not a Compute Engine machine type: FAMILY-KIND-VCPUS such as n2-standard-64 (or "
                "FAMILY-custom-VCPUS-MEMORY_MB, e2-medium)")
    family = match["family"]
    if family is None:  # N1 custom
        return _custom_problem("n1", int(match["n1_vcpus"]), int(match["n1_memory"]), bool(match["n1_ext"]))
    if family not in CPU_MACHINE_FAMILIES + ACCELERATOR_MACHINE_FAMILIES + ("f1", "g1"):
        return (f"has machine family '{family}', which is not a Compute Engine machine family; allowed: "
                + ", ".join(CPU_MACHINE_FAMILIES + ACCELERATOR_MACHINE_FAMILIES))
    if match["size"] is not None and name not in SHARED_CORE:
        return "is not a machine type: the shared-core sizes are " + ", ".join(SHARED_CORE)
    if "gpu-" in name and family not in ACCELERATOR_MACHINE_FAMILIES:
        return f"is not a machine type: only the accelerator-optimized families ({', '.join(ACCELERATOR_MACHINE_FAMILIES)}) have GPU shapes"
    if match["shared"] is not None:
        if family != "e2":
            return "is not a machine type: only E2 has shared-core custom types (e2-custom-micro-MEMORY_MB, ...)"
        low, high = E2_SHARED_CUSTOM_MEMORY_MB[match["shared"]]
        memory = int(match["shared_memory"])
        if memory % CUSTOM_MEMORY_STEP_MB or not low <= memory <= high:
            return (f"has {memory} MB; e2-custom-{match['shared']} allows {low} to {high} MB in steps of "
                    f"{CUSTOM_MEMORY_STEP_MB} MB")
    if match["custom"] is not None:
        if family == "n1":
            return "is not a machine type: N1 custom types have no family prefix (custom-VCPUS-MEMORY_MB)"
        return _custom_problem(family, int(match["custom"]), int(match["memory"]), bool(match["ext"]))
    if family in ARM_MACHINE_FAMILIES:
        return (f"is an Arm machine ({family}); GKE taints every Arm node {ARM_NODE_TAINT} and nothing this stack "
                "runs on the CPU pool (the Pathways head, the JobSet/Kueue/LWS controllers) tolerates it or selects "
                "arm64, so no pod would ever be scheduled there; use an x86 family such as n2-standard-64")
    return None


@dataclass(frozen=True)
class CpuMachine:
    """vCPUs and memory of one machine type. GCE's machine-type tables say "GB" and mean GiB."""

    name: str
    vcpus: float
    memory_gib: float


def cpu_machine(name: str) -> CpuMachine | None:
    """vCPUs and memory of a CPU machine type: predefined standard/highmem/highcpu shapes, shared-core types (by
    their sustained vCPU share) and custom types (CPU and memory are in the name); None if the catalog cannot tell."""
    if name in SHARED_CORE:
        vcpus, memory = SHARED_CORE[name]
        return CpuMachine(name, vcpus, memory)
    custom = _CPU_MACHINE_TYPE.match(name)
    if custom and cpu_machine_type_problem(name) is None:
        if custom["n1_vcpus"]:
            return CpuMachine(name, int(custom["n1_vcpus"]), int(custom["n1_memory"]) / 1024)
        if custom["custom"]:
            return CpuMachine(name, int(custom["custom"]), int(custom["memory"]) / 1024)
        if custom["shared"]:
            return CpuMachine(name, _SHARED_CORE_CUSTOM_VCPUS[custom["shared"]], int(custom["shared_memory"]) / 1024)
    match = re.fullmatch(r"([a-z][a-z0-9]*)-(standard|highmem|highcpu)-([0-9]+)", name)
    if not match or match[1] not in _CPU_FAMILIES:
        return None
    family, kind, vcpus = match[1], match[2], int(match[3])
    per_vcpu: float = _HIGHCPU_GB.get(family, 1) if kind == "highcpu" else _GB_PER_VCPU[kind]
    if family == "n1" and kind == "standard":
        per_vcpu = 3.75
    if family == "n1" and kind == "highmem":
        per_vcpu = 6.5
    if family == "n1" and kind == "highcpu":
        per_vcpu = 0.9
    return CpuMachine(name, vcpus, vcpus * per_vcpu)


def cannot_size_reason(name: str) -> str:
    """Why the catalog has no size for `name` (so a pod placed on it cannot be shown to fit)."""
    return (f"has no size in the catalog (sized: predefined standard/highmem/highcpu of {', '.join(_CPU_FAMILIES)}, "
            f"the shared-core {', '.join(SHARED_CORE)}, and custom types, FAMILY-custom-VCPUS-MEMORY_MB), so the "
            "Pathways head cannot be shown to fit on it")


# vCPUs and memory of TPU hosts, for a head placed on one (GCE TPU machine-type tables:
# https://cloud.google.com/tpu/docs/v6e, /v5p, /v5e, /v4, /tpu7x).
TPU_HOSTS: dict[str, CpuMachine] = {m.name: m for m in (
    CpuMachine("ct4p-hightpu-4t", 240, 407),
    CpuMachine("ct5lp-hightpu-1t", 24, 48),
    CpuMachine("ct5lp-hightpu-4t", 112, 192),
    CpuMachine("ct5lp-hightpu-8t", 224, 384),
    CpuMachine("ct5p-hightpu-4t", 208, 448),
    CpuMachine("ct6e-standard-1t", 44, 176),
    CpuMachine("ct6e-standard-4t", 180, 720),
    CpuMachine("ct6e-standard-8t", 180, 1440),
    CpuMachine("tpu7x-standard-4t", 224, 960),
)}


# --- GKE Standard node allocatable ("Plan GKE Standard node sizes":
# https://cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes) -------------------------------
# (size of the band, fraction reserved) applied in order; the last band is open-ended.
CPU_RESERVATION_BANDS: tuple[tuple[Optional[int], Fraction], ...] = (
    (1, Fraction(6, 100)), (1, Fraction(1, 100)), (2, Fraction(5, 1000)), (None, Fraction(25, 10000)),
)
MEMORY_RESERVATION_BANDS_GIB: tuple[tuple[Optional[int], Fraction], ...] = (
    (4, Fraction(25, 100)), (4, Fraction(20, 100)), (8, Fraction(10, 100)), (112, Fraction(6, 100)),
    (None, Fraction(2, 100)),
)
SMALL_NODE_MEMORY_RESERVATION_MIB = 255  # machines with less than 1 GiB
EVICTION_THRESHOLD_MIB = 100


def _reserved(amount: Fraction, bands: tuple[tuple[Optional[int], Fraction], ...]) -> Fraction:
    total, left = Fraction(0), amount
    for size, rate in bands:
        part = left if size is None else min(left, Fraction(size))
        total += part * rate
        left -= part
        if left <= 0:
            break
    return total


@dataclass(frozen=True)
class Allocatable:
    millicores: int
    memory_mib: int

    @property
    def memory_bytes(self) -> int:
        return self.memory_mib * 2**20


def gke_allocatable(machine: CpuMachine) -> Allocatable:
    """Allocatable CPU (m) and memory (MiB) of one GKE Standard node of this machine type, rounded down."""
    cores = Fraction(machine.vcpus)
    cpu_m = (cores - _reserved(cores, CPU_RESERVATION_BANDS)) * 1000
    gib = Fraction(machine.memory_gib).limit_denominator(1000)
    if gib < 1:
        reserved_mib = Fraction(SMALL_NODE_MEMORY_RESERVATION_MIB)
    else:
        reserved_mib = _reserved(gib, MEMORY_RESERVATION_BANDS_GIB) * 1024
    mem_mib = gib * 1024 - reserved_mib - EVICTION_THRESHOLD_MIB
    return Allocatable(math.floor(cpu_m), math.floor(mem_mib))


def is_tpu_machine_type(name: str) -> bool:
    return any(name == m.name for g in GENERATIONS.values() for m in g.machine_types)


# Compute Engine's regional TPU chip quotas (regions.get `quotas[].metric`), per generation: (on-demand metric,
# preemptible metric). Source: the `Quota.metric` enum of the Compute Engine v1 discovery document
# (https://compute.googleapis.com/discovery/v1/apis/compute/v1/rest; also bundled in google-api-python-client):
# it names the v4 and v5e podslice metrics only. The other generations' TPU quotas live in the Cloud Quotas API
# (https://cloud.google.com/kubernetes-engine/docs/how-to/tpus#ensure-quota), so `preflight` reports them unknown.
COMPUTE_TPU_QUOTA_METRICS: dict[str, tuple[str, str]] = {
    "v4": ("TPU_PODSLICE_V4", "PREEMPTIBLE_TPU_PODSLICE_V4"),
    "v5e": ("TPU_LITE_PODSLICE_V5", "PREEMPTIBLE_TPU_LITE_PODSLICE_V5"),
}

"""The TPU catalog agrees with GKE's TPU tables (https://cloud.google.com/kubernetes-engine/docs/concepts/tpus)
and with what XPK 1.16.0 renders for the same shapes."""

import pytest

from pathways_gke.catalog import GENERATIONS, CatalogError, chips_of, parse_shorthand, resolve
from tests.support.stacks import parsed

ALL_SHAPES = [(g.name, t, m.name) for g in GENERATIONS.values() for m in g.machine_types for t in m.topologies]

# XPK 1.16.0 --dry-run and the GKE docs' v6e table: (type, topology) -> (machine type, VMs per slice)
REFERENCE_EXAMPLES = {
    ("v5e", "2x4"): ("ct5lp-hightpu-4t", 2),
    ("v5e", "4x4"): ("ct5lp-hightpu-4t", 4),
    ("v5p", "2x2x2"): ("ct5p-hightpu-4t", 2),
    ("v4", "2x2x2"): ("ct4p-hightpu-4t", 2),
    ("v6e", "1x1"): ("ct6e-standard-1t", 1),
    ("v6e", "2x2"): ("ct6e-standard-4t", 1),
    ("v6e", "2x4"): ("ct6e-standard-4t", 2),
    ("v6e", "4x4"): ("ct6e-standard-4t", 4),
    ("v6e", "4x8"): ("ct6e-standard-4t", 8),
    ("v6e", "8x8"): ("ct6e-standard-4t", 16),
    ("v6e", "8x16"): ("ct6e-standard-4t", 32),
    ("v6e", "16x16"): ("ct6e-standard-4t", 64),
    ("tpu7x", "2x2x1"): ("tpu7x-standard-4t", 1),
    ("tpu7x", "2x2x2"): ("tpu7x-standard-4t", 2),
    ("tpu7x", "4x4x8"): ("tpu7x-standard-4t", 32),
    ("tpu7x", "1x1x1"): ("tpu7x-standard-1t", 1),
}

# OP v0.1.4 per-machine-type list sizes; tpu7x-standard-4t is the peers' cube rule (tests/test_tpu7x_shapes.py)
TOPOLOGY_COUNTS = {"ct4p-hightpu-4t": 13, "ct5p-hightpu-4t": 96, "tpu7x-standard-4t": 432,
                   "ct6e-standard-4t": 7, "ct5lp-hightpu-4t": 7, "ct6e-standard-8t": 1, "ct5lp-hightpu-8t": 1}

ACCELERATOR_LABELS = {"v4": "tpu-v4-podslice", "v5e": "tpu-v5-lite-podslice", "v5p": "tpu-v5p-slice",
                      "v6e": "tpu-v6e-slice", "tpu7x": "tpu7x"}
INSTANCE_KEYS = {"ct4p-hightpu-4t": "tpuv4", "ct5lp-hightpu-4t": "tpuv5e", "ct5lp-hightpu-1t": "tpuv5e",
                 "ct5lp-hightpu-8t": "tpuv5e1t", "ct5p-hightpu-4t": "tpuv5", "ct6e-standard-1t": "tpuv6e",
                 "ct6e-standard-4t": "tpuv6e", "ct6e-standard-8t": "tpuv6e1t", "tpu7x-standard-4t": "tpu7x",
                 "tpu7x-standard-1t": "tpu7x"}


@pytest.mark.parametrize("generation,topology,machine", ALL_SHAPES)
def test_every_shape_fills_whole_hosts_with_the_reference_facts(generation, topology, machine):
    shape = resolve(generation, topology, machine)
    chips_per_vm = int(machine.rsplit("-", 1)[1].rstrip("t"))  # the -<N>t suffix counts chips per VM
    assert shape.machine_type == machine
    assert shape.chips_per_vm == chips_per_vm
    assert shape.vms_per_slice * shape.chips_per_vm == chips_of(topology)
    assert shape.multi_host == (shape.vms_per_slice > 1)
    assert shape.accelerator_label == ACCELERATOR_LABELS[generation]
    assert shape.instance_type == f"{INSTANCE_KEYS[machine]}:{topology}"
    assert shape.needs_workload_policy == (generation == "tpu7x" and shape.multi_host)


@pytest.mark.parametrize("key,expected", sorted(REFERENCE_EXAMPLES.items()))
def test_default_machine_and_vm_count_match_xpk_and_gke_docs(key, expected):
    shape = resolve(*key)
    assert (shape.machine_type, shape.vms_per_slice) == expected


def test_single_host_shapes_are_exactly_the_reference_list():
    single = {(s.generation, s.topology, s.machine_type)
              for s in (resolve(g, t, m) for g, t, m in ALL_SHAPES) if not s.multi_host}
    assert single == {
        ("v5e", "1x1", "ct5lp-hightpu-1t"), ("v5e", "2x2", "ct5lp-hightpu-4t"), ("v5e", "2x4", "ct5lp-hightpu-8t"),
        ("v6e", "1x1", "ct6e-standard-1t"), ("v6e", "2x2", "ct6e-standard-4t"), ("v6e", "2x4", "ct6e-standard-8t"),
        ("v4", "2x2x1", "ct4p-hightpu-4t"), ("v5p", "2x2x1", "ct5p-hightpu-4t"),
        ("tpu7x", "2x2x1", "tpu7x-standard-4t"), ("tpu7x", "1x1x1", "tpu7x-standard-1t"),
    }


@pytest.mark.parametrize("machine,count", sorted(TOPOLOGY_COUNTS.items()))
def test_topology_lists_are_the_operators_or_the_rules(machine, count):
    machines = {m.name: m for g in GENERATIONS.values() for m in g.machine_types}
    assert len(machines[machine].topologies) == count
    assert len(set(machines[machine].topologies)) == count


def test_one_chip_v6e_uses_the_one_chip_host_not_the_operators_4t_bug():
    shape = resolve("v6e", "1x1")
    assert (shape.machine_type, shape.chips_per_vm) == ("ct6e-standard-1t", 1)


def test_v5p_instance_key_is_tpuv5():
    assert resolve("v5p", "4x4x4").instance_type == "tpuv5:4x4x4"


@pytest.mark.parametrize("shorthand,expected", [
    ("v6e-16", ("v6e", "4x4")), ("v6e-8", ("v6e", "2x4")), ("v6e-256", ("v6e", "16x16")),
    ("v5litepod-16", ("v5e", "4x4")), ("v5e-32", ("v5e", "4x8")),
    ("v5p-16", ("v5p", "2x2x2")), ("v5p-128", ("v5p", "4x4x4")), ("v5p-8", ("v5p", "2x2x1")),
    ("v4-16", ("v4", "2x2x2")), ("tpu7x-16", ("tpu7x", "2x2x2")), ("tpu7x-256", ("tpu7x", "4x4x8")),
    ("v6e", ("v6e", None)), ("V6E-16", ("v6e", "4x4")),
])
def test_shorthand_counts_chips_or_tensorcores_like_xpk(shorthand, expected):
    assert parse_shorthand(shorthand) == expected


@pytest.mark.slow
def test_shorthand_round_trips_through_the_shape():
    for generation, topology, _ in ALL_SHAPES:
        shape = resolve(generation, topology)
        gen, _topo = parse_shorthand(shape.shorthand)
        assert gen == generation


@pytest.mark.parametrize("bad,message", [
    ("v9-16", "is not a TPU type"), ("v6e-12", "is not a v6e size"), ("v5p-15", "must be even"),
    ("tpu", "is not a TPU type"),
])
def test_bad_shorthand_says_what_is_allowed(bad, message):
    with pytest.raises(CatalogError, match=message):
        parse_shorthand(bad)


def test_machine_type_must_fit_the_topology():
    with pytest.raises(CatalogError, match="cannot host topology 4x4; allowed for 4x4: ct6e-standard-4t"):
        resolve("v6e", "4x4", "ct6e-standard-8t")


def test_machine_memory_is_gib_and_one_allocatable_serves_the_head_check_and_the_kueue_quota():
    """GCE's machine tables say "GB" and mean GiB: n2-standard-64 has 256 GiB, so after GKE's reservations
    its allocatable is about 244 GiB (~262 GB) -- not the ~227 GiB that reading "GB" as 10^9 bytes gives."""
    import pathlib

    from pathways_gke.catalog import cpu_machine, gke_allocatable

    node = gke_allocatable(cpu_machine("n2-standard-64"))
    assert 244 * 2**30 < node.memory_bytes < 245 * 2**30
    package = pathlib.Path(__file__).resolve().parents[1] / "components" / "pathways_gke"
    definers = [p.relative_to(package).as_posix() for p in package.rglob("*.py")
                if "def gke_allocatable" in p.read_text() or "def _tiered" in p.read_text()]
    assert definers == ["catalog.py"]


def test_a_head_that_fits_the_allocatable_gib_is_accepted_on_n2_standard_64():
    """The Pathways servers request 132 GB; a user container asking 120 GB more still fits 256 GiB nodes."""
    parsed(
        cpuPool={"zone": "us-east5-a", "machineType": "n2-standard-64"},
        tpuPools=[{"name": "main", "type": "v6e", "topology": "2x4", "zone": "us-east5-b"}],
        workloads=[{"name": "train", "tpuPool": "main", "image": "us-docker.pkg.dev/acme/t:1",
                    "command": "python3 t.py", "pathways": {"version": "2026-11-01", "gcsScratch": "gs://acme-pw/tmp"},
                    "resources": {"requests": {"cpu": "24", "memory": "120G"}, "limits": {"memory": "120G"}}}],
    )

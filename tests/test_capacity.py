"""One capacity table: a JAX pod, a Pathways worker and the Kueue flavor that admits them agree on every mode."""

from __future__ import annotations

import pathlib

import pytest

from pathways_gke.addons.kueue import tpu_flavor
from pathways_gke.capacity import CAPACITIES, CAPACITY_RULES
from pathways_gke.render.jax_jobset import build_jax_jobset
from pathways_gke.render.pathways_jobset import build_pathways_jobset
from pathways_gke.config.placement import Placement
from tests.support.stacks import parsed

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "components" / "pathways_gke"
IMAGE = "us-docker.pkg.dev/acme/train:2026-11"


def pool(capacity: str) -> dict:
    extra = {"reservation": "acme-res"} if capacity == "reservation" else {}
    return {"name": "main", "type": "v5p", "topology": "2x2x2", "slices": 2, "zone": "us-east5-a",
            "capacity": capacity, **extra}


def capacity_stack(capacity: str, runtime: str):
    workload = {"name": "train", "runtime": runtime, "tpuPool": "main", "image": IMAGE, "command": "python3 t.py"}
    if runtime == "pathways":
        workload["pathways"] = {"version": "2026-11-01", "gcsScratch": "gs://acme/tmp"}
    return parsed(tpuPools=[pool(capacity)], kueue={"enabled": capacity == "queued"}, workloads=[workload])


def tpu_pod_specs(capacity: str) -> dict[str, dict]:
    """The TPU pod spec each builder renders for a pool of this capacity."""
    jax_stack, pw_stack = capacity_stack(capacity, "jax"), capacity_stack(capacity, "pathways")
    jax = build_jax_jobset(jax_stack.workloads[0], Placement.of(jax_stack, jax_stack.workloads[0]),
                           secret_name="train-env")
    pathways = build_pathways_jobset(pw_stack.workloads[0], Placement.of(pw_stack, pw_stack.workloads[0]))
    worker = [j for j in pathways["spec"]["replicatedJobs"] if j["name"] == "worker"][0]
    return {"jax": jax["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"],
            "pathways": worker["template"]["spec"]["template"]["spec"]}


@pytest.mark.parametrize("capacity", CAPACITIES)
def test_both_builders_and_the_kueue_flavor_tolerate_the_same_taints(capacity):
    specs = tpu_pod_specs(capacity)
    flavor = tpu_flavor(capacity_stack(capacity, "jax").tpu_pools[0])["spec"]["tolerations"]
    assert specs["jax"]["tolerations"] == specs["pathways"]["tolerations"] == flavor
    keys = [t["key"] for t in flavor]
    assert keys == ["google.com/tpu", *(t["key"] for t in CAPACITY_RULES[capacity].tolerations)]


@pytest.mark.parametrize("capacity", CAPACITIES)
def test_both_builders_select_the_capacity_node_label(capacity):
    specs = tpu_pod_specs(capacity)
    for runtime, spec in specs.items():
        for key, value in CAPACITY_RULES[capacity].node_selector.items():
            assert spec["nodeSelector"].get(key) == value, runtime


def test_every_capacity_mode_has_a_rule_and_the_modes_are_written_once():
    assert set(CAPACITY_RULES) == set(CAPACITIES)
    literal = '"on-demand", "spot", "reservation", "flex-start", "queued"'
    holders = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if literal in p.read_text()]
    assert holders == ["capacity.py"]


def test_each_capacity_toleration_key_is_written_in_one_module():
    for key in ("cloud.google.com/gke-spot", "cloud.google.com/gke-flex-start", "cloud.google.com/gke-queued"):
        holders = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if f'"{key}"' in p.read_text()]
        assert holders == ["naming.py"], key

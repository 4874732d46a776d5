"""Bad `runtime: jax` config is refused before anything is registered, naming the path at fault."""

from __future__ import annotations

import pytest

from pathways_gke.config.stack import parse_stack
from pathways_gke.errors import ConfigError
from tests.support.stacks import stack

IMAGE = "us-docker.pkg.dev/acme/train:2026-11"
V5P = {"name": "main", "type": "v5p", "topology": "2x2x2", "slices": 2, "zone": "us-east5-a"}


def with_jax_workload(workload: dict, tpu_pools=(V5P,), **sections) -> dict:
    """The small stack with a v5p pool group and a jax workload `train` (these keys changed)."""
    return stack(tpuPools=list(tpu_pools), **sections, workloads=[
        {"name": "train", "runtime": "jax", "image": IMAGE, "command": "python3 t.py", **workload}])


def problems(workload: dict, tpu_pools=(V5P,), **sections) -> dict[str, str]:
    with pytest.raises(ConfigError) as caught:
        parse_stack(with_jax_workload(workload, tpu_pools, **sections))
    return {p.path: str(p) for p in caught.value.problems}


def accepted(workload: dict, tpu_pools=(V5P,), **sections):
    return parse_stack(with_jax_workload(workload, tpu_pools, **sections))


def test_a_cpu_workload_needs_a_process_count():
    found = problems({})
    assert list(found) == ["workloads[0].jax.processes"]
    assert "required for a jax workload on the CPU pool" in found["workloads[0].jax.processes"]


@pytest.mark.parametrize("processes", [0, -1])
def test_process_count_must_be_positive(processes):
    found = problems({"jax": {"processes": processes}})
    assert list(found) == ["workloads[0].jax.processes"]
    assert f"{processes} is invalid: should be greater than or equal to 1" in found["workloads[0].jax.processes"]


def test_jobs_must_split_the_processes_evenly():
    found = problems({"jax": {"processes": 6, "slices": 4}})
    assert list(found) == ["workloads[0].jax.slices"]
    assert "must divide jax.processes (6) evenly" in found["workloads[0].jax.slices"]


def test_a_tpu_workload_on_a_cpu_only_stack():
    found = problems({"tpuPool": "main"}, tpu_pools=())
    assert list(found) == ["workloads[0].tpuPool"]
    assert "this stack has no tpuPools" in found["workloads[0].tpuPool"]


def test_a_pool_that_does_not_exist():
    found = problems({"tpuPool": "mian"})
    assert list(found) == ["workloads[0].tpuPool"]
    assert "'mian' names no TPU pool group; allowed: main" in found["workloads[0].tpuPool"]


def test_on_tpu_the_layout_comes_from_the_pool():
    found = problems({"tpuPool": "main", "jax": {"processes": 8, "slices": 2, "memory": "8Gi"}})
    assert sorted(found) == ["workloads[0].jax.memory", "workloads[0].jax.processes", "workloads[0].jax.slices"]
    assert "one process per TPU VM (2 slice(s) x 2 VM(s) = 4)" in found["workloads[0].jax.processes"]


def test_multislice_needs_multi_host_slices():
    single_host = {"name": "small", "type": "v6e", "topology": "2x2", "slices": 2, "zone": "us-east5-a"}
    found = problems({"tpuPool": "small"}, tpu_pools=(single_host,))
    assert list(found) == ["workloads[0].tpuPool"]
    assert "GKE Multislice needs multi-host slices" in found["workloads[0].tpuPool"]
    accepted({"tpuPool": "small"}, tpu_pools=({**single_host, "slices": 1},))


def test_variables_pathways_gke_sets_cannot_be_overridden():
    found = problems({"jax": {"processes": 2}, "env": {"JAX_PROCESS_ID": "0", "JAX_PLATFORMS": "tpu"},
                      "secretEnv": {"JAX_COORDINATOR_ADDRESS": "tok"}}, secrets={"tok": "x"})
    assert sorted(found) == ["workloads[0].env.JAX_PLATFORMS", "workloads[0].env.JAX_PROCESS_ID",
                             "workloads[0].secretEnv.JAX_COORDINATOR_ADDRESS"]
    # on TPU the platform is the user's to choose
    accepted({"tpuPool": "main", "env": {"JAX_PLATFORMS": "tpu"}})


@pytest.mark.parametrize("placement", [{"jax": {"processes": 2}}, {"tpuPool": "main"}], ids=["cpu", "tpu"])
def test_a_variable_comes_from_env_or_secret_env_not_both(placement):
    # found by tests/test_fuzz.py: the container got HF_TOKEN twice, which server-side apply refuses
    found = problems({**placement, "env": {"HF_TOKEN": "plain"}, "secretEnv": {"HF_TOKEN": "hf"}},
                     secrets={"hf": "x"})
    assert list(found) == ["workloads[0].secretEnv.HF_TOKEN"]
    assert "is also given in env" in found["workloads[0].secretEnv.HF_TOKEN"]


def test_jax_settings_on_a_pathways_workload():
    found = problems({"runtime": "pathways", "tpuPool": "main", "jax": {"processes": 2}})
    assert found["workloads[0].jax"].endswith("is not read by runtime 'pathways': the multi-controller JAX "
                                              "settings apply to runtime 'jax' only")


@pytest.mark.parametrize("field, value", [("cpu", "two"), ("cpu", "0"), ("memory", "4 GB"), ("memory", "-1Gi")])
def test_per_process_resources_are_kubernetes_quantities(field, value):
    found = problems({"jax": {"processes": 2, field: value}})
    assert list(found) == [f"workloads[0].jax.{field}"]
    assert "is not a positive Kubernetes quantity" in found[f"workloads[0].jax.{field}"]


def test_numbers_are_accepted_as_quantities():
    stack = accepted({"jax": {"processes": 2, "cpu": 2, "memory": "512Mi"}})
    assert (stack.workloads[0].jax.cpu, stack.workloads[0].jax.memory) == ("2", "512Mi")
    stack = accepted({"jax": {"processes": 2, "cpu": 0.5}})
    assert stack.workloads[0].jax.cpu == "0.5"


def test_unknown_jax_keys_are_refused_with_a_suggestion():
    found = problems({"jax": {"proceses": 2}})
    assert "did you mean 'processes'?" in found["workloads[0].jax.proceses"]


def test_all_problems_are_reported_at_once():
    found = problems({"command": None, "jax": {"processes": 2}, "env": {"JAX_NUM_PROCESSES": "3"}})
    assert {"workloads[0].command", "workloads[0].env.JAX_NUM_PROCESSES"} <= set(found)

"""Pathways workload config: every bad input is reported with its config path before anything is built."""

from __future__ import annotations

from pathlib import Path

import pytest

from pathways_gke.config import load_stack_file, parse_stack
from pathways_gke.errors import ConfigError
from tests.support.stacks import ABSENT, merged, stack

ROOT = Path(__file__).resolve().parents[1]

# a Pathways workload `train` on v6e 4x4 x 4 slices, its head on a 64-vCPU CPU pool
STACK = stack(
    cpuPool={"machineType": "n2-standard-64"},
    tpuPools=[{"name": "main", "type": "v6e", "topology": "4x4", "slices": 4, "zone": "us-east5-b"}],
    workloads=[{"name": "train", "tpuPool": "main", "image": "us-docker.pkg.dev/acme/train:2026-11",
                "command": "python3 train.py",
                "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}}],
)


def stack_with(workload: dict | None = None, pool: dict | None = None, cpu: dict | None = None) -> dict:
    """STACK with these keys of the workload, the pool group and the CPU pool changed."""
    return merged(STACK, workloads=[workload or {}], tpuPools=[pool or {}], cpuPool=cpu or {})


def problems(data: dict) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        parse_stack(data)
    return {p.path: str(p) for p in info.value.problems}


def test_the_base_stack_and_the_shipped_stacks_are_valid():
    parse_stack(STACK)
    load_stack_file(ROOT / "stacks" / "Pulumi.dev.yaml")
    load_stack_file(ROOT / "stacks" / "Pulumi.prod.yaml")


def test_a_23_character_name_is_refused_with_the_reason():
    found = problems(stack_with({"name": "a" * 23}))
    assert "at most 22" in found["workloads[0].name"] and "63-character label" in found["workloads[0].name"]


@pytest.mark.parametrize("name", ["Train", "1train", "train_x", "train-"])
def test_names_must_be_dns_1035_labels(name):
    assert "DNS-1035" in problems(stack_with({"name": name}))["workloads[0].name"]


def test_colocated_on_a_multi_slice_pool_is_refused():
    found = problems(stack_with({"mode": "colocated"}))
    assert "single-slice" in found["workloads[0].mode"]


def test_colocated_on_a_host_too_small_for_the_head_is_refused():
    # the Pathways servers on a TPU VM take at most a quarter of it (pathways_checks.tpu_head_server_sizes); the user
    # container's own requests must fit in the rest
    found = problems(stack_with({"mode": "colocated", "resources": {"requests": {"cpu": "20", "memory": "40Gi"}}},
                                pool={"type": "v5e", "topology": "1x1", "slices": 1}))
    assert "ct5lp-hightpu-1t" in found["workloads[0].mode"] and "cannot hold it" in found["workloads[0].mode"]


def test_colocated_on_a_single_slice_that_can_host_the_head_is_accepted():
    parse_stack(stack_with({"mode": "colocated"}, pool={"topology": "2x4", "slices": 1}))


def test_an_unknown_component_in_custom_images_names_the_path_and_the_allowed_ones():
    found = problems(stack_with({"pathways": {"version": "v1", "gcsScratch": "gs://bkt/t",
                                              "images": {"sidecar": "example.com/x:v1"}}}))
    message = found["workloads[0].pathways.images.sidecar"]
    assert "unknown key" in message and "colocatedPython" in message and "server" in message


def test_unpinned_custom_images_are_refused():
    found = problems(stack_with({"pathways": {"version": "v1", "gcsScratch": "gs://bkt/t",
                                              "images": {"proxy": "example.com/proxy:latest"}}}))
    assert "not pinned" in found["workloads[0].pathways.images.proxy"]


def test_default_images_need_a_pinned_version():
    found = problems(stack_with({"pathways": {"gcsScratch": "gs://bkt/t"}}))
    assert "never used" in found["workloads[0].pathways.version"]
    assert "latest" in problems(stack_with({"pathways": {"version": "latest", "gcsScratch": "gs://bkt/t"}}))[
        "workloads[0].pathways.version"]


def test_no_version_needed_when_every_server_image_is_custom():
    images = {c: f"example.com/pw/{c}:v1" for c in ("server", "proxy", "worker")}
    parse_stack(stack_with({"pathways": {"gcsScratch": "gs://bkt/t", "images": images}}))


def test_gcs_scratch_is_required():
    assert "gcs_scratch_location" in problems(stack_with({"pathways": {"version": "v1"}}))[
        "workloads[0].pathways.gcsScratch"]


def test_elastic_slices_cannot_exceed_the_slices():
    found = problems(stack_with({"pathways": {"version": "v1", "gcsScratch": "gs://bkt/t", "elasticSlices": 5}}))
    assert "4 slice(s)" in found["workloads[0].pathways.elasticSlices"]


@pytest.mark.parametrize("flag, message", [
    ("--server_port=1", "set by pathways-gke"),
    ("--gcs_scratch_location=gs://x", "set by pathways-gke"),
    ("--a b", "not a server flag"),
    ("flag=1", "not a server flag"),
])
def test_custom_flags_are_checked(flag, message):
    found = problems(stack_with({"pathways": {"version": "v1", "gcsScratch": "gs://bkt/t",
                                              "flags": {"worker": [flag]}}}))
    assert message in found["workloads[0].pathways.flags.worker"]


def test_custom_flags_for_an_unknown_component_are_refused():
    found = problems(stack_with({"pathways": {"version": "v1", "gcsScratch": "gs://bkt/t",
                                              "flags": {"colocatedPython": ["--x=1"]}}}))
    assert "unknown key" in found["workloads[0].pathways.flags.colocatedPython"]


def test_managed_env_names_cannot_be_overridden():
    found = problems(stack_with({"env": {"JAX_BACKEND_TARGET": "grpc://x:1"},
                                 "pathways": {"version": "v1", "gcsScratch": "gs://bkt/t",
                                              "env": {"worker": {"MEGASCALE_SLICE_ID": "0"}}}}))
    assert "set by pathways-gke" in found["workloads[0].env.JAX_BACKEND_TARGET"]
    assert "set by pathways-gke" in found["workloads[0].pathways.env.worker.MEGASCALE_SLICE_ID"]


def test_a_variable_is_either_env_or_secret_env():
    data = stack_with({"env": {"TOKEN": "x"}, "secretEnv": {"TOKEN": "tok"}})
    data["pathways-gke:secrets"] = {"tok": "s3cret"}
    assert "also given in env" in problems(data)["workloads[0].secretEnv.TOKEN"]


def test_requests_above_limits_are_refused():
    found = problems(stack_with({"resources": {"requests": {"cpu": "32"}, "limits": {"cpu": "24"}}}))
    assert "larger than limits.cpu" in found["workloads[0].resources.requests"]


def test_bad_quantities_and_tpu_resources_are_refused():
    assert "not a Kubernetes quantity" in problems(stack_with({"resources": {"requests": {"memory": "8 GB"}}}))[
        "workloads[0].resources.requests"]
    assert "TPUs belong to the workers" in problems(stack_with({"resources": {"limits": {"google.com/tpu": "4"}}}))[
        "workloads[0].resources.limits"]


def test_a_cpu_pool_too_small_for_the_pathways_servers_is_blamed_on_its_machine_type():
    found = problems(stack_with(cpu={"machineType": "n2-standard-32"}))
    assert "workloads[0].resources" not in found
    assert "n2-standard-32" in found["cpuPool.machineType"] and "GB allocatable" in found["cpuPool.machineType"]


def test_a_head_too_large_for_the_cpu_pool_because_of_its_user_container_is_refused_there():
    found = problems(stack_with({"resources": {"requests": {"cpu": "10"}}}, cpu={"machineType": "n2-highmem-32"}))
    assert "cpuPool.machineType" not in found
    assert "n2-highmem-32" in found["workloads[0].resources"] and "CPU" in found["workloads[0].resources"]


def test_xpk_sized_user_container_still_fits_n2_standard_64():
    parse_stack(stack_with({"resources": {"requests": {"cpu": "24", "memory": "100G"}}}))


def test_headless_refuses_user_container_options():
    found = problems(stack_with({"mode": "headless", "privileged": True, "command": ABSENT}))
    assert "mode 'headless'" in found["workloads[0].image"]
    assert "mode 'headless'" in found["workloads[0].privileged"]


def test_container_name_cannot_clash_with_pathways_containers():
    assert "used by a Pathways container" in problems(stack_with({"containerName": "pathways-rm"}))[
        "workloads[0].containerName"]


def test_gcs_fuse_volume_names_are_unique_and_paths_checked():
    volume = {"name": "ckpt", "bucket": "acme-ckpt", "mountPath": "/ckpt"}
    found = problems(stack_with({"gcsFuse": [volume, volume]}))
    assert "used by another gcsFuse volume" in found["workloads[0].gcsFuse[1].name"]
    assert "used by another gcsFuse volume" in found["workloads[0].gcsFuse[1].mountPath"]
    found = problems(stack_with({"gcsFuse": [{**volume, "mountPath": "/tmp"}]}))
    assert "absolute path other than" in found["workloads[0].gcsFuse[0].mountPath"]


def test_all_problems_are_reported_together():
    found = problems(stack_with({"name": "a" * 23, "pathways": {"images": {"nope": "x:1"}}}))
    assert {"workloads[0].name", "workloads[0].pathways.images.nope"} <= set(found)


@pytest.mark.slow
@pytest.mark.parametrize("change, path, words", [
    ({"name": "a" * 23}, "workloads[0].name", "at most 22"),
    ({"mode": "colocated"}, "workloads[0].mode", "single-slice"),
    ({"pathways": {"version": "v1", "gcsScratch": "gs://bkt/t", "images": {"sidecar": "x.io/s:v1"}}},
     "workloads[0].pathways.images.sidecar", "unknown key"),
])
def test_cli_exits_2_naming_the_path(tmp_path, change, path, words):
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    import yaml  # noqa: PLC0415

    config = tmp_path / "Pulumi.bad.yaml"
    config.write_text(yaml.safe_dump({"config": stack_with(change)}))
    result = subprocess.run([sys.executable, "-m", "pathways_gke", "plan", "--config", str(config)],
                            capture_output=True, text=True, timeout=120, cwd=ROOT,
                            env={"PYTHONPATH": str(ROOT / "components"), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 2
    output = result.stdout + result.stderr
    assert f"{path}:" in output and words in output and "Traceback" not in output

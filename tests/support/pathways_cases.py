"""Pathways workloads over the whole TPU catalog x modes, as (id, PathwaysWorkloadConfig, Placement) cases."""

from __future__ import annotations

import functools
from typing import Any, Iterator

from pathways_gke.catalog import GENERATIONS
from pathways_gke.config.workloads import PathwaysWorkloadConfig
from pathways_gke.config.placement import Placement

IMAGE = "us-docker.pkg.dev/acme/train/trainer:2026-11-20"
BASE: dict[str, Any] = {
    "name": "train",
    "runtime": "pathways",
    "tpuPool": "main",
    "image": IMAGE,
    "command": "python3 train.py --steps=100",
    "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"},
}

# A workload using every option at once (values that stress schema and webhook rules).
EVERYTHING: dict[str, Any] = {
    **BASE,
    "name": "abcdefghijklmnopqrstuv",  # 22 characters, the maximum
    "command": ["bash", "-c", "cd /app\npython3 -m trainer --flag='a b'"],
    "pathways": {
        "version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp", "elasticSlices": 1, "maxSliceRestarts": 3,
        "metrics": True,
        "images": {"colocatedPython": "us-docker.pkg.dev/acme/sidecar/colocated:v1"},
        "flags": {"server": ["--temporary_flags_for_debugging=temporary_flag_for_debugging_pipe_unreachable_timeout=30m"],
                  "proxy": ["--xla_flag=1"], "worker": ["--foo=bar"]},
        "env": {"server": {"ABSL_FLAGS": "--pathways_pipe_unreachable_timeout=60s"}, "proxy": {"A": "1"},
                "worker": {"B": "2"}},
    },
    "maxRestarts": 7,
    "priorityClass": "high",
    "env": {"ENABLE_PATHWAYS_PERSISTENCE": "1", "ZED": "z"},
    "secretEnv": {"HF_TOKEN": "hf"},
    "serviceAccount": "trainer",
    "terminationGracePeriodSeconds": 120,
    "privileged": True,
    "containerName": "main",
    "resources": {"requests": {"cpu": "4", "memory": "16Gi"}, "limits": {"cpu": "24", "memory": "100G"}},
    "imagePullPolicy": "Always",
    "imagePullSecrets": ["regcred"],
    "gcsFuse": [{"name": "ckpt", "bucket": "acme-ckpt", "mountPath": "/ckpt", "mountOptions": ["implicit-dirs"],
                 "workers": True},
                {"name": "data", "bucket": "acme-data", "mountPath": "/data", "readOnly": True}],
}

CAPACITIES = ("on-demand", "spot", "reservation", "flex-start", "queued")


def workload(**overrides: Any) -> PathwaysWorkloadConfig:
    data = {**BASE, **overrides}
    return PathwaysWorkloadConfig.model_validate(data, by_alias=True)


def target(generation: str = "v6e", topology: str = "4x4", slices: int = 4, machine_type: str | None = None,
           **extra: Any) -> Placement:
    return Placement(namespace=extra.pop("namespace", "ml"), cpu_pool=extra.pop("cpu_pool", "cpu-np"),
                     tpu_group=extra.pop("tpu_group", "main"), tpu_type=generation, tpu_topology=topology,
                     tpu_machine_type=machine_type, slices=slices, **extra)


def shapes() -> Iterator[tuple[str, str, str]]:
    """Every (generation, machine type, topology) the catalog allows."""
    for gen in GENERATIONS.values():
        for machine in gen.machine_types:
            for topology in machine.topologies:
                yield gen.name, machine.name, topology


MODES: dict[str, dict[str, Any]] = {
    "default": {},
    "headless": {"mode": "headless", "image": None, "command": None},
    "everything": EVERYTHING,
}


@functools.lru_cache(maxsize=None)
def matrix() -> tuple[tuple[str, PathwaysWorkloadConfig, Placement], ...]:
    """The full catalog x modes. Slices vary with the shape so capacity modes and slice counts are covered too;
    colocated runs single-slice (the only layout it supports)."""
    cases = []
    for i, (gen, machine, topo) in enumerate(shapes()):
        capacity = CAPACITIES[i % len(CAPACITIES)]
        slices = 1 + i % 4
        placement = "pw-main-wp" if GENERATIONS[gen].workload_policy else None
        for mode, overrides in MODES.items():
            w = workload(**overrides)
            t = target(gen, topo, slices, machine, capacity=capacity, placement_policy=placement,
                       queue_name="pathways-queue" if i % 2 else None)
            cases.append((f"{gen}-{machine}-{topo}-{mode}", w, t))
        cases.append((f"{gen}-{machine}-{topo}-colocated", workload(mode="colocated"),
                      target(gen, topo, 1, machine, capacity=capacity)))
    return tuple(cases)

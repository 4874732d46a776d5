"""No workload key is silently dropped: every key a runtime accepts changes what the stack makes of the workload
(its JobSet, its Kubernetes service account, its grants), or is refused at its path.

The walk covers every field of the workload model (nested Pathways and JAX settings included). A new field
fails `test_the_walk_covers_every_workload_field` until it has a sample here, which forces the decision:
honour it in the builder of each runtime that accepts it, or refuse it for the others.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from pathways_gke.config.pathways import PathwaysEnv, PathwaysFlags, PathwaysImages, PathwaysSettings
from pathways_gke.config.workloads import WORKLOAD_MODELS, JaxSettings, PathwaysWorkloadConfig
from pathways_gke.errors import ConfigError
from pathways_gke.workloads import jax_inputs, pathways, serving
from pathways_gke.workloads.jax import jax_args_from_stack
from pathways_gke.workloads.jax_jobset import build_jax_jobset
from pathways_gke.workloads.identity import grant_plan, ksa_bindings
from tests.support.stacks import parsed

IMAGE = "us-docker.pkg.dev/acme/train:2026-11"
OTHER_IMAGE = "us-docker.pkg.dev/acme/other:2026-12"
POOL = {"type": "v5p", "topology": "2x2x2", "slices": 2, "zone": "us-east5-a"}

# Models the walk descends into; any other field is one key (a mapping or list is changed as a whole).
NESTED: dict[str, type[BaseModel]] = {
    "pathways": PathwaysSettings, "pathways.images": PathwaysImages, "pathways.flags": PathwaysFlags,
    "pathways.env": PathwaysEnv, "jax": JaxSettings,
}

# A valid value, different from the default, for every key (or (value, keys it makes meaningless));
# None marks the runtime discriminator.
SAMPLES: dict[str, Any] = {
    "name": "train2",
    "runtime": None,
    "tpuPool": ("alt", ("jax",)),  # on a TPU pool the process layout comes from the pool
    "mode": ("headless", ("image", "command", "serving", "service")),  # headless: no user container
    "image": OTHER_IMAGE,
    "command": "python3 other.py",
    "args": ["--steps=10"],
    "maxRestarts": 2,
    "priorityClass": "high",
    "env": {"FOO": "1"},
    "secretEnv": {"TOKEN": "hf"},
    "serviceAccount": "trainer2",
    "terminationGracePeriodSeconds": 61,
    "privileged": True,
    "containerName": "main",
    "resources": {"requests": {"cpu": "4", "memory": "16Gi"}},
    "imagePullPolicy": "Always",
    "gcsFuse": [{"name": "data", "bucket": "acme-data", "mountPath": "/data"}],
    "imagePullSecrets": ["regcred"],
    "serviceAccountExists": True,
    "gcpServiceAccount": "trainer@acme-ml-dev.iam.gserviceaccount.com",
    "buckets": [{"bucket": "acme-data", "access": "read"}],
    "serving": {"port": 9000},
    "service": {"clients": ["carol"]},
    "sidecars": [{"name": "http", "image": OTHER_IMAGE, "ports": [8001]}],
    "pathways.version": "jax-0.9.3",
    "pathways.gcsScratch": "gs://acme-pw/other",
    "pathways.elasticSlices": 1,
    "pathways.maxSliceRestarts": 3,
    "pathways.metrics": True,
    "pathways.images.server": OTHER_IMAGE,
    "pathways.images.proxy": OTHER_IMAGE,
    "pathways.images.worker": OTHER_IMAGE,
    "pathways.images.colocatedPython": OTHER_IMAGE,
    "pathways.flags.server": ["--temporary_flag=1"],
    "pathways.flags.proxy": ["--temporary_flag=1"],
    "pathways.flags.worker": ["--temporary_flag=1"],
    "pathways.env.server": {"FOO": "1"},
    "pathways.env.proxy": {"FOO": "1"},
    "pathways.env.worker": {"FOO": "1"},
    "jax.processes": 4,
    "jax.slices": 2,
    "jax.cpu": "2",
    "jax.memory": "8Gi",
}

BASES = {
    "pathways": {"name": "train", "runtime": "pathways", "tpuPool": "main", "image": IMAGE, "command": "python3 t.py",
                 "serviceAccount": "trainer", "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}},
    "jax-tpu": {"name": "train", "runtime": "jax", "tpuPool": "main", "image": IMAGE, "command": "python3 t.py",
                "serviceAccount": "trainer"},
    "jax-cpu": {"name": "train", "runtime": "jax", "image": IMAGE, "command": "python3 t.py",
                "serviceAccount": "trainer", "jax": {"processes": 2}},
    "headless": {"name": "train", "runtime": "pathways", "mode": "headless", "tpuPool": "main",
                 "serviceAccount": "trainer", "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}},
    "serving": {"name": "train", "runtime": "pathways", "mode": "serving", "tpuPool": "main", "image": IMAGE,
                "command": "python3 serve.py", "serviceAccount": "trainer", "serving": {"port": 8000},
                "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}},
    "service": {"name": "train", "runtime": "pathways", "mode": "service", "tpuPool": "main",
                "serviceAccount": "trainer", "service": {"clients": ["alice"]},
                "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}},
}


def keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    out = []
    for name, field in model.model_fields.items():
        key = prefix + (field.alias or name)
        out += keys(NESTED[key], key + ".") if key in NESTED else [key]
    return out


def every_key() -> list[str]:
    """The keys of every runtime's workload model (each runtime refuses the keys of the others)."""
    return sorted({key for model in WORKLOAD_MODELS for key in keys(model)})


# Where a base already holds the sample, another value (and the keys it needs).
BASE_SAMPLES: dict[str, dict[str, Any]] = {
    "headless": {"mode": ("default", (), {"image": IMAGE, "command": "python3 t.py"})},
}


def with_key(workload: dict, key: str, sample: Any) -> dict:
    value, drop, add = (*sample, {})[:3] if isinstance(sample, tuple) else (sample, (), {})
    out = {k: v for k, v in json.loads(json.dumps(workload)).items() if k not in drop}
    out.update(add)
    *parents, leaf = key.split(".")
    node = out
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value
    return out


def render(workload: dict) -> tuple:
    """What a workload makes: its JobSet, and the service accounts and grants the stack creates for it."""
    st = parsed(tpuPools=[{"name": "main", **POOL}, {"name": "alt", **POOL}], secrets={"hf": "not-a-real-token"},
                workloads=[workload])
    w = st.workloads[0]
    secrets = {"hf": "not-a-real-token"}
    # through the args PathwaysCluster hands each workload component, as the component validates and builds them
    if not isinstance(w, PathwaysWorkloadConfig):
        args = jax_args_from_stack(st, w, secrets)
        config, target = jax_inputs.validate_jax_args(args)
        made = build_jax_jobset(config, target, secret_name="train-env" if config.secret_env else None)
    elif w.on_lws:  # serving and service modes: a LeaderWorkerSet and its Services (and client proxies)
        made = serving.validate_args(serving.serving_args_from_stack(st, w, secrets))[1]
    else:
        made = pathways.validate_args(pathways.pathways_args_from_stack(st, w, secrets))[1]
    return made, ksa_bindings(st), grant_plan(st)


def test_the_walk_covers_every_workload_field():
    assert sorted(SAMPLES) == every_key()


@pytest.mark.parametrize("base", sorted(BASES))
@pytest.mark.parametrize("key", [k for k in sorted(SAMPLES) if SAMPLES[k] is not None])
def test_every_key_changes_the_rendered_jobset_or_is_refused_at_its_path(base, key):
    before = render(BASES[base])
    try:
        after = render(with_key(BASES[base], key, BASE_SAMPLES.get(base, {}).get(key, SAMPLES[key])))
    except ConfigError as error:
        paths = [p.path.removeprefix("workloads[0].") for p in error.problems]
        # refused at the key, inside it, or at the block that holds it (a runtime's settings refused whole)
        assert any(p == key or p.startswith(key + ".") or key.startswith(p + ".") for p in paths), paths
        return
    assert after != before, f"{base}: {key} was accepted and changed nothing"

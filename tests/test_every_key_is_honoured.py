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


# --- stack-level keys, in every combination that decides whether a builder reads them ------------------------
#
# A key of cluster / cpuPool / buckets / observability set to a non-default value must change the offline plan
# (some resource input, or an output) or be refused at its path, in each context: a created or an adopted
# cluster and head pool, public or private nodes, a stack whose every workload serves.

STACK_CONTEXTS: dict[str, dict[str, Any]] = {
    "created": {},
    "adopted": {"cluster": {"create": False}, "cpuPool": {"create": False}},
    "private": {"cluster": {"privateNodes": True, "masterIpv4CidrBlock": "172.16.0.32/28"}},
    "public": {"cluster": {"privateNodes": False}},
    "serving-only": {"workloads": "serving"},
}

# key -> a valid non-default value
STACK_SAMPLES: dict[str, Any] = {
    "cluster.releaseChannel": "STABLE",
    "cluster.version": "1.34",
    "cluster.network": "projects/acme-ml-dev/global/networks/ml",
    "cluster.subnetwork": "ml-east5",
    "cluster.deletionProtection": False,
    "cluster.protect": True,
    "cluster.labels": {"team": "ml"},
    "cluster.nodeServiceAccount": {"create": False, "email": "nodes@acme-ml-dev.iam.gserviceaccount.com"},
    "cluster.maintenance": {"window": {"dailyStartTime": "03:00"}},
    "cluster.projectNumber": "210987654321",
    "cluster.networkProject": "acme-net-host",
    "cluster.nat.enabled": False,
    "cluster.nat.router": "ml-router",
    "cluster.masterAuthorizedNetworks": [{"cidrBlock": "203.0.113.0/24"}],
    "cluster.dns": "nodelocal-dnscache",
    "cpuPool.name": "head-np",
    "cpuPool.machineType": "n2-standard-80",
    "cpuPool.minNodes": 2,
    "cpuPool.maxNodes": 5,
    "cpuPool.diskSizeGb": 300,
    "cpuPool.diskType": "pd-ssd",
    "cpuPool.spot": True,
    "cpuPool.imageStreaming": False,
    "cpuPool.imageCacheDisk": "projects/acme-ml-dev/global/images/cache-2026-11",
    "cpuPool.labels": {"team": "ml"},
    "buckets[0].create": True,
    "buckets[0].location": "US-EAST5",
    "buckets[0].temporaryObjectDays": 14,
    "observability.managedPrometheus": False,
    "observability.consoleLinks": False,
    "observability.alerts": True,
    "observability.stuckMinutes": 30,
    "jobset.version": "v0.9.0",
    "jobset.sizeForCluster": False,
    "kueue.enabled": True,
    "kueue.version": "v0.18.0",
    "kueue.sizeForCluster": False,
    "lws.version": "v0.6.1",
    "lws.gateImage": "registry.k8s.io/kubectl:v1.33.0",
}

TRAIN_WORKLOAD = {"name": "train", "runtime": "pathways", "tpuPool": "main", "image": IMAGE, "command": "python3 t.py",
                  "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"},
                  "buckets": [{"bucket": "acme-data", "access": "read"}]}
SERVE_WORKLOAD = {"name": "chat", "runtime": "pathways", "mode": "serving", "tpuPool": "main", "image": IMAGE,
                  "command": "python3 serve.py", "serving": {"port": 8000},
                  "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"},
                  "buckets": [{"bucket": "acme-data", "access": "read"}]}


def stack_config(context: str) -> dict[str, Any]:
    spec = STACK_CONTEXTS[context]
    config: dict[str, Any] = {
        "gcp:project": "acme-ml-dev",
        "pathways-gke:cluster": {"name": "pw", "location": "us-east5", "projectNumber": "123456789012",
                                 **spec.get("cluster", {})},
        "pathways-gke:cpuPool": {**({} if context == "adopted" else {"zone": "us-east5-a"}), **spec.get("cpuPool", {})},
        "pathways-gke:tpuPools": [{"name": "main", **POOL}],
        "pathways-gke:buckets": [{"name": "acme-data"}],
        "pathways-gke:workloads": [SERVE_WORKLOAD if spec.get("workloads") == "serving" else TRAIN_WORKLOAD],
    }
    return config


def with_stack_key(config: dict[str, Any], key: str, value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(config))
    section, _, rest = key.partition(".")
    index = None
    if section.endswith("]"):
        section, index = section[:-3], int(section[-2])
    node = out.setdefault(f"pathways-gke:{section}", {})
    if index is not None:
        node = node[index]
    *parents, leaf = rest.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value
    return out


def planned(config: dict[str, Any]) -> str:
    from pathways_gke.plan.engine import plan_config

    plan = plan_config(config, stack="walk")
    return json.dumps({"resources": json.loads(plan.dumps())["resources"], "outputs": plan.outputs},
                      sort_keys=True, default=str)


# accepted without a change to the plan, and why that is not a dropped key
STACK_EXEMPT = {
    ("adopted", "cpuPool.machineType"): "describes the existing head pool: the head-pod fit check reads it",
    # a fact about the project, read when a grant names a Workload Identity principal (the serving-only context:
    # its pods do not use host networking); the host-network training pods act as the node service account
    **{(context, "cluster.projectNumber"): "a project fact, read by the grants that need it"
       for context in ("adopted", "created", "private", "public")},
}


@pytest.fixture(scope="module")
def context_plans() -> dict[str, str]:
    return {context: planned(stack_config(context)) for context in STACK_CONTEXTS}


@pytest.mark.slow
@pytest.mark.parametrize("context", sorted(STACK_CONTEXTS))
@pytest.mark.parametrize("key", sorted(STACK_SAMPLES))
def test_every_stack_key_changes_the_plan_or_is_refused_in_every_context(context, key, context_plans):
    try:
        after = planned(with_stack_key(stack_config(context), key, STACK_SAMPLES[key]))
    except ConfigError as error:
        paths = [p.path for p in error.problems]
        assert any(p == key or p.startswith(key + ".") or p.startswith(key + "[") or key.startswith(p + ".")
                   for p in paths), (context, key, error.render())
        return
    assert after != context_plans[context] or (context, key) in STACK_EXEMPT, \
        f"{context}: {key} was accepted and changed nothing"

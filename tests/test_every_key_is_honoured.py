"""No workload key is silently dropped: every key a runtime accepts changes what the stack makes of the workload
(its JobSet, its Kubernetes service account, its grants), or is refused at its path.

The walk covers every field of the workload model (nested Pathways and JAX settings included). A new field
fails `test_the_walk_covers_every_workload_field` until it has a sample here, which forces the decision:
honour it in the builder of each runtime that accepts it, or refuse it for the others. The same walk covers the
stack-level keys (the offline plan) and the placement args of the standalone workload components (every field of
config/placement.py's `Placement`, for each component and mode).
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from pydantic import BaseModel

from pathways_gke.config.pathways import PathwaysEnv, PathwaysFlags, PathwaysImages, PathwaysSettings
from pathways_gke.config.workloads import WORKLOAD_MODELS, JaxSettings, PathwaysWorkloadConfig
from pathways_gke.errors import ConfigError
from pathways_gke.workloads import jax as jax_workload
from pathways_gke.workloads import pathways, serving
from pathways_gke.gke.identity import grant_plan, ksa_bindings
from tests.support.stacks import merged, parsed

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
    "tpuPools": (["main", "alt"], ("tpuPool", "jax")),  # ordered fallback: refused here (the stack has no Kueue)
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
    "pathways.pipeUnreachableTimeout": "60s",
    "restart": {"strategy": "BlockingRecreate"},
    "restartOnExitCodes": [42],
    "multiTierCheckpointing": {"mountPath": "/local-ckpt"},
    # on the bases' v5p pool (no dynamicSlicing) both are refused at their path; tests/test_ironwood.py renders them
    "dynamicSlice": {"topology": "4x4x4"},
    "parallelContainers": 2,
}
# The cluster the walk's workloads run on has multi-tier checkpointing (a workload's own key needs it), and the
# Pathways bases a colocated-python sidecar (where a Pathways worker mounts the RAM disk).
MTC_CLUSTER = {"projectNumber": "123456789012",
               "multiTierCheckpointing": {"bucket": "acme-ckpt", "inMemoryVolumeSize": "64Gi"}}
COLOCATED = "us-docker.pkg.dev/acme/colocated:2026-11"

BASES = {
    "pathways": {"name": "train", "runtime": "pathways", "tpuPool": "main", "image": IMAGE, "command": "python3 t.py",
                 "serviceAccount": "trainer", "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp",
                                                           "images": {"colocatedPython": COLOCATED}}},
    "jax-tpu": {"name": "train", "runtime": "jax", "tpuPool": "main", "image": IMAGE, "command": "python3 t.py",
                "serviceAccount": "trainer"},
    "jax-cpu": {"name": "train", "runtime": "jax", "image": IMAGE, "command": "python3 t.py",
                "serviceAccount": "trainer", "jax": {"processes": 2}},
    "headless": {"name": "train", "runtime": "pathways", "mode": "headless", "tpuPool": "main",
                 "serviceAccount": "trainer", "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp",
                                                           "images": {"colocatedPython": COLOCATED}}},
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
    base = merged(cluster=MTC_CLUSTER)
    st = parsed(base, tpuPools=[{"name": "main", **POOL}, {"name": "alt", **POOL}],
                secrets={"hf": "not-a-real-token"}, workloads=[workload])
    w = st.workloads[0]
    secrets = {"hf": "not-a-real-token"}
    # through the args PathwaysCluster hands each workload component, as the component validates and builds them
    if not isinstance(w, PathwaysWorkloadConfig):
        made = jax_workload.validate_args(jax_workload.jax_args_from_stack(st, w, secrets)).objects
    elif w.on_lws:  # serving and service modes: a LeaderWorkerSet and its Services (and client proxies)
        made = serving.validate_args(serving.serving_args_from_stack(st, w, secrets)).objects
    else:
        made = pathways.validate_args(pathways.pathways_args_from_stack(st, w, secrets)).objects
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
    "cluster.autoprovisioning": {"enabled": True, "tpuChipsMax": {"v5p": 16}},
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
    "jobset.featureGates": {"RestartJob": True},
    "cluster.multiTierCheckpointing": {"bucket": "acme-ckpt", "inMemoryVolumeSize": "64Gi"},
    "kueue.enabled": True,
    "kueue.version": "v0.18.0",
    "kueue.sizeForCluster": False,
    "lws.version": "v0.6.1",
    "lws.gateImage": "registry.k8s.io/kubectl:v1.33.0",
    # the Ironwood keys: a second NIC on every TPU pool (refused on an adopted cluster); NUMA and dynamic slicing
    # on the contexts' v5p group are refused at their key (tests/test_ironwood.py renders them on tpu7x)
    "cluster.additionalNetworks": [{"network": "iw-data", "subnetwork": "iw-data-east5"}],
    "tpuPools[0].numaAware": True,
    "tpuPools[0].dynamicSlicing": True,
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


# cpuPool.machineType in every shape Compute Engine names (catalog.py): a shape the catalog sizes and that holds
# the Pathways head changes the plan; any other is refused at the key, or at the head, naming the machine
CPU_MACHINE_SHAPES = (
    "n2-standard-96", "n2-highmem-48", "n2-highcpu-96", "n1-standard-96", "c3-highcpu-176",  # predefined
    "e2-micro", "e2-small", "e2-medium", "f1-micro", "g1-small", "e2-custom-medium-8192",  # shared-core
    "n2-custom-48-262144", "n2-custom-32-327680-ext", "custom-48-262144", "n2d-custom-48-262144",  # custom
    "e2-custom-32-131072", "n4-custom-64-262144",
    "n2-custom-34-65536", "n2-custom-8-32100", "n2-custom-8-81920", "e2-custom-8-81920-ext", "c2-custom-8-32768",
    "m1-megamem-96", "c4-standard-48-lssd", "a2-ultragpu-1g",  # shapes the catalog cannot size
    "t2a-standard-48", "c4a-highmem-72",  # Arm
)


# the shapes above that hold the head (24 CPU / 132 GB of Pathways servers and the user container)
HOLDS_THE_HEAD = {"n2-standard-96", "n2-highmem-48", "n1-standard-96", "c3-highcpu-176", "n2-custom-48-262144",
                  "n2-custom-32-327680-ext", "custom-48-262144", "n2d-custom-48-262144", "n4-custom-64-262144"}


@pytest.mark.slow
@pytest.mark.parametrize("machine", CPU_MACHINE_SHAPES)
def test_every_cpu_machine_shape_is_planned_or_refused_naming_it(machine, context_plans):
    try:
        after = planned(with_stack_key(stack_config("created"), "cpuPool.machineType", machine))
    except ConfigError as error:
        assert machine not in HOLDS_THE_HEAD, error.render()
        assert any(p.path == "cpuPool.machineType" or machine in str(p) for p in error.problems), error.render()
        return
    assert machine in HOLDS_THE_HEAD
    assert after != context_plans["created"] and machine in after


# --- the placement args of the standalone workload components ------------------------------------------------
#
# PathwaysWorkload, JaxWorkload and PathwaysServing take where they run as flat args, the fields of the one
# `Placement` model (config/placement.py). Each field set to a non-default value must change what the component
# renders or be refused at its arg path, for every component and mode that takes it.

PLACEMENT_BASES: dict[str, dict[str, Any]] = {
    "pathways": {"workload": {"name": "train", "image": IMAGE, "command": "python3 t.py",
                              "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}},
                 "tpu_type": "v6e", "tpu_topology": "4x4", "slices": 2, "tpu_group": "main"},
    "headless": {"workload": {"name": "train", "mode": "headless",
                              "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}},
                 "tpu_type": "v6e", "tpu_topology": "4x4", "slices": 2, "tpu_group": "main"},
    "serving": {"workload": {"name": "chat", "mode": "serving", "image": IMAGE, "command": "python3 serve.py",
                             "serving": {"port": 8000},
                             "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}},
                "tpu_type": "v6e", "tpu_topology": "4x4", "slices": 2, "tpu_group": "main"},
    "service": {"workload": {"name": "chat", "mode": "service", "service": {"clients": ["alice"]},
                             "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}},
                "tpu_type": "v6e", "tpu_topology": "4x4", "slices": 2, "tpu_group": "main"},
    "jax-tpu": {"workload": {"name": "train", "runtime": "jax", "image": IMAGE, "command": "python3 t.py"},
                "tpu_type": "v6e", "tpu_topology": "4x4", "slices": 2, "tpu_group": "main"},
    "jax-cpu": {"workload": {"name": "train", "runtime": "jax", "image": IMAGE, "command": "python3 t.py",
                             "jax": {"processes": 2}}},
}

# a valid non-default value per Placement field, or (value, the args it needs beside it where a base lacks them)
PLACEMENT_SAMPLES: dict[str, Any] = {
    "tpu_type": ("v5e", {"tpu_topology": "4x4", "slices": 2, "tpu_group": "main"}),
    "tpu_topology": "2x4",
    "slices": 1,
    # the 8-chip host fits 2x4 only: compared with the same args on the default 4-chip hosts
    "tpu_machine_type": "ct6e-standard-8t",
    "namespace": "ml",
    "cpu_pool": "head-np",
    # too small for the CPU pods (a Pathways head, a CPU leader or proxy, a JAX process): refused at the arg
    "cpu_machine_type": "e2-standard-2",
    "tpu_group": "alt",
    # the slices carry their group's taint (an adopted cluster's pools this stack made): the pods tolerate it
    "group_taint": True,
    "capacity": "spot",
    "placement_policy": "pw-main-wp",
    "queue_name": "pathways-queue",
    # with a base's tpu_group: refused at fallback_groups (the workers would select one group)
    "fallback_groups": ["main", "alt"],
    # without tpu7x and a queue: refused at the arg (tests/test_ironwood.py renders it on a dynamic-slicing group)
    "dynamic_slice": True,
}

# args both renders share (where the base runs on TPU), so that only the sampled field differs: the 8-chip host
# fits 2x4 only, and single-host slices are one slice (GKE Multislice needs multi-host slices)
PLACEMENT_CONTEXT: dict[str, dict[str, Any]] = {"tpu_machine_type": {"tpu_topology": "2x4", "slices": 1}}

# args both renders share for one base and field: CPU processes large enough that e2-standard-2 cannot hold one
PLACEMENT_BASE_CONTEXT: dict[tuple[str, str], dict[str, Any]] = {
    ("jax-cpu", "cpu_machine_type"): {"workload": {**PLACEMENT_BASES["jax-cpu"]["workload"],
                                                   "jax": {"processes": 2, "cpu": "4", "memory": "16Gi"}}},
}

# where a base needs other args beside the sample (they replace the base's)
PLACEMENT_BASE_SAMPLES: dict[tuple[str, str], tuple[Any, dict[str, Any]]] = {
    # on TPU the process layout comes from the slices: the CPU workload's jax.processes goes
    ("jax-cpu", "tpu_type"): ("v5e", {"tpu_topology": "4x4", "slices": 2, "tpu_group": "main",
                                      "workload": PLACEMENT_BASES["jax-tpu"]["workload"]}),
}

# accepted without a change, and why that is not a dropped arg
PLACEMENT_EXEMPT: dict[tuple[str, str], str] = {
    ("jax-tpu", "cpu_pool"): "a JAX workload on TPU has no pod on the CPU pool (one process per TPU VM)",
    ("serving", "cpu_pool"): "mode serving on single-slice replicas: the leader runs on its slice, no pod on "
                             "the CPU pool (serving_lws.py `layout`)",
    ("serving", "cpu_machine_type"): "mode serving on single-slice replicas: no pod on the CPU pool to fit",
    ("jax-tpu", "cpu_machine_type"): "a JAX workload on TPU has no pod on the CPU pool to fit",
    ("serving", "slices"): "mode serving sizes each replica from serving.slicesPerReplica; the slice count "
                           "bounds the replicas (one replica of one slice fits either count)",
}

# accepted and dropped today: known bugs, each failing here (strict) once fixed so the entry is removed
PLACEMENT_DROPPED: dict[tuple[str, str], str] = {}


def refused_for(key: str, value: Any, problems: list) -> bool:
    """Refused at the arg, or by a check whose message names the sampled value (the head-fit check reports at
    the pod's resources and names the machine type it does not fit)."""
    named = isinstance(value, str) and len(value) > 4  # long enough not to appear by chance
    return any(p.path == key or p.path.startswith(key + ".") or (named and value in p.message) for p in problems)


def placement_render(base: str, args: dict[str, Any]) -> str:
    """What the component validates and renders from its args (the JobSet or LeaderWorkerSet objects)."""
    args = json.loads(json.dumps(args))
    if base.startswith("jax"):
        made = jax_workload.validate_args(args).objects
    elif args["workload"].get("mode") in ("serving", "service"):
        made = serving.validate_args(args).objects
    else:
        made = pathways.validate_args(args).objects
    return json.dumps(dataclasses.asdict(made), sort_keys=True, default=repr)


def test_the_placement_walk_covers_every_placement_field():
    from pathways_gke.config.placement import Placement

    assert sorted(PLACEMENT_SAMPLES) == sorted(Placement.model_fields)


def _placement_cases() -> list:
    return [pytest.param(base, key, marks=pytest.mark.xfail(strict=True, reason=PLACEMENT_DROPPED[(base, key)]))
            if (base, key) in PLACEMENT_DROPPED else pytest.param(base, key)
            for key in sorted(PLACEMENT_SAMPLES) for base in sorted(PLACEMENT_BASES)]


@pytest.mark.parametrize("base, key", _placement_cases())
def test_every_placement_arg_changes_the_rendered_objects_or_is_refused_at_its_path(base, key):
    on_tpu = "tpu_type" in PLACEMENT_BASES[base]
    before_args = {**PLACEMENT_BASES[base], **(PLACEMENT_CONTEXT.get(key, {}) if on_tpu else {}),
                   **PLACEMENT_BASE_CONTEXT.get((base, key), {})}
    before = placement_render(base, before_args)
    if (base, key) in PLACEMENT_BASE_SAMPLES:
        value, needs = PLACEMENT_BASE_SAMPLES[(base, key)]
    else:
        sample = PLACEMENT_SAMPLES[key]
        value, needs = sample if isinstance(sample, tuple) else (sample, {})
        needs = {k: v for k, v in needs.items() if k not in before_args}
    try:
        after = placement_render(base, {**before_args, **needs, key: value})
    except ConfigError as error:
        assert refused_for(key, value, error.problems), error.render()
        return
    assert after != before or (base, key) in PLACEMENT_EXEMPT, f"{base}: {key} was accepted and changed nothing"

"""Hypothesis strategies for whole stack configs (the flat `config:` mapping of a Pulumi.<stack>.yaml).

`valid_configs()` draws configs from the real contract, with the catalog and the models as data: every TPU
generation, its topologies, machine types and aliases, shorthand sizes, the capacity modes each generation
offers, 0..3 pool groups of 1..12 slices in zones of the cluster's region, Kueue on/off, Pathways workloads
in default/headless/colocated mode where the pool allows it, JAX workloads on TPU and on the CPU pool, env,
secretEnv, priority classes, GCS FUSE, ... Each draw carries the facts a test needs to check the plan
(pools, slices, workload names, secret values) and `features` for coverage.

`invalid_configs()` takes a valid draw and applies 1..3 realistic user mistakes (`MISTAKES`), each at its own
site of the config, and says where each must be reported (`Mistake.path`) and what the message must contain
(`Mistake.fragments`: the bad value and/or what is allowed). `Mistake.stage` says when the validator can see
it: "parse" (the item itself fails to parse; always reported), "pool" (a TPU pool rule; reported when the
rest parses) or "cross" (a rule between sections; reported when everything else is clean). A mutation is
only offered where it is certainly invalid (e.g. a zone of *another* region, a topology the generation
does not have); one that needs something the config lacks (a jax workload, a second pool) adds it first.

`broken_stack_files(slip)` turns a valid stack file into text that is not YAML (a tab, an unclosed quote, a
key given twice, ...), checked with the stack-file loader itself.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import re
import string
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, get_args

import yaml
from hypothesis import reject
from hypothesis import strategies as st

from pathways_gke.releases import RELEASES, RESTART_JOB_SINCE, jobset_feature_gates, version_key
from pathways_gke.addons.priority import PRIORITY_NAMES
from pathways_gke.catalog import GENERATIONS, TPU_TYPES, SliceShape, chips_of, cpu_machine, machine_types_for, \
    parse_shorthand, resolve
from pathways_gke.config.checks import RESERVED_NAMESPACES
from pathways_gke.config.cluster import ClusterConfig, CpuPoolConfig, ReleaseChannel
from pathways_gke.config.pathways import DEFAULT_USER_REQUESTS, MANAGED_FLAGS, ImagePullPolicy, parse_quantity
from pathways_gke.catalog import TPU_HOSTS, gke_allocatable
from pathways_gke.config.pathways_checks import GB, MANAGED_ENV, SERVER_REQUESTS
from pathways_gke.config.stack import KNOWN_KEYS
from pathways_gke.config.stack_file import parse_stack_yaml  # the CLI-compatible reader
from pathways_gke.errors import ConfigError
from pathways_gke.config.tpu import Capacity, TpuPoolConfig
from pathways_gke.config.restart import RestartStrategy
from pathways_gke.config.workloads import JaxSettings, JOBSET_MODES, MAX_WORKLOAD_NAME, RESERVED_CONTAINER_NAMES, WORKLOAD_MODELS, \
    Runtime
from pathways_gke.gke_rules import TPU_BOOT_DISK_TYPES, hyperdisk_only
from pathways_gke.naming import MANAGED_GCE_LABELS
from pathways_gke.naming import jax_managed_env

P = "pathways-gke:"

# Real GCP regions with TPUs; zones are <region>-<letter>.
REGIONS = ("us-east5", "us-central1", "us-south1", "us-west4", "europe-west4", "asia-northeast1")
ZONE_LETTERS = "abc"
# The accelerator network profile exists on these generations only (config/tpu.py pool_problems).
NETWORK_PROFILE_GENERATIONS = ("v6e", "tpu7x")
CAPACITIES: tuple[str, ...] = get_args(Capacity)
# JobSet modes only: serving/service workloads (a LeaderWorkerSet) are covered by tests/test_serving.py
MODES: tuple[str, ...] = JOBSET_MODES
RUNTIMES: tuple[str, ...] = get_args(Runtime)
RELEASE_CHANNELS: tuple[str, ...] = get_args(ReleaseChannel)
DISK_TYPES: tuple[str, ...] = get_args(get_args(TpuPoolConfig.model_fields["disk_type"].annotation)[0])
MAINTENANCE: tuple[str, ...] = get_args(TpuPoolConfig.model_fields["host_maintenance_interval"].annotation)
PULL_POLICIES: tuple[str, ...] = get_args(ImagePullPolicy)
RESTART_STRATEGIES: tuple[str, ...] = get_args(RestartStrategy)
# Predefined CPU machine types users pick for the head pool; their size comes from catalog.cpu_machine.
CPU_MACHINES = (
    "n2-standard-8", "n2-standard-16", "n2-standard-32", "n2-standard-48", "n2-standard-64", "n2-standard-80",
    "n2-standard-128", "n2-highmem-16", "n2-highmem-32", "n2-highmem-64", "n2d-standard-64", "c3-standard-44",
    "c3-standard-88", "c3-highmem-22", "e2-standard-16", "e2-highmem-16", "n4-standard-64", "c4-standard-96",
    # shared-core and custom types (catalog.cpu_machine sizes them; the small ones only where no head runs)
    "e2-micro", "e2-small", "e2-medium", "e2-custom-medium-8192", "custom-32-196608", "n2-custom-48-262144",
    "n2-custom-8-81920-ext", "n2d-custom-96-393216", "e2-custom-32-131072", "n4-custom-64-262144",
)
# Custom machine types Compute Engine refuses, with what the refusal must say (catalog.CUSTOM_SHAPE_RULES)
REFUSED_CUSTOM_MACHINES = (
    ("custom-3-12288", "1 or an even number"), ("n2-custom-34-65536", "multiple of 4"),
    ("n2d-custom-6-12288", "2, 4, 8, 16"), ("e2-custom-1-4096", "even number from 2 to 32"),
    ("n2-custom-8-32100", "multiple of 256 MB"), ("n2-custom-8-2048", "at least 512 MB per vCPU"),
    ("n2-custom-8-81920", "add -ext"), ("e2-custom-8-81920", "no extended memory"),
    ("custom-2-1024", "at least 922 MB per vCPU"), ("n2-custom-8-700416-ext", "at most 638976 MB"),
    ("c2-custom-8-32768", "no custom shapes"), ("c3-custom-8-32768", "no custom shapes"),
    ("e2-custom-micro-4096", "1024 to 2048 MB"), ("n1-custom-8-32768", "no family prefix"),
)
ARM_MACHINES = ("t2a-standard-48", "c4a-standard-72", "c4a-highmem-72", "n4a-standard-64")
WORDS = ("main", "train", "eval", "serve", "big", "pod", "ml", "exp", "team", "llm", "jax", "tpu", "batch", "x")
ENV_NAMES = ("STEPS", "MODEL", "HF_HOME", "WANDB_PROJECT", "LOG_LEVEL", "XLA_FLAGS", "LIBTPU_INIT_ARGS", "TOKEN",
             "DATASET", "_PRIVATE", "seed")
IMAGES = ("us-docker.pkg.dev/acme-ml/train/trainer", "gcr.io/acme/jax-runner", "ghcr.io/acme/pw",
          "europe-west4-docker.pkg.dev/acme/ml/app", "localhost:5000/team/job")
TAGS = ("2026-11-20", "v1.2.3", "jax-0.9.2", "20260608-jax_0.10.1", "sha-4f2c1a9", "1")
PATHWAYS_VERSIONS = ("jax-0.9.2", "jax-0.8.1", "20260608-jax_0.10.1", "v0.4")


def choice(options: Any) -> st.SearchStrategy[Any]:
    """`st.sampled_from`, built once per distinct option tuple (new strategies are costly to validate)."""
    options = tuple(options)
    try:
        return _sampled(options)
    except TypeError:  # unhashable options (dicts)
        return st.sampled_from(options)


@functools.lru_cache(maxsize=4096)
def _sampled(options: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    return st.sampled_from(options)


def region_zones(region: str) -> list[str]:
    return [f"{region}-{letter}" for letter in ZONE_LETTERS]


def field_keys(model: Any) -> tuple[str, ...]:
    """Every key a model accepts: the camelCase alias and (populate_by_name) the Python name."""
    return tuple(sorted({key for name, f in model.model_fields.items() for key in (name, f.alias or name)}))


# --- the facts a test needs about a valid draw --------------------------------------------------------------


@dataclass
class PoolFacts:
    name: str
    generation: str
    shape: SliceShape
    slices: int
    capacity: str
    zone: str
    form: str  # bare | alias | shorthand | shorthand+topology
    create: bool = True  # false: an adopted cluster's existing pools, read (tpuPools[].create)


@dataclass
class WorkloadFacts:
    name: str
    runtime: str
    mode: str  # pathways: default | headless | colocated; jax: tpu | cpu
    pool: Optional[str]


# the tpuPools keys refused on a group of existing pools (create: false)
CREATE_ONLY_TPU_POOL_KEYS = ("reservation", "maxRunDuration", "autoscaling", "networkProfile", "diskSizeGb", "diskType",
                             "imageStreaming", "imageCacheDisk", "autoUpgrade", "maxPodsPerNode",
                             "hostMaintenanceInterval", "protect", "labels")


@dataclass
class ValidDraw:
    config: dict[str, Any]
    cluster: str
    region: str
    kueue: bool
    pools: list[PoolFacts]
    workloads: list[WorkloadFacts]
    secret_values: list[str]
    features: set[str] = field(default_factory=set)

    @property
    def node_pool_names(self) -> list[str]:
        """The node pools the stack creates (existing ones are read, not created)."""
        return [f"{self.cluster}-{p.name}-{i}" for p in self.pools if p.create for i in range(p.slices)]


# --- small value strategies -------------------------------------------------------------------------------


@st.composite
def dns_name(draw, max_len: int, min_len: int = 1) -> str:
    """A lower-case DNS-1035-style name of min_len..max_len characters (words, digits and '-')."""
    words = draw(st.lists(choice(WORDS), min_size=1, max_size=3))
    name = "-".join(words)
    if draw(st.booleans()):
        name += str(draw(st.integers(0, 99)))
    if draw(st.integers(0, 5)) == 0:  # sometimes exactly the longest allowed
        name = (name + "z" * max_len)[:max_len]
    name = name[:max_len].rstrip("-")
    while len(name) < min_len:
        name += "a"
    return name


@functools.cache
def gce_labels() -> st.SearchStrategy[dict[str, str]]:
    """Cluster labels (GCE: lower-case)."""
    key = st.from_regex(r"[a-z][a-z0-9_-]{0,12}", fullmatch=True).filter(lambda k: k not in MANAGED_GCE_LABELS)
    value = st.from_regex(r"[a-z0-9_-]{0,12}", fullmatch=True)
    return st.dictionaries(key, value, max_size=3)


@functools.cache
def node_labels() -> st.SearchStrategy[dict[str, str]]:
    """Node-pool labels (Kubernetes: [prefix/]name, mixed case, '.', '_' and '-')."""
    text = st.from_regex(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,10}[A-Za-z0-9])?", fullmatch=True).filter(_yaml_string)
    key = st.one_of(choice(["team", "Team", "example.com/part-of", "acme.com/cost-center", "tier_1"]), text)
    value = st.one_of(st.just(""), text)
    return st.dictionaries(key, value, max_size=3)


# Strings PyYAML writes unquoted that a YAML 1.2 reader (the Pulumi CLI's, config/stack_file.py) reads as numbers:
# `08`, `1e5`, `0x1f` — a label the test meant as text would reach the config as an int.
_YAML12_NUMBER = re.compile(r"[-+]?([0-9]+|0o[0-7]+|0x[0-9a-fA-F]+|(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)")


def _yaml_string(text: str) -> bool:
    return _YAML12_NUMBER.fullmatch(text) is None


@st.composite
def image(draw) -> str:
    base = draw(choice(IMAGES))
    if draw(st.integers(0, 4)) == 0:
        return base + "@sha256:" + draw(st.text("0123456789abcdef", min_size=64, max_size=64))
    return f"{base}:{draw(choice(TAGS))}"


@functools.cache
def command() -> st.SearchStrategy[Any]:
    return st.one_of(
        choice(["python3 train.py", "python3 -m trainer.main --config=configs/small.yaml",
                "bash -c 'echo start && python3 run.py'", "sleep infinity"]),
        st.lists(choice(["python3", "-m", "trainer", "--steps=10", "a b", "$(HOME)", "'quoted'"]),
                 min_size=1, max_size=4),
    )


@functools.cache
def env_values() -> st.SearchStrategy[str]:
    return st.one_of(choice(["1", "0", "", "gs://acme/data", "--xla_foo=true", "a b c", "$(JOBSET_NAME)"]),
                     st.text(string.ascii_letters + string.digits + "-_=./ ", max_size=12).filter(_yaml_string))


@functools.lru_cache(maxsize=256)
def env_names(forbidden: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.one_of(choice(ENV_NAMES), st.from_regex(r"[A-Z_][A-Z0-9_]{0,10}", fullmatch=True)) \
        .filter(lambda name: name not in forbidden)


@functools.cache
def quantity(kind: str) -> st.SearchStrategy[str]:
    return choice(["500m", "1", "2", "4", "8"] if kind == "cpu" else ["512Mi", "1Gi", "4Gi", "8Gi", "16Gi"])


# --- sections ---------------------------------------------------------------------------------------------


@st.composite
def cluster_section(draw, name: str, region: str) -> tuple[dict[str, Any], str]:
    zonal = draw(st.integers(0, 3)) == 0
    location = draw(choice(region_zones(region))) if zonal else region
    cluster: dict[str, Any] = {"name": name, "location": location}
    adopt = draw(st.integers(0, 6)) == 0
    # fields that only shape a created cluster are refused with create: false (gke_rules "create-only")
    if not adopt and draw(st.booleans()):
        cluster["releaseChannel"] = draw(choice(RELEASE_CHANNELS))
    if adopt:
        cluster["create"] = False
    if not adopt and draw(st.integers(0, 4)) == 0:
        # at or above every floor of the rulebook (tpu7x, network profile, flex-start)
        cluster["version"] = draw(choice(["1.34", "1.34.1-gke.1829001", "1.35.0"]))
    if draw(st.integers(0, 4)) == 0:
        cluster["privateNodes"] = True
        if draw(st.booleans()):
            cluster["masterIpv4CidrBlock"] = f"172.16.{draw(st.integers(0, 255))}.{16 * draw(st.integers(0, 15))}/28"
    for key in ("protect",) if adopt else ("deletionProtection", "protect"):
        if draw(st.booleans()):
            cluster[key] = draw(st.booleans())
    if not adopt and draw(st.booleans()):
        cluster["labels"] = draw(gce_labels())
    account = draw(choice([None, {"create": False}, {"create": True},
                           {"email": "gke-nodes@acme-ml-dev.iam.gserviceaccount.com"}]))
    if account is not None:
        cluster["nodeServiceAccount"] = account
    # an adopted cluster's network is read only for the firewall / NAT of private nodes (checks.ignored_key_problems)
    if draw(st.integers(0, 5)) == 0 and (not adopt or cluster.get("privateNodes")):
        cluster["network"] = "vpc-ml"
        if not adopt:
            cluster["subnetwork"] = "pw-subnet"
    return cluster, location


def _shape_key(pool: PoolFacts) -> tuple[str, str, str, str]:
    return pool.generation, pool.shape.topology, pool.shape.machine_type, pool.zone.rsplit("-", 1)[0]


def twin_pool(pools: list[dict[str, Any]], facts: list[PoolFacts]) -> None:
    """Give the second group the first one's shape, slices and zone (keeping its own capacity where the generation
    allows it): groups an ordered fallback may list together."""
    first, second = pools[0], pools[1]
    for key in ("type", "topology", "machineType", "slices", "zone"):
        second.pop(key, None)
        if key in first:
            second[key] = first[key]
    for key in ("diskType", "networkProfile"):  # each generation's own values
        second.pop(key, None)
    capacity = facts[1].capacity
    if capacity in ("flex-start", "queued") and not GENERATIONS[facts[0].generation].flex_start:
        capacity = "spot"
        second["capacity"] = capacity
        for key in ("maxRunDuration", "autoscaling"):
            second.pop(key, None)
    if capacity == "reservation" and len(second.get("reservations") or []) not in (0, 1, facts[0].slices):
        second["reservations"] = second["reservations"][:1]
    facts[1] = dataclasses.replace(facts[0], name=facts[1].name, capacity=capacity)


@st.composite
def tpu_pool(draw, name: str, slices: int, region: str, kueue: bool) -> tuple[dict[str, Any], PoolFacts]:
    gen = GENERATIONS[draw(choice(TPU_TYPES))]
    form = draw(choice(["bare", "alias", "shorthand", "shorthand+topology"]))
    pool: dict[str, Any] = {"name": name}
    if form.startswith("shorthand"):
        sizes = sorted({chips_of(t) * gen.cores_per_chip for t in gen.topologies})
        alias = draw(choice(gen.aliases))
        pool["type"] = f"{alias}-{draw(choice(sizes))}"
        _, topology = parse_shorthand(pool["type"])
        assert topology is not None
        if form == "shorthand+topology":  # an explicit topology with the same number of chips is allowed
            topology = draw(choice([t for t in gen.topologies if chips_of(t) == chips_of(topology)]))
            pool["topology"] = topology
    else:
        prefix = gen.name if form == "bare" else draw(choice(gen.aliases))
        pool["type"] = prefix.upper() if draw(st.integers(0, 5)) == 0 else prefix
        topology = draw(choice(gen.topologies))
        pool["topology"] = topology
    machine_type = None
    if draw(st.integers(0, 2)) == 0:
        machine_type = draw(choice([m.name for m in machine_types_for(gen.name, topology)]))
        pool["machineType"] = machine_type
    shape = resolve(gen.name, topology, machine_type)
    if slices > 1 or draw(st.booleans()):
        pool["slices"] = slices
    pool["zone"] = draw(choice(region_zones(region)))
    # queued pools are flex-start pools too (GKE's recipe): only generations with flex-start
    capacities = [c for c in CAPACITIES if (c not in ("flex-start", "queued") or gen.flex_start)
                  and (c != "queued" or kueue)]
    capacity = draw(choice(capacities))
    if capacity != "on-demand" or draw(st.booleans()):
        pool["capacity"] = capacity
    if capacity == "reservation" and draw(st.integers(0, 3)) == 0:
        # a reservation per slice: one entry every slice consumes, or one per slice (slice i takes entry i)
        count = draw(choice(sorted({1, slices})))
        pool["reservations"] = [draw(choice([f"res-{i}", {"name": f"res-{i}", "block": f"block-{i}"},
                                             {"name": "shared", "project": "acme-shared-reservations",
                                              "block": "b", "subBlock": f"s-{i}"}])) for i in range(count)]
    elif capacity == "reservation":
        reservation = draw(choice(["acme-res", "v6e-east5", "shared-block-res"]))
        if draw(st.booleans()):
            pool["reservation"] = reservation
        else:
            spec: dict[str, Any] = {"name": reservation}
            if draw(st.booleans()):
                spec["project"] = "acme-shared-reservations"
            if draw(st.booleans()):
                spec["block"] = "block-1"
                if draw(st.booleans()):
                    spec["subBlock"] = "sub-2"
            pool["reservation"] = spec
    if capacity == "flex-start" and draw(st.booleans()):
        pool["maxRunDuration"] = draw(choice(["600s", "10m", "90m", "24h", "7d", "3600s", "167h"]))
    if capacity in ("flex-start", "queued"):
        if draw(st.booleans()):
            pool["autoscaling"] = True
    elif draw(st.booleans()):
        pool["autoscaling"] = draw(st.booleans())
    if draw(st.booleans()):
        pool["networkProfile"] = draw(st.booleans()) if gen.name in NETWORK_PROFILE_GENERATIONS else False
    if draw(st.booleans()):
        pool["diskSizeGb"] = draw(st.integers(10, 2000))
    if draw(st.booleans()):
        pool["diskType"] = draw(choice(TPU_BOOT_DISK_TYPES[gen.name]))  # each generation's boot disks (gke_rules)
    for key in ("imageStreaming", "autoUpgrade", "protect"):
        if draw(st.integers(0, 3)) == 0:
            pool[key] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        pool["maxPodsPerNode"] = draw(st.integers(8, 256))
    if draw(st.integers(0, 3)) == 0:
        pool["hostMaintenanceInterval"] = draw(choice(MAINTENANCE))
    if draw(st.integers(0, 3)) == 0:
        pool["labels"] = draw(node_labels())
    return pool, PoolFacts(name=name, generation=gen.name, shape=shape, slices=slices, capacity=capacity,
                           zone=pool["zone"], form=form)


def head_need(resources: Optional[dict[str, Any]]) -> tuple[float, float]:
    """CPU cores and GB the Pathways head pod requests with these user-container resources."""
    requests = dict(DEFAULT_USER_REQUESTS)
    if resources is not None and "requests" in resources:
        requests = resources["requests"]
    cpu = float(SERVER_REQUESTS["cpu"]) + float(parse_quantity(requests.get("cpu", "0")))
    memory = float(SERVER_REQUESTS["memory"] / GB) + float(parse_quantity(requests.get("memory", "0"))) / 1e9
    return cpu, memory


def holds_head(vcpus: float, memory_gib: float, need: tuple[float, float]) -> bool:
    """A conservative fit (GKE reserves a few % of a node): 10 % + 1 CPU and 15 % + 2 GB of headroom."""
    return vcpus >= need[0] * 1.1 + 1 and memory_gib * 2**30 / 1e9 >= need[1] * 1.15 + 2


@st.composite
def resources(draw) -> Optional[dict[str, Any]]:
    if draw(st.integers(0, 2)):
        return None
    requests = {"cpu": draw(quantity("cpu")), "memory": draw(quantity("memory"))}
    if draw(st.booleans()):
        return {"requests": requests}  # limits keep their defaults (24 CPU, 100G), above every request here
    limits = {k: f"{2 * int(parse_quantity(v))}" if k == "cpu" and v != "500m" else v for k, v in requests.items()}
    return {"requests": requests, "limits": limits}


def can_host_a_head(pool: PoolFacts) -> bool:
    """A single-slice pool whose TPU host the catalog sizes and that holds a head with the default user container."""
    host = TPU_HOSTS.get(pool.shape.machine_type)
    return pool.slices == 1 and host is not None and holds_head(host.vcpus, host.memory_gib, head_need(None))


@st.composite
def pathways_workload(draw, name: str, pool: PoolFacts, secrets: list[str], mode: str) -> tuple[dict[str, Any], str]:
    """A Pathways workload on `pool` in `mode`; colocated falls back to default where the head cannot go."""
    res = draw(resources())
    host = TPU_HOSTS.get(pool.shape.machine_type)
    if mode == "colocated" and can_host_a_head(pool) and res is not None and host is not None \
            and not holds_head(host.vcpus, host.memory_gib, head_need(res)):
        res = None  # the default user container, which the pool was chosen to hold
    # a head on a TPU host the catalog cannot size is refused (config/pathways_checks.py)
    if mode == "colocated" and not (pool.slices == 1 and host is not None
                                    and holds_head(host.vcpus, host.memory_gib, head_need(res))):
        mode = "default"
    w: dict[str, Any] = {"name": name}
    if draw(st.booleans()):
        w["runtime"] = "pathways"
    w["tpuPool"] = pool.name
    if mode != "default" or draw(st.booleans()):
        w["mode"] = mode
    pw: dict[str, Any] = {"gcsScratch": draw(choice(["gs://acme-pw/tmp", "gs://acme.ml-scratch",
                                                     "gs://a1b/deep/path/"]))}
    images = {}
    for component in ("server", "proxy", "worker", "colocatedPython"):
        if draw(st.integers(0, 4)) == 0:
            images[component] = draw(image())
    if images:
        pw["images"] = images
    if any(c not in images for c in ("server", "proxy", "worker")) or draw(st.booleans()):
        pw["version"] = draw(choice(PATHWAYS_VERSIONS))
    if draw(st.booleans()):
        pw["elasticSlices"] = draw(st.integers(0, pool.slices))
    if pw.get("elasticSlices") and draw(st.integers(0, 3)) == 0:  # only read with elastic slices
        pw["maxSliceRestarts"] = draw(st.integers(1, 10))
    if draw(st.integers(0, 3)) == 0:
        pw["metrics"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        flags = choice(["--foo=bar", "--xla_tpu_enable=true", "--v=1", "--temporary_flags_for_debugging=x=30m"])
        pw["flags"] = {c: draw(st.lists(flags, max_size=2, unique=True)) for c in ("server", "proxy", "worker")}
    if draw(st.integers(0, 3)) == 0:
        pw["env"] = {c: draw(st.dictionaries(env_names(MANAGED_ENV[c] + ("ABSL_FLAGS",)), env_values(), max_size=2))
                     for c in ("server", "proxy", "worker")}
    if draw(st.integers(0, 3)) == 0:  # Cluster Toolkit's ABSL_FLAGS (a user ABSL_FLAGS beside it is refused)
        pw["pipeUnreachableTimeout"] = draw(choice(["60s", "90s", "5m", "1h30m", "250ms"]))
    w["pathways"] = pw
    if mode in ("default", "colocated") and draw(st.integers(0, 3)) == 0:
        w["restartOnExitCodes"] = draw(st.lists(st.integers(1, 255), min_size=1, max_size=4, unique=True))
    if mode != "headless":
        w["image"] = draw(image())
        if draw(st.integers(0, 4)):
            w["command"] = draw(command())
        absl = ("ABSL_FLAGS",) if "pipeUnreachableTimeout" in pw else ()
        env = draw(st.dictionaries(env_names(MANAGED_ENV["user"] + absl), env_values(), max_size=3))
        if env:
            w["env"] = env
        if secrets and draw(st.booleans()):
            names = draw(st.lists(env_names(MANAGED_ENV["user"] + tuple(env)), min_size=1, max_size=2, unique=True))
            w["secretEnv"] = {n: draw(choice(secrets)) for n in names}
        if draw(st.integers(0, 4)) == 0:
            w["privileged"] = True
        if draw(st.integers(0, 3)) == 0:
            w["containerName"] = draw(choice(["main", "trainer", "jax-tpu", "user-code"]))
        if res is not None:
            w["resources"] = res
    if draw(st.integers(0, 3)) == 0:
        volumes = draw(st.lists(choice(["ckpt", "data", "models"]), min_size=1, max_size=3, unique=True))
        w["gcsFuse"] = [{"name": v, "bucket": f"acme-{v}", "mountPath": f"/{v}",
                         "workers": True if mode == "headless" else draw(st.booleans()),
                         **({"readOnly": True} if draw(st.booleans()) else {}),
                         **({"mountOptions": ["implicit-dirs"]} if draw(st.booleans()) else {})} for v in volumes]
    common_workload_options(draw, w)
    if draw(st.integers(0, 4)) == 0:
        w["imagePullPolicy"] = draw(choice(PULL_POLICIES))
    if draw(st.integers(0, 5)) == 0:
        w["imagePullSecrets"] = ["regcred"]
    return w, mode


def common_workload_options(draw, w: dict[str, Any]) -> None:
    if draw(st.booleans()):
        w["maxRestarts"] = draw(st.integers(0, 1000))
    if draw(st.integers(0, 3)) == 0:  # JobSet modes of both runtimes (perSlice is drawn with the JobSet release)
        w["restart"] = {"strategy": draw(choice(RESTART_STRATEGIES))}
    if draw(st.integers(0, 2)) == 0:
        w["priorityClass"] = draw(choice(PRIORITY_NAMES))
    if draw(st.integers(0, 3)) == 0:
        w["serviceAccount"] = draw(choice(["trainer", "default", "ml.trainer", "pathways-sa", "a" * 63]))
    if draw(st.integers(0, 3)) == 0:
        w["terminationGracePeriodSeconds"] = draw(st.integers(0, 86400))


@st.composite
def jax_workload(draw, name: str, pool: Optional[PoolFacts], secrets: list[str]) -> tuple[dict[str, Any], str]:
    platform = "cpu" if pool is None else "tpu"
    managed = jax_managed_env(platform)
    w: dict[str, Any] = {"name": name, "runtime": "jax", "image": draw(image()), "command": draw(command())}
    if pool is not None:
        w["tpuPool"] = pool.name
    else:
        processes = draw(st.integers(1, 8))
        jax: dict[str, Any] = {"processes": processes}
        if draw(st.booleans()):
            jax["slices"] = draw(choice([d for d in range(1, processes + 1) if processes % d == 0]))
        if draw(st.booleans()):
            jax["cpu"] = draw(st.one_of(quantity("cpu"), st.integers(1, 8)))
        if draw(st.booleans()):
            jax["memory"] = draw(quantity("memory"))
        w["jax"] = jax
    env = draw(st.dictionaries(env_names(managed), env_values(), max_size=3))
    if env:
        w["env"] = env
    if secrets and draw(st.booleans()):
        names = draw(st.lists(env_names(managed + tuple(env)), min_size=1, max_size=2, unique=True))
        w["secretEnv"] = {n: draw(choice(secrets)) for n in names}
    if draw(st.integers(0, 4)) == 0:
        w["privileged"] = True
    common_workload_options(draw, w)
    return w, platform


@st.composite
def valid_configs(draw) -> ValidDraw:
    """A stack config the models must accept and the program must plan."""
    features: set[str] = set()
    region = draw(choice(REGIONS))
    n_pools = draw(choice([0, 1, 1, 1, 2, 2, 3]))
    cluster_name = draw(dns_name(max_len=40 if n_pools == 0 else 20))
    cluster, location = draw(cluster_section(cluster_name, region))
    kueue = draw(st.booleans())
    config: dict[str, Any] = {"gcp:project": draw(choice(["acme-ml-dev", "acme-ml-prod", "my-project-123"])),
                              P + "cluster": cluster}

    # pool groups: <cluster>-<group>-<i> must stay within GKE's 40 characters
    pools, facts = [], []
    for _ in range(n_pools):
        # now and then a group large enough for two-digit node-pool indexes (each slice is a resource to plan)
        slices = draw(choice([1, 1, 2, 3, 4])) if draw(st.integers(0, 9)) else draw(choice([11, 12]))  # single-slice pools take colocated heads
        budget = min(20, 40 - len(cluster_name) - 2 - len(str(slices - 1)))
        name = draw(dns_name(max_len=budget).filter(lambda n: n not in {f.name for f in facts}))
        pool, fact = draw(tpu_pool(name, slices, region, kueue))
        pools.append(pool)
        facts.append(fact)
    # a twin takes the first group's slices: its own node-pool names must still fit in 40 characters
    if kueue and len(pools) >= 2 and len(f"{cluster_name}-{pools[1]['name']}-{facts[0].slices - 1}") <= 40 \
            and draw(st.booleans()):
        twin_pool(pools, facts)  # two groups of one shape: an ordered fallback may name both
        features.add("fallback-twins")
    if pools or draw(st.booleans()):
        config[P + "tpuPools"] = pools

    secrets: dict[str, Any] = {}
    if draw(st.booleans()):
        for key in draw(st.lists(choice(["hfToken", "wandbKey", "dbPassword", "token"]), min_size=1,
                                 max_size=3, unique=True)):
            secrets[key] = ({"secure": "v1:AAAAbWFkZS11cA=="} if draw(st.booleans())
                            else f"plaintext-{key}-{draw(st.integers(1000, 9999))}")
        config[P + "secrets"] = secrets

    workloads, workload_facts = [], []
    for _ in range(draw(st.integers(0, 4 if facts else 2))):
        name = draw(dns_name(max_len=MAX_WORKLOAD_NAME).filter(lambda n: n not in {w.name for w in workload_facts}
                                                               and n[0].isalpha()))
        runtime = draw(choice(RUNTIMES)) if facts else "jax"
        if runtime == "pathways":
            # first, and colocated twice as likely: it needs a single-slice pool whose host holds the head
            mode = draw(choice((*MODES, "colocated")))
            pool = draw(choice([f for f in facts if mode != "colocated" or can_host_a_head(f)] or facts))
            w, mode = draw(pathways_workload(name, pool, sorted(secrets), mode))
        else:
            # GKE multislice needs multi-host slices: a jax workload may use a pool of several slices only then
            tpu_pools = [f for f in facts if f.slices == 1 or f.shape.multi_host]
            pool = draw(choice([None, *tpu_pools]))
            w, mode = draw(jax_workload(name, pool, sorted(secrets)))
        workloads.append(w)
        workload_facts.append(WorkloadFacts(name=name, runtime=runtime, mode=mode, pool=pool.name if pool else None))
        features.add(f"workload:{runtime}:{mode}")
        features.update(key for key in ("env", "secretEnv", "priorityClass", "gcsFuse", "resources") if key in w)
    if kueue:
        for w in workloads:
            same = [f.name for f in facts if w.get("tpuPool") and _shape_key(f) == _shape_key(
                next(g for g in facts if g.name == w["tpuPool"]))]
            if (len(same) > 1 and w.get("runtime") == "pathways" and w.get("mode", "default") in ("default", "headless")
                    and draw(st.integers(0, 3)) != 0):
                del w["tpuPool"]
                w["tpuPools"] = same  # every group of the shape, in stack order (one order for every list)
                features.add("ordered-fallback")
    if workloads or draw(st.booleans()):
        config[P + "workloads"] = workloads
    if cluster.get("create", True) and cluster.get("nodeServiceAccount") != {"create": False} \
            and draw(st.integers(0, 4)) == 0:
        nap: dict[str, Any] = {"enabled": True}
        if facts and draw(st.booleans()):
            nap["tpuChipsMax"] = {facts[0].generation: facts[0].shape.chips * facts[0].slices}
        if draw(st.booleans()):
            nap["cpuMax"] = draw(st.integers(64, 4096))
            nap["memoryMaxGb"] = draw(st.integers(256, 16384))
        if not facts or draw(st.booleans()):
            nap["locations"] = [draw(choice(region_zones(region)))]
        cluster["autoprovisioning"] = nap
        features.add("autoprovisioning")

    config[P + "cpuPool"] = draw(cpu_pool_section(region, location, facts, workloads,
                                                  [f"{cluster_name}-{p.name}-{i}" for p in facts
                                                   for i in range(p.slices)]))
    if not config[P + "cpuPool"] and draw(st.booleans()):
        del config[P + "cpuPool"]
    if kueue or draw(st.booleans()):
        # Kueue settings with kueue.enabled false are refused (nothing is installed)
        config[P + "kueue"] = {"enabled": kueue, **(draw(addon_version("kueue")) if kueue else {})}
    jobset = draw(addon_version("jobset"))
    jobset_version = jobset.get("version", RELEASES["jobset"].default)
    # per-slice restart: JobSet >= v0.12.0 (its RestartJob gate is turned on), Pathways JobSet workloads only
    if version_key(jobset_version) >= version_key(RESTART_JOB_SINCE):
        for w, fact in zip(workloads, workload_facts):
            if fact.runtime == "pathways" and draw(st.integers(0, 4)) == 0:
                w["restart"] = {**w.get("restart", {}), "perSlice": True}
                w["maxRestarts"] = w.get("maxRestarts") or 1  # per-slice restarts count against maxRestarts
                features.add("restart:perSlice")
    gates = jobset_feature_gates(jobset_version)
    if gates and draw(st.integers(0, 4)) == 0:  # gates the release knows; never InPlaceRestart on
        names = draw(st.lists(choice(tuple(sorted(gates))), min_size=1, max_size=2, unique=True))
        jobset["featureGates"] = {n: False if n == "InPlaceRestart" else draw(st.booleans()) for n in names}
        if jobset["featureGates"].get("RestartJob") is False:
            jobset["featureGates"]["RestartJob"] = True  # perSlice may be drawn above
    # multi-tier checkpointing: the cluster's, and the JobSet TPU workloads that mount it
    if facts and draw(st.integers(0, 4)) == 0:
        cluster["multiTierCheckpointing"] = {"bucket": "acme-ckpt",
                                             "inMemoryVolumeSize": draw(choice(["1Gi", "4Gi", "16Gi"]))}
        cluster["projectNumber"] = "123456789012"
        features.add("mtc")
        for w, fact in zip(workloads, workload_facts):
            pathways_ok = (fact.runtime == "pathways" and w.get("pathways", {}).get("images", {}).get("colocatedPython")
                           and not any(v["mountPath"] == "/local-ckpt" for v in w.get("gcsFuse", [])))
            if (pathways_ok or (fact.runtime == "jax" and fact.pool is not None)) and draw(st.booleans()):
                w["multiTierCheckpointing"] = {"mountPath": "/local-ckpt"}
    if jobset or draw(st.booleans()):
        config[P + "jobset"] = jobset
    if draw(st.integers(0, 2)) == 0:
        config[P + "namespace"] = draw(namespace(kueue))

    # an adopted cluster's existing slices (tpuPools[].create: false): not with Kueue, not under a jax workload, and
    # without the keys that only shape pools the stack creates (config/checks.py CREATE_ONLY_TPU_POOL_FIELDS)
    if not cluster.get("create", True) and not kueue:
        jax_pools = {w.pool for w in workload_facts if w.runtime == "jax"}
        for i, f in enumerate(facts):
            if f.name not in jax_pools and f.capacity != "reservation" and draw(st.integers(0, 2)) == 0:
                pool = pools[i]
                pool["create"] = False
                for key in CREATE_ONLY_TPU_POOL_KEYS:
                    pool.pop(key, None)
                facts[i] = dataclasses.replace(f, create=False)
                features.add("tpu-pool-create:false")

    # autoUpgrade: false only without a release channel (gke_rules "auto-upgrade-channel")
    if cluster.get("create", True) and cluster.get("releaseChannel", "REGULAR") != "UNSPECIFIED":
        for pool in pools:
            if pool.get("autoUpgrade") is False:
                pool["autoUpgrade"] = True
    for f in facts:
        features.update({f"generation:{f.generation}", f"capacity:{f.capacity}", f"form:{f.form}",
                         f"multi-host:{f.shape.multi_host}"})
        if f.slices > 1:
            features.add("multislice")
        if f.slices > 10:
            features.add("node-pool-index:2-digits")
    features.update({f"kueue:{kueue}", f"groups:{len(facts)}", f"cluster-create:{cluster.get('create', True)}",
                     f"zonal-cluster:{location != region}"})
    if secrets:
        features.add("secrets")
    # The Ironwood keys, drawn last so that the draws above stay as they were (the derandomized run's coverage):
    # the NUMA-aware kubelet on tpu7x groups, XPK's parallel containers for jax on tpu7x-standard-4t, a group of
    # reserved 4x4x4 sub-blocks for dynamic slicing (Kueue on, Rapid channel, a created cluster) with now and then
    # a jax workload asking GKE's slice controller for its slice, and the second NIC (the accelerator network
    # profile, v6e's default, off).
    for pool, fact in zip(pools, facts):
        if fact.generation == "tpu7x" and pool.get("create", True) and draw(st.integers(0, 3)) == 0:
            pool["numaAware"] = True  # shapes a pool the stack creates: never on existing slices (create: false)
            features.add("numa-aware")
    on_4t = {f.name for f in facts if f.shape.machine_type == "tpu7x-standard-4t"}
    for w in workloads:
        if w.get("runtime") == "jax" and w.get("tpuPool") in on_4t and draw(st.booleans()):
            w["parallelContainers"] = 2
            features.add("parallel-containers")
    if (kueue and cluster.get("create", True) and len(cluster_name) <= 20 and draw(st.integers(0, 3)) == 0
            and "dyn" not in {f.name for f in facts}):
        sub_blocks = draw(st.integers(1, 4))
        zone = draw(choice(region_zones(region)))
        pools.append({"name": "dyn", "type": "tpu7x", "topology": "4x4x4", "slices": sub_blocks, "zone": zone,
                      "capacity": "reservation", "reservation": "acme-iw", "dynamicSlicing": True})
        facts.append(PoolFacts(name="dyn", generation="tpu7x", shape=resolve("tpu7x", "4x4x4"), slices=sub_blocks,
                               capacity="reservation", zone=zone, form="bare"))
        config[P + "tpuPools"] = pools
        cluster["releaseChannel"] = "RAPID"
        cluster.pop("version", None)
        for pool in pools:  # node auto-upgrade cannot be off under a release channel
            if pool.get("autoUpgrade") is False:
                pool["autoUpgrade"] = True
        features.add("dynamic-slicing")
        if draw(st.booleans()):
            name = draw(dns_name(max_len=MAX_WORKLOAD_NAME).filter(
                lambda n: n not in {w.name for w in workload_facts} and n[0].isalpha()))
            topology = draw(choice(["4x4x4", "2x2x1", "2x4x4"] + (["4x4x8"] if sub_blocks >= 2 else [])))
            workloads.append({"name": name, "runtime": "jax", "tpuPool": "dyn", "image": draw(image()),
                              "command": draw(command()), "dynamicSlice": {"topology": topology}})
            if draw(st.booleans()):
                workloads[-1]["parallelContainers"] = 2
                features.add("parallel-containers")
            workload_facts.append(WorkloadFacts(name=name, runtime="jax", mode="tpu", pool="dyn"))
            config[P + "workloads"] = workloads
            features.add("dynamic-slice-workload")
    if cluster.get("create", True) and draw(st.integers(0, 4)) == 0:
        cluster["additionalNetworks"] = [{"network": "iw-data", "subnetwork": "iw-data-sub",
                                          **({"deviceMode": "RDMA"} if draw(st.booleans()) else {})}]
        for pool in pools:
            pool["networkProfile"] = False
        features.add("additional-networks")
    for f in facts[-1:]:
        if f.name == "dyn":
            features.update({f"generation:{f.generation}", f"capacity:{f.capacity}"})
    keys = list(config)  # the order of keys in a stack file does not matter
    order = draw(st.permutations(keys))
    return ValidDraw(config={k: config[k] for k in order}, cluster=cluster_name, region=region, kueue=kueue,
                     pools=facts, workloads=workload_facts,
                     secret_values=[v for v in secrets.values() if isinstance(v, str)], features=features)


@st.composite
def cpu_pool_section(draw, region: str, location: str, pools: list[PoolFacts], workloads: list[dict[str, Any]],
                     tpu_node_pools: list[str]) -> dict[str, Any]:
    """The head pool: big enough for every Pathways head placed on it (catalog.cpu_machine sizes)."""
    heads = [head_need(w.get("resources")) for w in workloads
             if w.get("runtime", "pathways") == "pathways" and w.get("mode", "default") != "colocated"]

    # each JAX process on the CPU pool must fit one node (config/checks.jax_problems, GKE allocatable), with the
    # model's default size where none is given (JaxSettings: 1 CPU, 4Gi)
    defaults = JaxSettings()
    jax_sizes = [(float(parse_quantity(str((w.get("jax") or {}).get("cpu", defaults.cpu)))),
                  float(parse_quantity(str((w.get("jax") or {}).get("memory", defaults.memory)))))
                 for w in workloads if w.get("runtime") == "jax" and not w.get("tpuPool")]

    def fits(machine_type: str) -> bool:
        machine = cpu_machine(machine_type)
        assert machine is not None, machine_type  # a known shape (Kueue derives its CPU quota from it)
        alloc = gke_allocatable(machine)
        return (all(holds_head(machine.vcpus, machine.memory_gib, need) for need in heads)
                and all(cpu < alloc.millicores / 1000 and memory < alloc.memory_bytes for cpu, memory in jax_sizes))

    cpu: dict[str, Any] = {}
    default = CpuPoolConfig().machine_type
    if not (fits(default) and draw(st.booleans())):
        cpu["machineType"] = draw(choice([m for m in CPU_MACHINES if fits(m)]))
    if draw(st.booleans()):
        cpu["name"] = draw(choice(["cpu-np", "head", "cpu", "system-pool"]).filter(
            lambda n: n not in tpu_node_pools))
    # one head per node (the head guard, fit.py): the pool can grow to a node per head
    if draw(st.booleans()) or len(heads) > CpuPoolConfig().max_nodes:
        low = draw(st.integers(0, 3))
        cpu["minNodes"], cpu["maxNodes"] = low, draw(st.integers(max(low, 1, len(heads)), max(8, len(heads))))
    regional = location == region
    if (regional and not pools) or draw(st.integers(0, 3)) == 0:
        cpu["zone"] = draw(choice(region_zones(region)))
    if draw(st.integers(0, 3)) == 0:
        cpu["diskSizeGb"] = draw(st.integers(10, 1000))
    if draw(st.integers(0, 3)) == 0:
        machine_type = cpu.get("machineType", default)
        # Hyperdisk-only families refuse pd-* (gke_rules "hyperdisk-only")
        cpu["diskType"] = draw(choice([d for d in DISK_TYPES if not (hyperdisk_only(machine_type)
                                                                     and d.startswith("pd-"))]))
    if draw(st.integers(0, 4)) == 0:
        cpu["spot"] = True
    if draw(st.integers(0, 4)) == 0:
        cpu["labels"] = draw(node_labels())
    return cpu


@st.composite
def addon_version(draw, addon: str) -> dict[str, Any]:
    """Nothing (the pinned default), or a release at or after the oldest supported one."""
    if draw(st.booleans()):
        return {}
    major, minor, patch = version_key(RELEASES[addon].oldest)
    minor = draw(st.integers(minor, minor + 4))
    return {"version": f"v{major}.{minor}.{draw(st.integers(0, 3))}"}


def namespace(kueue: bool) -> st.SearchStrategy[str]:
    taken = {*RESERVED_NAMESPACES, RELEASES["jobset"].namespace, *([RELEASES["kueue"].namespace] if kueue else [])}
    return st.one_of(choice(["default", "ml", "team-a", "pathways"]), dns_name(max_len=63)) \
        .filter(lambda n: n not in taken)


# --- invalid configs: realistic mistakes --------------------------------------------------------------------


@dataclass(frozen=True)
class Mistake:
    kind: str
    site: str  # the part of the config it touches; two mistakes of one draw never share (or nest) a site
    path: str  # where the error must be reported
    fragments: tuple[str, ...]  # what that message must contain (the bad value, what is allowed)
    stage: str  # parse | pool | cross (see the module docstring)
    also: tuple[str, ...] = ()  # further sites it had to change to apply (e.g. a pool it resized)

    @property
    def claims(self) -> tuple[str, ...]:
        return (self.site, *self.also)


@dataclass
class InvalidDraw:
    config: dict[str, Any]
    base: ValidDraw
    mistakes: list[Mistake]


def show(value: Any) -> str:
    """How errors.Problem shows a bad value."""
    from pathways_gke.errors import show_value

    return show_value(value)


def quoted(choices: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(f"'{c}'" for c in choices)


@st.composite
def typo(draw, key: str, taken: tuple[str, ...]) -> str:
    """A one-edit typo of `key` that is not a key of the model (or already in the mapping)."""
    def edits() -> list[str]:
        out = [key[:i] + key[i + 1:] for i in range(len(key))]  # a letter dropped
        out += [key[:i] + key[i + 1] + key[i] + key[i + 2:] for i in range(len(key) - 1)]  # two swapped
        out += [key[:i] + key[i] + key[i:] for i in range(len(key))]  # a letter doubled
        out += [key.lower(), key + "s", "".join("_" + c.lower() if c.isupper() else c for c in key)]
        return [e for e in out if e and e != key and e not in taken]
    return draw(choice(sorted(set(edits()))))


# (draw, config to change in place, the valid draw it came from, sites already taken) -> the mistake made,
# or None when it does not apply to this config (then the config is left unchanged)
Mutation = Callable[[Any, dict[str, Any], ValidDraw, set[str]], Optional[Mistake]]
MISTAKES: dict[str, Mutation] = {}


def nested(a: str, b: str) -> bool:
    """`tpuPools` and `tpuPools[1]` overlap; `tpuPools[1]` and `tpuPools[2]` do not."""
    return a == b or a.startswith(b + "[") or b.startswith(a + "[")


def free(taken: set[str], site: str) -> bool:
    return not any(nested(site, t) for t in taken)


def mistake(kind: str, site: Optional[str] = None):
    """Register a mutation; with `site`, it is only offered while that site is free."""
    def register(fn: Mutation) -> Mutation:
        def guarded(draw, cfg, base, taken):
            return fn(draw, cfg, base, taken) if site is None or free(taken, site) else None
        MISTAKES[kind] = guarded
        return fn
    return register


def _pools(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    return cfg.get(P + "tpuPools") or []


def _workloads(cfg: dict[str, Any]) -> list[dict[str, Any]]:
    return cfg.get(P + "workloads") or []


def _free_choice(draw, taken: set[str], sites: list[str]) -> Optional[str]:
    choices = [s for s in sites if free(taken, s)]
    return draw(choice(choices)) if choices else None


# top level


@mistake("top-level-key-typo")
def _top_key_typo(draw, cfg, base, taken):
    # a section the config has (not a key an earlier typo made up)
    short = _free_choice(draw, taken, sorted(k[len(P):] for k in cfg if k.startswith(P) and k[len(P):] in KNOWN_KEYS))
    if short is None:
        return None
    key = P + short
    bad = draw(typo(short, KNOWN_KEYS))
    cfg[P + bad] = cfg.pop(key)
    return Mistake("top-level-key-typo", short, P + bad, ("unknown config key", short, "allowed:"), "parse")


@mistake("gcp-project", site="gcp")
def _gcp_project(draw, cfg, base, taken):
    bad = draw(choice([None, "Acme_ML", "ab", "123-project", "acme-ml-dev-", "x" * 31, 42]))
    if bad is None and draw(st.booleans()):
        del cfg["gcp:project"]
        return Mistake("gcp-project", "gcp", "gcp:project", ("must be set",), "parse")
    cfg["gcp:project"] = bad
    # the CLI passes every top-level value as text: null as '' (pulumi/pulumi workspace/loaders.go)
    return Mistake("gcp-project", "gcp", "gcp:project", ("must be set", show("" if bad is None else str(bad))), "parse")


@mistake("cluster-null", site="cluster")
def _cluster_null(draw, cfg, base, taken):
    cfg[P + "cluster"] = None
    return Mistake("cluster-null", "cluster", "cluster", ("is required but missing",), "parse")


@mistake("section-list-for-mapping")
def _list_for_mapping(draw, cfg, base, taken):
    if (key := _free_choice(draw, taken, ["cluster", "cpuPool", "jobset", "kueue"])) is None:
        return None
    cfg[P + key] = [cfg.get(P + key) or {}]
    return Mistake("section-list-for-mapping", key, key, ("must be a mapping",), "parse")


@mistake("section-mapping-for-list")
def _mapping_for_list(draw, cfg, base, taken):
    if (key := _free_choice(draw, taken, ["tpuPools", "workloads"])) is None:
        return None
    items = cfg.get(P + key) or []
    cfg[P + key] = items[0] if items else {"name": "main"}
    return Mistake("section-mapping-for-list", key, key, ("should be a valid list",), "parse")


@mistake("namespace-invalid", site="namespace")
def _namespace(draw, cfg, base, taken):
    # (`namespace: 7` is no mistake: the CLI hands the program the string "7", a valid namespace)
    bad = draw(choice(["ML", "team_a", "-ml", "ml.team", "x" * 64, ""]))
    cfg[P + "namespace"] = bad
    return Mistake("namespace-invalid", "namespace", "namespace", (show(bad), "is not a Kubernetes namespace"),
                   "parse")


@mistake("namespace-reserved", site="namespace")
def _namespace_reserved(draw, cfg, base, taken):
    choices = [*RESERVED_NAMESPACES, RELEASES["jobset"].namespace] + ([RELEASES["kueue"].namespace]
                                                                      if base.kueue else [])
    bad = draw(choice(choices))
    cfg[P + "namespace"] = bad
    return Mistake("namespace-reserved", "namespace", "namespace", (show(bad),), "cross")


@mistake("secrets-not-mapping", site="secrets")
def _secrets_list(draw, cfg, base, taken):
    bad = draw(choice([["hfToken"], "hfToken", 3]))
    cfg[P + "secrets"] = bad
    return Mistake("secrets-not-mapping", "secrets", "secrets", ("must be a mapping of secret names",), "parse")


# cluster


@mistake("cluster-key-typo", site="cluster")
def _cluster_typo(draw, cfg, base, taken):
    cluster = cfg[P + "cluster"]
    key = draw(choice(sorted(cluster)))
    bad = draw(typo(key, field_keys(ClusterConfig) + tuple(cluster)))
    cluster[bad] = cluster.pop(key)
    return Mistake("cluster-key-typo", "cluster", f"cluster.{bad}", ("unknown key", key), "parse")


@mistake("cluster-key-missing", site="cluster")
def _cluster_missing(draw, cfg, base, taken):
    key = draw(choice(["name", "location"]))
    del cfg[P + "cluster"][key]
    return Mistake("cluster-key-missing", "cluster", f"cluster.{key}", ("is required but missing",), "parse")


@mistake("cluster-name-invalid", site="cluster")
def _cluster_name(draw, cfg, base, taken):
    bad = draw(choice(["PW-dev", "pw_dev", "1pw", "pw-", "pw.dev", "a" * 41, "pw dev", 12]))
    cfg[P + "cluster"]["name"] = bad
    return Mistake("cluster-name-invalid", "cluster", "cluster.name", (show(bad),), "parse")


@mistake("cluster-location-invalid", site="cluster")
def _cluster_location(draw, cfg, base, taken):
    bad = draw(choice(["useast5", "us-east5-bb", "US-EAST5", "us east5", "east", "us-east-5"]))
    cfg[P + "cluster"]["location"] = bad
    return Mistake("cluster-location-invalid", "cluster", "cluster.location", (show(bad), "e.g. us-east5"), "parse")


@mistake("cluster-release-channel", site="cluster")
def _release_channel(draw, cfg, base, taken):
    bad = draw(choice(["regular", "FAST", "Stable", "beta"]))
    cfg[P + "cluster"]["releaseChannel"] = bad
    return Mistake("cluster-release-channel", "cluster", "cluster.releaseChannel",
                   (show(bad), *quoted(RELEASE_CHANNELS)), "parse")


@mistake("cluster-version", site="cluster")
def _cluster_version(draw, cfg, base, taken):
    bad = draw(choice(["v1.34", "latest", "1.x", "2.0", "1.34.1-gke", 1.34]))
    cfg[P + "cluster"]["version"] = bad
    return Mistake("cluster-version", "cluster", "cluster.version", (show(bad),), "parse")


@mistake("cluster-bool-word", site="cluster")
def _cluster_bool(draw, cfg, base, taken):
    key = draw(choice(["deletionProtection", "create", "privateNodes", "protect"]))
    bad = draw(choice(["sometimes", "enabled", "2", "nope"]))
    cfg[P + "cluster"][key] = bad
    return Mistake("cluster-bool-word", "cluster", f"cluster.{key}", (show(bad), "boolean"), "parse")


@mistake("master-cidr-invalid", site="cluster")
def _master_cidr(draw, cfg, base, taken):
    bad = draw(choice(["10.0.0.0/24", "8.8.8.0/28", "172.16.0.32", "172.16.0.33/28", "not-a-cidr"]))
    cfg[P + "cluster"].update(privateNodes=True, masterIpv4CidrBlock=bad)
    return Mistake("master-cidr-invalid", "cluster", "cluster.masterIpv4CidrBlock", (show(bad), "/28"), "parse")


@mistake("master-cidr-public-cluster", site="cluster")
def _master_cidr_public(draw, cfg, base, taken):
    cfg[P + "cluster"].update(privateNodes=False, masterIpv4CidrBlock="172.16.0.32/28")
    return Mistake("master-cidr-public-cluster", "cluster", "cluster.masterIpv4CidrBlock",
                   ("'172.16.0.32/28'", "private clusters only"), "cross")


@mistake("labels-invalid")
def _labels(draw, cfg, base, taken):
    """GCE labels on the cluster (lower case), Kubernetes labels on node pools."""
    sites = ["cluster", "cpuPool", *(f"tpuPools[{i}]" for i in range(len(_pools(cfg))))]
    if (site := _free_choice(draw, taken, sites)) is None:
        return None
    if site == "cluster":
        bad_key, bad_value = draw(choice([("Team", "ml"), ("team", "ML Platform"), ("1team", "ml"),
                                                   ("cost center", "x"), ("team", "a" * 64), ("acme.com/team", "x")]))
        target = cfg[P + "cluster"]
    else:
        bad_key, bad_value = draw(choice([("cost center", "x"), ("team", "a" * 64), ("team", "ML Platform"),
                                                   ("-team", "x"), ("team", "-x-"), ("a/b/c", "x"),
                                                   ("Acme.com/team", "x"), ("team", "a/b")]))
        target = _cpu(cfg) if site == "cpuPool" else _pools(cfg)[int(site[len("tpuPools["):-1])]
    target["labels"] = {bad_key: bad_value}
    return Mistake("labels-invalid", site, f"{site}.labels", (f"'{bad_key}'",), "parse")


@mistake("node-service-account-email", site="cluster")
def _sa_email(draw, cfg, base, taken):
    bad = draw(choice(["nodes@acme", "nodes@acme.iam.gserviceaccount.com.evil", "Nodes@acme.iam.gserviceaccount.com"]))
    cfg[P + "cluster"]["nodeServiceAccount"] = {"email": bad}
    return Mistake("node-service-account-email", "cluster", "cluster.nodeServiceAccount.email",
                   (show(bad), "service-account email"), "parse")


# cpuPool


def _cpu(cfg) -> dict[str, Any]:
    cfg[P + "cpuPool"] = dict(cfg.get(P + "cpuPool") or {})
    return cfg[P + "cpuPool"]


@mistake("cpu-min-above-max", site="cpuPool")
def _cpu_min_max(draw, cfg, base, taken):
    high = draw(st.integers(1, 8))
    _cpu(cfg).update(minNodes=high + draw(st.integers(1, 5)), maxNodes=high)
    return Mistake("cpu-min-above-max", "cpuPool", "cpuPool.minNodes", ("larger than cpuPool.maxNodes",), "cross")


@mistake("cpu-negative-nodes", site="cpuPool")
def _cpu_negative(draw, cfg, base, taken):
    key, bad, bound = draw(choice([("minNodes", -1, "greater than or equal to 0"),
                                            ("maxNodes", 0, "greater than or equal to 1"),
                                            ("maxNodes", "four", "valid integer"),
                                            ("minNodes", 1.5, "valid integer")]))
    _cpu(cfg)[key] = bad
    return Mistake("cpu-negative-nodes", "cpuPool", f"cpuPool.{key}", (show(bad), bound), "parse")


@mistake("cpu-zone-other-region", site="cpuPool")
def _cpu_zone(draw, cfg, base, taken):
    region = draw(choice([r for r in REGIONS if r != base.region]))
    zone = draw(choice(region_zones(region)))
    _cpu(cfg)["zone"] = zone
    return Mistake("cpu-zone-other-region", "cpuPool", "cpuPool.zone", (show(zone), f"region {base.region}"), "cross")


@mistake("cpu-tpu-machine-type", site="cpuPool")
def _cpu_tpu_machine(draw, cfg, base, taken):
    bad = draw(choice([m.name for g in GENERATIONS.values() for m in g.machine_types]))
    _cpu(cfg)["machineType"] = bad
    return Mistake("cpu-tpu-machine-type", "cpuPool", "cpuPool.machineType", (show(bad), "TPU machine type"), "parse")


@mistake("cpu-disk-type", site="cpuPool")
def _cpu_disk(draw, cfg, base, taken):
    bad = draw(choice(["ssd", "pd_ssd", "balanced"]))
    _cpu(cfg)["diskType"] = bad
    return Mistake("cpu-disk-type", "cpuPool", "cpuPool.diskType", (show(bad), *quoted(DISK_TYPES)), "parse")


@mistake("cpu-name-clashes-with-tpu-pool", site="cpuPool")
def _cpu_clash(draw, cfg, base, taken):
    if not base.pools:
        return None
    _cpu(cfg)["name"] = draw(choice(base.node_pool_names))
    return Mistake("cpu-name-clashes-with-tpu-pool", "cpuPool", "cpuPool.name", ("clashes",), "cross")


@mistake("cpu-machine-unknown-with-kueue", site="cpuPool")
def _cpu_unknown_kueue(draw, cfg, base, taken):
    also: tuple[str, ...] = ()
    if not base.kueue:
        if not free(taken, "kueue"):
            return None
        cfg[P + "kueue"], base.kueue, also = {"enabled": True}, True, ("kueue",)
    bad = draw(choice(["m1-megamem-96", "c4-standard-48-lssd", "a2-ultragpu-1g"]))  # shapes the catalog cannot size
    _cpu(cfg)["machineType"] = bad
    _cpu(cfg).pop("diskType", None)  # a drawn Persistent Disk type is refused on C4 (Hyperdisk only) before this check
    return Mistake("cpu-machine-unknown-with-kueue", "cpuPool", "cpuPool.machineType", (show(bad), "kueue"), "cross",
                   also)


@mistake("cpu-custom-shape-refused", site="cpuPool")
def _cpu_custom_refused(draw, cfg, base, taken):
    bad, reason = draw(choice(REFUSED_CUSTOM_MACHINES))
    _cpu(cfg)["machineType"] = bad
    return Mistake("cpu-custom-shape-refused", "cpuPool", "cpuPool.machineType", (show(bad), reason), "parse")


@mistake("cpu-arm-machine", site="cpuPool")
def _cpu_arm(draw, cfg, base, taken):
    bad = draw(choice(ARM_MACHINES))
    _cpu(cfg)["machineType"] = bad
    return Mistake("cpu-arm-machine", "cpuPool", "cpuPool.machineType",
                   (show(bad), "Arm", "kubernetes.io/arch=arm64:NoSchedule"), "parse")


@mistake("cpu-machine-cannot-hold-the-head", site="cpuPool")
def _cpu_too_small_for_head(draw, cfg, base, taken):
    """A shared-core or small custom machine under a Pathways head: the catalog sizes it, and the head does not fit."""
    heads = [j for j, w in enumerate(base.workloads) if w.runtime == "pathways" and w.mode != "colocated"]
    if not heads:
        return None
    bad = draw(choice(["e2-micro", "e2-small", "e2-medium", "n2-custom-8-32768", "custom-16-65536",
                       "e2-custom-small-4096"]))
    _cpu(cfg)["machineType"] = bad
    # the Pathways servers alone do not fit: the machine is blamed, not the workload (nothing it says can fix it)
    return Mistake("cpu-machine-cannot-hold-the-head", "cpuPool", "cpuPool.machineType",
                   (bad, "for the Pathways servers alone"), "cross")


@mistake("cpu-machine-unsized-under-the-head", site="cpuPool")
def _cpu_unsized_for_head(draw, cfg, base, taken):
    heads = [j for j, w in enumerate(base.workloads) if w.runtime == "pathways" and w.mode != "colocated"]
    if not heads:
        return None
    bad = draw(choice(["m1-megamem-96", "m3-ultramem-64", "c4-standard-48-lssd", "a2-ultragpu-1g"]))
    _cpu(cfg)["machineType"] = bad
    return Mistake("cpu-machine-unsized-under-the-head", "cpuPool", f"workloads[{heads[0]}].mode",
                   (bad, "no size in the catalog"), "cross")


@mistake("cluster-one-range-for-pods-and-services", site="cluster")
def _cluster_same_range(draw, cfg, base, taken):
    cluster = cfg[P + "cluster"]
    cluster.setdefault("subnetwork", "gke-nodes")
    name = draw(choice(["gke-pods", "shared-range", "r1"]))
    cluster["podsRangeName"] = cluster["servicesRangeName"] = name
    return Mistake("cluster-one-range-for-pods-and-services", "cluster", "cluster.servicesRangeName",
                   (show(name), "both Pods and Services"), "parse")


@mistake("workload-text-over-the-etcd-limit")
def _workload_text_too_large(draw, cfg, base, taken):
    """An env value past etcd's 1.5 MiB request limit (config/checks.py STORED_OBJECT_LIMIT_BYTES)."""
    choices = [j for j in range(len(base.workloads)) if free(taken, f"workloads[{j}]")]
    if not choices:
        return None
    j = draw(choice(choices))
    w = _workloads(cfg)[j]
    w["env"] = {**(w.get("env") or {}), "BLOB": "x" * draw(choice([1_600_000, 2_000_000]))}
    return Mistake("workload-text-over-the-etcd-limit", f"workloads[{j}]", f"workloads[{j}].env.BLOB",
                   ("etcd", "1.5 MiB"), "cross")


@mistake("cpu-zone-required", site="cpuPool")
def _cpu_zone_required(draw, cfg, base, taken):
    """A regional cluster whose TPU pools were all removed: the CPU pool has no zone to take."""
    if not all(free(taken, site) for site in ("cluster", "tpuPools", "workloads")):
        return None
    cfg[P + "cluster"]["location"] = base.region
    cfg[P + "tpuPools"] = []
    kept = [(w, facts) for w, facts in zip(_workloads(cfg), base.workloads) if facts.pool is None]
    cfg[P + "workloads"] = [w for w, _ in kept]
    base.pools, base.workloads = [], [facts for _, facts in kept]
    _cpu(cfg).pop("zone", None)
    return Mistake("cpu-zone-required", "cpuPool", "cpuPool.zone", ("is required when the cluster is regional",),
                   "cross", ("cluster", "tpuPools", "workloads"))


# tpuPools[i]


def _pool_site(draw, cfg, taken: set[str]) -> Optional[tuple[int, dict[str, Any]]]:
    candidates = [i for i in range(len(_pools(cfg))) if free(taken, f"tpuPools[{i}]")]
    if not candidates:
        return None
    i = draw(choice(candidates))
    return i, _pools(cfg)[i]


@mistake("pool-key-typo")
def _pool_typo(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    key = draw(choice(sorted(pool)))
    bad = draw(typo(key, field_keys(TpuPoolConfig) + tuple(pool)))
    pool[bad] = pool.pop(key)
    return Mistake("pool-key-typo", f"tpuPools[{i}]", f"tpuPools[{i}].{bad}", ("unknown key", key), "parse")


@mistake("pool-key-missing")
def _pool_missing(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    key = draw(choice(["name", "type", "zone"]))
    del pool[key]
    return Mistake("pool-key-missing", f"tpuPools[{i}]", f"tpuPools[{i}].{key}", ("is required but missing",), "parse")


@mistake("pool-not-a-mapping")
def _pool_scalar(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    bad = draw(choice([None, pool["type"], [pool["name"]]]))
    _pools(cfg)[i] = bad
    return Mistake("pool-not-a-mapping", f"tpuPools[{i}]", f"tpuPools[{i}]", ("must be a mapping",), "parse")


@mistake("pool-type-unknown")
def _pool_type(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    aliases = {a for g in GENERATIONS.values() for a in g.aliases}
    bad = draw(choice(["v9", "v6", "tpu-v6e", "v5lite", "trillium", "ironwood", "v6e_16", "TPUv4", "v6e-",
                       "gpu"]).filter(lambda t: t.lower() not in aliases))
    pool["type"] = bad
    return Mistake("pool-type-unknown", f"tpuPools[{i}]", f"tpuPools[{i}].type",
                   (show(bad), "allowed: " + ", ".join(TPU_TYPES)), "parse")


@mistake("pool-shorthand-size")
def _pool_size(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    gen = GENERATIONS[base.pools[i].generation]
    sizes = {chips_of(t) * gen.cores_per_chip for t in gen.topologies}
    count = draw(st.integers(1, 20_000).filter(lambda n: n not in sizes))
    pool["type"] = bad = f"{draw(choice(gen.aliases))}-{count}"
    pool.pop("topology", None)
    fragment = "must be even" if count % gen.cores_per_chip else f"is not a {gen.name} size"
    return Mistake("pool-shorthand-size", f"tpuPools[{i}]", f"tpuPools[{i}].type", (show(bad), fragment), "parse")


@mistake("pool-topology-of-another-generation")
def _pool_topology(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    gen = GENERATIONS[base.pools[i].generation]
    others = sorted({t for g in GENERATIONS.values() for t in g.topologies} - set(gen.topologies)
                    | {"3x3", "2x2x3", "0x1", "4x4x4x4"})
    bad = draw(choice(others))
    pool["topology"] = bad
    return Mistake("pool-topology-of-another-generation", f"tpuPools[{i}]", f"tpuPools[{i}].topology", (show(bad),),
                   "parse")


@mistake("pool-topology-missing")
def _pool_no_topology(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    pool["type"] = base.pools[i].generation
    pool.pop("topology", None)
    pool.pop("machineType", None)
    return Mistake("pool-topology-missing", f"tpuPools[{i}]", f"tpuPools[{i}].topology",
                   ("is required for type", f"{base.pools[i].generation}-"), "pool")


@mistake("pool-slices-invalid")
def _pool_slices(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    bad, why = draw(choice([(0, "greater than or equal to 1"), (-2, "greater than or equal to 1"),
                                     ("two", "valid integer"), ("2 slices", "valid integer"),
                                     (257, "less than or equal to 256"), (2.5, "valid integer"),
                                     (None, "valid integer"), ([2], "valid integer")]))
    pool["slices"] = bad
    return Mistake("pool-slices-invalid", f"tpuPools[{i}]", f"tpuPools[{i}].slices", (show(bad), why), "parse")


@mistake("pool-zone-other-region")
def _pool_zone_region(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    zone = draw(choice(region_zones(draw(choice([r for r in REGIONS if r != base.region])))))
    pool["zone"] = zone
    return Mistake("pool-zone-other-region", f"tpuPools[{i}]", f"tpuPools[{i}].zone",
                   (show(zone), f"region {base.region}"), "pool")


@mistake("pool-zone-not-a-zone")
def _pool_zone_syntax(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    bad = draw(choice([base.region, base.region + "b", base.region.upper() + "-B", ["us-east5-a"]]))
    pool["zone"] = bad
    return Mistake("pool-zone-not-a-zone", f"tpuPools[{i}]", f"tpuPools[{i}].zone", (show(bad),), "parse")


@mistake("pool-capacity-unknown")
def _pool_capacity(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    bad = draw(choice(["preemptible", "ondemand", "Spot", "flex", "dws", "reserved"]))
    pool["capacity"] = bad
    return Mistake("pool-capacity-unknown", f"tpuPools[{i}]", f"tpuPools[{i}].capacity",
                   (show(bad), *quoted(CAPACITIES)), "parse")


@mistake("pool-reservation-missing")
def _pool_reservation_missing(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    pool["capacity"] = "reservation"
    pool.pop("reservation", None)
    pool.pop("reservations", None)
    pool.pop("maxRunDuration", None)
    return Mistake("pool-reservation-missing", f"tpuPools[{i}]", f"tpuPools[{i}].reservation",
                   ("required with capacity 'reservation'",), "pool")


@mistake("pool-reservation-with-other-capacity")
def _pool_reservation_clash(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    capacity = draw(choice([c for c in CAPACITIES if c != "reservation"]))
    pool["capacity"] = capacity
    pool.pop("reservations", None)
    pool["reservation"] = "acme-res"
    return Mistake("pool-reservation-with-other-capacity", f"tpuPools[{i}]", f"tpuPools[{i}].reservation",
                   ("'acme-res'", f"capacity '{capacity}'"), "pool")


@mistake("pool-reservation-name-invalid")
def _pool_reservation_name(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    bad = draw(choice(["Acme_Res", "1res", "res-", "my reservation"]))
    pool["capacity"] = "reservation"
    pool.pop("maxRunDuration", None)
    as_mapping = draw(st.booleans())
    pool.pop("reservations", None)
    pool["reservation"] = {"name": bad} if as_mapping else bad
    path = f"tpuPools[{i}].reservation" + (".name" if as_mapping else "")
    return Mistake("pool-reservation-name-invalid", f"tpuPools[{i}]", path, (show(bad), "reservation"), "parse")


@mistake("pool-sub-block-without-block")
def _pool_sub_block(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    pool["capacity"] = "reservation"
    pool.pop("maxRunDuration", None)
    pool.pop("reservations", None)
    pool["reservation"] = {"name": "acme-res", "subBlock": "sub-1"}
    return Mistake("pool-sub-block-without-block", f"tpuPools[{i}]", f"tpuPools[{i}].reservation",
                   ("subBlock needs block",), "parse")


@mistake("pool-fixed-size-without-size")
def _pool_flex_fixed(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    capacities = ["flex-start"] if GENERATIONS[base.pools[i].generation].flex_start else []
    capacity = draw(choice(capacities + (["queued"] if base.kueue else []) or ["flex-start"]))
    pool.update(capacity=capacity, autoscaling=False)
    pool.pop("reservation", None)
    pool.pop("reservations", None)
    return Mistake("pool-fixed-size-without-size", f"tpuPools[{i}]", f"tpuPools[{i}].autoscaling",
                   ("false", f"capacity '{capacity}'", "no fixed size"), "pool")


@mistake("pool-flex-start-not-offered")
def _pool_flex_generation(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    gen = draw(choice([g for g in GENERATIONS.values() if not g.flex_start]))
    topology = draw(choice(gen.topologies))
    pool.update(type=gen.name, topology=topology, capacity="flex-start")
    for key in ("reservation", "reservations", "machineType", "networkProfile"):
        pool.pop(key, None)
    return Mistake("pool-flex-start-not-offered", f"tpuPools[{i}]", f"tpuPools[{i}].capacity",
                   (f"not available for {gen.name}",), "pool")


@mistake("pool-dynamic-slicing-spot")
def _pool_dynamic_spot(draw, cfg, base, taken):
    """Ironwood dynamic slicing on spot VMs: PROVISION_ONLY needs a specific reservation."""
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    for key in ("reservation", "maxRunDuration", "autoscaling", "machineType", "networkProfile", "diskType"):
        pool.pop(key, None)
    pool.update({"type": "tpu7x", "topology": "4x4x4", "capacity": "spot", "dynamicSlicing": True})
    return Mistake("pool-dynamic-slicing-spot", f"tpuPools[{i}]", f"tpuPools[{i}].dynamicSlicing",
                   ("not 'spot'", "PROVISION_ONLY"), "cross")


@mistake("second-nic-with-network-profile", site="cluster")
def _nic_with_profile(draw, cfg, base, taken):
    """A second NIC and the accelerator network profile (which sets up its own networks) on one pool."""
    cluster = cfg[P + "cluster"]
    if cluster.get("create", True) is False or (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    if GENERATIONS[base.pools[i].generation].name not in ("v6e", "tpu7x"):
        return None
    cluster["additionalNetworks"] = [{"network": "iw-data", "subnetwork": "iw-data-sub"}]
    pool["networkProfile"] = True
    return Mistake("second-nic-with-network-profile", f"tpuPools[{i}]", f"tpuPools[{i}].networkProfile",
                   ("accelerator network profile",), "cross", ("cluster",))


@mistake("pool-queued-without-kueue")
def _pool_queued(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    also: tuple[str, ...] = ()
    if base.kueue:
        if not free(taken, "kueue"):
            return None
        cfg[P + "kueue"], base.kueue, also = {"enabled": False}, False, ("kueue",)
    i, pool = site
    pool["capacity"] = "queued"
    for key in ("reservation", "reservations", "maxRunDuration", "autoscaling"):
        pool.pop(key, None)
    return Mistake("pool-queued-without-kueue", f"tpuPools[{i}]", f"tpuPools[{i}].capacity",
                   ("'queued'", "kueue.enabled: true"), "pool", also)


@mistake("kueue-disabled-under-queued-pool", site="kueue")
def _kueue_off(draw, cfg, base, taken):
    """Kueue switched off under a queued pool (one of the pools is made queued when none is)."""
    queued = [i for i, p in enumerate(base.pools) if p.capacity == "queued" and free(taken, f"tpuPools[{i}]")]
    if queued:
        i = queued[0]
    elif (site := _pool_site(draw, cfg, taken)) is not None:
        i, pool = site
        for key in ("reservation", "reservations", "maxRunDuration", "autoscaling"):
            pool.pop(key, None)
        pool["capacity"] = "queued"
        base.pools[i] = dataclasses.replace(base.pools[i], capacity="queued")
    else:
        return None
    cfg[P + "kueue"] = {"enabled": False}
    base.kueue = False
    return Mistake("kueue-disabled-under-queued-pool", "kueue", f"tpuPools[{i}].capacity",
                   ("'queued'", "kueue.enabled: true"), "pool", (f"tpuPools[{i}]",))


@mistake("pool-max-run-duration-not-flex")
def _pool_duration_not_flex(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    capacity = base.pools[i].capacity
    if capacity == "flex-start":
        return None
    pool["maxRunDuration"] = "24h"
    return Mistake("pool-max-run-duration-not-flex", f"tpuPools[{i}]", f"tpuPools[{i}].maxRunDuration",
                   ("'24h'", "flex-start"), "pool")


@mistake("pool-max-run-duration-invalid")
def _pool_duration(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    bad = draw(choice(["8d", "5m", "24 hours", "1w", "3600", "599s", "169h"]))
    pool["maxRunDuration"] = bad
    return Mistake("pool-max-run-duration-invalid", f"tpuPools[{i}]", f"tpuPools[{i}].maxRunDuration", (show(bad),),
                   "parse")


@mistake("pool-machine-type-mismatch")
def _pool_machine(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    fact = base.pools[i]
    fits = {m.name for m in machine_types_for(fact.generation, fact.shape.topology)}
    candidates = sorted({m.name for g in GENERATIONS.values() for m in g.machine_types} - fits)
    bad = draw(choice(candidates + ["n2-standard-64", "ct6e-standard-16t"]))
    pool["machineType"] = bad
    return Mistake("pool-machine-type-mismatch", f"tpuPools[{i}]", f"tpuPools[{i}].machineType", (show(bad),),
                   "parse")


@mistake("pool-network-profile-generation")
def _pool_network(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    if base.pools[i].generation in NETWORK_PROFILE_GENERATIONS:
        return None
    pool["networkProfile"] = True
    return Mistake("pool-network-profile-generation", f"tpuPools[{i}]", f"tpuPools[{i}].networkProfile",
                   ("v6e and tpu7x only",), "pool")


@mistake("pool-name-invalid")
def _pool_name(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    bad = draw(choice(["Main", "main_pool", "1main", "main-", "a" * 21, "v6e.pool", ""]))
    pool["name"] = bad
    return Mistake("pool-name-invalid", f"tpuPools[{i}]", f"tpuPools[{i}].name", (show(bad),), "parse")


@mistake("pool-name-too-long-for-gke")
def _pool_name_long(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    digits = len(str(base.pools[i].slices - 1))
    length = draw(st.integers(1, 20))  # a valid group name ...
    cluster = 40 - 2 - digits - length + 1  # ... with a cluster name one character too long for both
    also: tuple[str, ...] = ()
    if cluster > len(base.cluster):
        if not free(taken, "cluster"):
            return None
        cfg[P + "cluster"]["name"] = base.cluster = (base.cluster + "c" * 40)[:cluster]
        also = ("cluster",)
    else:
        length = 40 - len(base.cluster) - 2 - digits + 1
        if length > 20:
            return None
    pool["name"] = ("g" + "0123456789abcdefghij")[:length]
    return Mistake("pool-name-too-long-for-gke", f"tpuPools[{i}]", f"tpuPools[{i}].name",
                   ("longer than GKE's 40 characters",), "pool", also)


@mistake("pool-duplicate-name", site="tpuPools")
def _pool_duplicate(draw, cfg, base, taken):
    pools = _pools(cfg)
    if len(pools) == 1:  # a second group copied from the first, name and all
        pools.append(copy.deepcopy(pools[0]))
        base.pools.append(base.pools[0])
    if len(pools) < 2:
        return None
    i, j = sorted(draw(st.lists(st.integers(0, len(pools) - 1), min_size=2, max_size=2, unique=True)))
    pools[j]["name"] = pools[i]["name"]
    return Mistake("pool-duplicate-name", "tpuPools", f"tpuPools[{i}].name", ("more than one TPU pool group",),
                   "cross")


@mistake("pool-number-out-of-range")
def _pool_number(draw, cfg, base, taken):
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    key, bad = draw(choice([("diskSizeGb", 5), ("diskSizeGb", "100GB"), ("maxPodsPerNode", 4),
                                     ("maxPodsPerNode", 300)]))
    pool[key] = bad
    return Mistake("pool-number-out-of-range", f"tpuPools[{i}]", f"tpuPools[{i}].{key}", (show(bad),), "parse")


# jobset / kueue


@mistake("addon-version-unpinned")
def _addon_version(draw, cfg, base, taken):
    if (addon := _free_choice(draw, taken, ["jobset", "kueue"])) is None:
        return None
    bad = draw(choice(["0.10.1", "latest", "v0.10", "main", "v1.0.0-rc1", 0.1]))
    cfg[P + addon] = dict(cfg.get(P + addon) or {}, version=bad)
    return Mistake("addon-version-unpinned", addon, f"{addon}.version", (show(bad),), "parse")


@mistake("addon-version-too-old")
def _addon_old(draw, cfg, base, taken):
    if (addon := _free_choice(draw, taken, ["jobset", "kueue"])) is None:
        return None
    major, minor, _ = version_key(RELEASES[addon].oldest)
    bad = f"v{major}.{draw(st.integers(0, minor - 1))}.{draw(st.integers(0, 9))}"
    cfg[P + addon] = dict(cfg.get(P + addon) or {}, version=bad)
    return Mistake("addon-version-too-old", addon, f"{addon}.version",
                   (show(bad), f"older than {RELEASES[addon].oldest}"), "parse")


@mistake("addon-key-typo")
def _addon_typo(draw, cfg, base, taken):
    if (addon := _free_choice(draw, taken, ["jobset", "kueue"])) is None:
        return None
    key = "enabled" if addon == "kueue" else "version"
    section = dict(cfg.get(P + addon) or {key: True if addon == "kueue" else "v0.10.1"})
    section.setdefault(key, True if addon == "kueue" else "v0.10.1")
    bad = draw(choice(["enable", "Enabled", "enabeld"] if addon == "kueue" else ["versoin", "Version"]))
    section[bad] = section.pop(key)
    cfg[P + addon] = section
    return Mistake("addon-key-typo", addon, f"{addon}.{bad}", ("unknown key", key), "parse")


@mistake("kueue-enabled-not-bool", site="kueue")
def _kueue_bool(draw, cfg, base, taken):
    bad = draw(choice(["sometimes", "enable", "2", [True]]))
    cfg[P + "kueue"] = dict(cfg.get(P + "kueue") or {}, enabled=bad)
    return Mistake("kueue-enabled-not-bool", "kueue", "kueue.enabled", (show(bad),), "parse")


@mistake("addon-manifest-url")
def _addon_manifest(draw, cfg, base, taken):
    if (addon := _free_choice(draw, taken, ["jobset", "kueue"])) is None:
        return None
    bad = f"https://github.com/kubernetes-sigs/{addon}/releases/download/v0.10.1/manifests.yaml"
    cfg[P + addon] = dict(cfg.get(P + addon) or {}, manifest=bad)
    return Mistake("addon-manifest-url", addon, f"{addon}.manifest", ("must be a local file path",), "parse")


# workloads[j]


Maker = Callable[[dict[str, Any], ValidDraw], Optional[tuple[dict[str, Any], WorkloadFacts]]]


def _workload_site(draw, cfg, base, taken: set[str], want: Callable[[WorkloadFacts], bool] = lambda w: True,
                   make: Optional[Maker] = None):
    """A free workload the mistake applies to; with `make`, one is appended when the config has none."""
    candidates = [j for j, w in enumerate(base.workloads) if want(w) and free(taken, f"workloads[{j}]")
                  and j < len(_workloads(cfg))]
    if candidates:
        j = draw(choice(candidates))
        return j, _workloads(cfg)[j], base.workloads[j]
    if make is None or not free(taken, "workloads") or not isinstance(cfg.get(P + "workloads", []), list):
        return None
    made = make(cfg, base)
    if made is None:
        return None
    cfg.setdefault(P + "workloads", []).append(made[0])
    base.workloads.append(made[1])
    return len(_workloads(cfg)) - 1, made[0], made[1]


def _added_name(cfg: dict[str, Any], what: str) -> str:
    return f"added-{what}-{len(_workloads(cfg))}"


def jax_cpu_workload(cfg: dict[str, Any], base: ValidDraw):
    name = _added_name(cfg, "cpu")
    return ({"name": name, "runtime": "jax", "image": "us-docker.pkg.dev/acme/train/jax:v1",
             "command": "python3 run.py", "jax": {"processes": 4, "slices": 2}},
            WorkloadFacts(name=name, runtime="jax", mode="cpu", pool=None))


def jax_tpu_workload(cfg: dict[str, Any], base: ValidDraw):
    pools = [p for p in base.pools if p.slices == 1 or p.shape.multi_host]
    if not pools:
        return None
    name = _added_name(cfg, "tpu")
    return ({"name": name, "runtime": "jax", "tpuPool": pools[0].name, "image": "us-docker.pkg.dev/acme/train/jax:v1",
             "command": "python3 run.py"}, WorkloadFacts(name=name, runtime="jax", mode="tpu", pool=pools[0].name))


def pathways_workload_on_first_pool(cfg: dict[str, Any], base: ValidDraw):
    if not base.pools:
        return None
    name = _added_name(cfg, "pw")
    return ({"name": name, "tpuPool": base.pools[0].name, "image": "us-docker.pkg.dev/acme/train/trainer:v1",
             "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}},
            WorkloadFacts(name=name, runtime="pathways", mode="default", pool=base.pools[0].name))


def any_workload(cfg: dict[str, Any], base: ValidDraw):
    return pathways_workload_on_first_pool(cfg, base) or jax_cpu_workload(cfg, base)


def _is_pathways(w: WorkloadFacts) -> bool:
    return w.runtime == "pathways"


def _has_user_container(w: WorkloadFacts) -> bool:
    return w.mode != "headless"


def _pathways_with_user_container(w: WorkloadFacts) -> bool:
    return _is_pathways(w) and _has_user_container(w)


def _is_jax(w: WorkloadFacts) -> bool:
    return w.runtime == "jax"


def _is_jax_cpu(w: WorkloadFacts) -> bool:
    return _is_jax(w) and w.mode == "cpu"


def _is_jax_tpu(w: WorkloadFacts) -> bool:
    return _is_jax(w) and w.mode == "tpu"


@mistake("workload-key-typo")
def _workload_typo(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    key = draw(choice(sorted(w)))
    # a key no runtime's model reads (the workload is a union of the runtimes' models)
    bad = draw(typo(key, tuple(k for model in WORKLOAD_MODELS for k in field_keys(model)) + tuple(w)))
    w[bad] = w.pop(key)
    return Mistake("workload-key-typo", f"workloads[{j}]", f"workloads[{j}].{bad}", ("unknown key", key), "parse")


@mistake("workload-pathways-key-outside-block")
def _workload_flat_pathways(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    key = draw(choice(["gcsScratch", "version", "elasticSlices"]))
    w[key] = w["pathways"].pop(key, "gs://acme/tmp" if key == "gcsScratch" else "jax-0.9.2")
    return Mistake("workload-pathways-key-outside-block", f"workloads[{j}]", f"workloads[{j}].{key}",
                   ("unknown key", "allowed:"), "parse")


@mistake("workload-not-a-mapping")
def _workload_scalar(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    bad = draw(choice([w["name"], None, [w["name"]]]))
    _workloads(cfg)[j] = bad
    return Mistake("workload-not-a-mapping", f"workloads[{j}]", f"workloads[{j}]", ("must be a mapping",), "parse")


@mistake("workload-name-missing")
def _workload_name_missing(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    del w["name"]
    return Mistake("workload-name-missing", f"workloads[{j}]", f"workloads[{j}].name", ("is required but missing",),
                   "parse")


@mistake("workload-name-too-long")
def _workload_name_long(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    length = draw(st.integers(MAX_WORKLOAD_NAME + 1, 40))
    w["name"] = ("train-" + "abcdefghijklmnopqrstuvwxyz0123456789")[:length]
    return Mistake("workload-name-too-long", f"workloads[{j}]", f"workloads[{j}].name",
                   (f"{length} characters", f"at most {MAX_WORKLOAD_NAME}"), "parse")


@mistake("workload-name-invalid")
def _workload_name(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    bad = draw(choice(["Train", "my_train", "1train", "train-", "train.v2", "-x"]))
    w["name"] = bad
    return Mistake("workload-name-invalid", f"workloads[{j}]", f"workloads[{j}].name", (show(bad), "DNS-1035"),
                   "parse")


@mistake("workload-duplicate-name", site="workloads")
def _workload_duplicate(draw, cfg, base, taken):
    while len(_workloads(cfg)) < 2:  # a workload copied (or added) under the same name
        made = any_workload(cfg, base)
        assert made is not None
        cfg.setdefault(P + "workloads", []).append(made[0])
        base.workloads.append(made[1])
    workloads = _workloads(cfg)
    i, j = sorted(draw(st.lists(st.integers(0, len(workloads) - 1), min_size=2, max_size=2, unique=True)))
    workloads[j]["name"] = workloads[i]["name"]
    return Mistake("workload-duplicate-name", "workloads", f"workloads[{i}].name", ("more than one workload",),
                   "cross")


@mistake("workload-unknown-tpu-pool")
def _workload_pool(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    names = [p.name for p in base.pools]
    bad = draw(choice([n + "x" for n in names] + ["mian", "default", "v6e"]).filter(lambda n: n not in names))
    w["tpuPool"] = bad
    w.pop("tpuPools", None)  # one way to name pools (both would fail the parse first)
    w.pop("jax", None)  # CPU-pool settings of a jax workload would add problems of their own
    allowed = ("allowed: " + ", ".join(names)) if names else "this stack has no tpuPools"
    return Mistake("workload-unknown-tpu-pool", f"workloads[{j}]", f"workloads[{j}].tpuPool", (show(bad), allowed),
                   "cross")


@mistake("workload-runtime-unknown")
def _workload_runtime(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    bad = draw(choice(["tensorflow", "Pathways", "jax2", "mpi", ""]))
    w["runtime"] = bad
    return Mistake("workload-runtime-unknown", f"workloads[{j}]", f"workloads[{j}].runtime",
                   (show(bad), *quoted(RUNTIMES)), "parse")


@mistake("workload-mode-unknown")
def _workload_mode(draw, cfg, base, taken):
    # on a jax workload any `mode` is refused as a Pathways-only key (the jax model's reason, not the modes)
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, make=pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    bad = draw(choice(["colocate", "Default", "headles", "notebook", "co-located"]))
    w["mode"] = bad
    return Mistake("workload-mode-unknown", f"workloads[{j}]", f"workloads[{j}].mode", (show(bad), *quoted(MODES)),
                   "parse")


@mistake("workload-image-unpinned")
def _workload_image(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    repo = draw(choice(IMAGES))
    bad, why = draw(choice([(repo + ":latest", "not pinned"), (repo, "not pinned"),
                                     ("Acme/Trainer:v1", "not a container image reference"),
                                     (repo + "@sha256:abc", "not a container image reference")]))
    w["image"] = bad
    return Mistake("workload-image-unpinned", f"workloads[{j}]", f"workloads[{j}].image", (why,), "parse")


@mistake("workload-image-missing")
def _workload_image_missing(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _has_user_container, any_workload)) is None:
        return None
    j, w, _ = site
    del w["image"]
    return Mistake("workload-image-missing", f"workloads[{j}]", f"workloads[{j}].image", ("is required",), "cross")


@mistake("workload-headless-with-user-container")
def _workload_headless(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    w["mode"] = "headless"
    w.setdefault("image", "us-docker.pkg.dev/acme/train:v1")
    w.pop("gcsFuse", None)
    return Mistake("workload-headless-with-user-container", f"workloads[{j}]", f"workloads[{j}].image",
                   ("has no effect in mode 'headless'",), "cross")


@mistake("workload-command-empty")
def _workload_command(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    bad = draw(choice(["", "   ", []]))
    w["command"] = bad
    return Mistake("workload-command-empty", f"workloads[{j}]", f"workloads[{j}].command", ("empty",), "parse")


@mistake("jax-command-missing")
def _jax_command(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_jax, jax_cpu_workload)) is None:
        return None
    j, w, _ = site
    del w["command"]
    return Mistake("jax-command-missing", f"workloads[{j}]", f"workloads[{j}].command",
                   ("is required for runtime 'jax'",), "cross")


@mistake("pathways-version-latest")
def _pathways_latest(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    bad = draw(choice(["latest", "jax 0.9.2", "-jax", ""]))
    w["pathways"]["version"] = bad
    return Mistake("pathways-version-latest", f"workloads[{j}]", f"workloads[{j}].pathways.version",
                   (show(bad), "pinned Pathways image tag"), "parse")


@mistake("pathways-version-missing")
def _pathways_version_missing(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    w["pathways"].pop("version", None)
    w["pathways"].pop("images", None)
    return Mistake("pathways-version-missing", f"workloads[{j}]", f"workloads[{j}].pathways.version",
                   ("is required when the default Pathways images are used",), "cross")


@mistake("pathways-gcs-scratch")
def _pathways_gcs(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    bad = draw(choice([None, "/tmp/scratch", "gs:/acme/tmp", "s3://acme/tmp", "gs://A/tmp"]))
    if bad is None:
        del w["pathways"]["gcsScratch"]
        return Mistake("pathways-gcs-scratch", f"workloads[{j}]", f"workloads[{j}].pathways.gcsScratch",
                       ("is required",), "cross")
    w["pathways"]["gcsScratch"] = bad
    return Mistake("pathways-gcs-scratch", f"workloads[{j}]", f"workloads[{j}].pathways.gcsScratch",
                   (show(bad), "gs://"), "parse")


@mistake("pathways-elastic-slices-above-slices")
def _pathways_elastic(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, facts = site
    slices = next(p.slices for p in base.pools if p.name == facts.pool)
    bad = slices + draw(st.integers(1, 3))
    w["pathways"]["elasticSlices"] = bad
    return Mistake("pathways-elastic-slices-above-slices", f"workloads[{j}]", f"workloads[{j}].pathways.elasticSlices",
                   (str(bad), f"{slices} slice(s)"), "cross")


@mistake("pathways-managed-flag")
def _pathways_flag(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    component = draw(choice(["server", "proxy", "worker"]))
    bad, why = draw(choice([(draw(choice(MANAGED_FLAGS)) + "=1", "is set by pathways-gke"),
                                     ("--foo bar", "is not a server flag"), ("foo=1", "is not a server flag")]))
    w["pathways"]["flags"] = {component: [bad]}
    return Mistake("pathways-managed-flag", f"workloads[{j}]", f"workloads[{j}].pathways.flags.{component}",
                   (why,), "parse")


@mistake("colocated-on-multislice")
def _colocated_multislice(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, facts = site
    i = next(i for i, p in enumerate(base.pools) if p.name == facts.pool)
    also: tuple[str, ...] = ()
    if base.pools[i].slices == 1:  # make its pool a multislice one
        if not free(taken, f"tpuPools[{i}]"):
            return None
        _pools(cfg)[i]["slices"] = 2
        base.pools[i] = dataclasses.replace(base.pools[i], slices=2)
        also = (f"tpuPools[{i}]",)
    w["mode"] = "colocated"
    w.setdefault("image", "us-docker.pkg.dev/acme/train/trainer:v1")
    return Mistake("colocated-on-multislice", f"workloads[{j}]", f"workloads[{j}].mode",
                   ("'colocated' needs a single-slice TPU pool",), "cross", also)


@mistake("head-too-large")
def _head_too_large(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _pathways_with_user_container,
                               pathways_workload_on_first_pool)) is None:
        return None
    j, w, facts = site
    cpu = draw(choice(["400", "1000"]))
    w["resources"] = {"requests": {"cpu": cpu, "memory": "8Gi"}, "limits": {"cpu": cpu, "memory": "100G"}}
    host = next(p for p in base.pools if p.name == facts.pool).shape.machine_type
    if facts.mode == "colocated" and host in TPU_HOSTS:
        return Mistake("head-too-large", f"workloads[{j}]", f"workloads[{j}].mode", ("cannot hold it",), "cross")
    if facts.mode == "colocated":
        return None
    # only the user container is too large: the pool must hold the Pathways servers alone, or the refusal rightly
    # names cpuPool.machineType instead (an added workload may sit on a base pool sized for JAX processes only)
    cfg.setdefault(P + "cpuPool", {})["machineType"] = "n2-standard-64"
    return Mistake("head-too-large", f"workloads[{j}]", f"workloads[{j}].resources", ("too large for a cpuPool node",),
                   "cross")


@mistake("resources-request-above-limit")
def _resources_over(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    w["resources"] = {"requests": {"cpu": "32", "memory": "8Gi"}, "limits": {"cpu": "24", "memory": "100G"}}
    return Mistake("resources-request-above-limit", f"workloads[{j}]", f"workloads[{j}].resources.requests",
                   ("larger than limits.cpu",), "parse")


@mistake("resources-bad-quantity")
def _resources_quantity(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    bad = draw(choice(["8 GB", "lots", "-1Gi", "8gb"]))
    w["resources"] = {"requests": {"cpu": "2", "memory": bad}}
    return Mistake("resources-bad-quantity", f"workloads[{j}]", f"workloads[{j}].resources.requests",
                   (f"'{bad}'", "Kubernetes quantity"), "parse")


@mistake("env-name-invalid")
def _env_name(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _has_user_container, any_workload)) is None:
        return None
    j, w, _ = site
    bad = draw(choice(["1BAD", "MY-VAR", "my var", "A.B", ""]))
    key = draw(choice(["env", "secretEnv"]))
    w[key] = {bad: "x"}
    return Mistake("env-name-invalid", f"workloads[{j}]", f"workloads[{j}].{key}", (f"'{bad}'",), "parse")


@mistake("env-value-not-a-string")
def _env_value(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _has_user_container, any_workload)) is None:
        return None
    j, w, _ = site
    bad = draw(choice([100, 0.5, None, ["a"], {"value": "x"}]))
    w["env"] = {"STEPS": bad}
    return Mistake("env-value-not-a-string", f"workloads[{j}]", f"workloads[{j}].env.STEPS", (show(bad),), "parse")


@mistake("env-is-a-list")
def _env_list(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _has_user_container, any_workload)) is None:
        return None
    j, w, _ = site
    w["env"] = ["STEPS=100"]
    return Mistake("env-is-a-list", f"workloads[{j}]", f"workloads[{j}].env", ("must be a mapping",), "parse")


@mistake("env-managed-name")
def _env_managed(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _has_user_container, any_workload)) is None:
        return None
    j, w, facts = site
    managed = MANAGED_ENV["user"] if facts.runtime == "pathways" else jax_managed_env(facts.mode)
    name = draw(choice(managed))
    w["env"] = {name: "x"}
    w.pop("secretEnv", None)
    return Mistake("env-managed-name", f"workloads[{j}]", f"workloads[{j}].env.{name}", ("pathways-gke",), "cross")


@mistake("secret-env-unknown-secret")
def _secret_env(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _has_user_container, any_workload)) is None:
        return None
    j, w, _ = site
    secrets = base.config.get(P + "secrets") or {}
    bad = draw(choice(["hf", "HF_TOKEN", "hf-token", "wandb"]).filter(lambda s: s not in secrets))
    w["secretEnv"] = {"MY_SECRET": bad}
    w.get("env", {}).pop("MY_SECRET", None)
    # the value is never echoed: one that names no secret may be a token pasted in
    return Mistake("secret-env-unknown-secret", f"workloads[{j}]", f"workloads[{j}].secretEnv.MY_SECRET",
                   ("value not shown", "pathways-gke:secrets"), "cross")


@mistake("secret-env-also-in-env")
def _secret_env_twice(draw, cfg, base, taken):
    secrets = sorted(base.config.get(P + "secrets") or {})
    also: tuple[str, ...] = ()
    if not secrets:
        if not free(taken, "secrets"):
            return None
        cfg[P + "secrets"], secrets, also = {"hfToken": "plaintext-hf"}, ["hfToken"], ("secrets",)
    if (site := _workload_site(draw, cfg, base, taken, _has_user_container, any_workload)) is None:
        return None
    j, w, _ = site
    w["env"] = {"HF_TOKEN": "plain"}
    w["secretEnv"] = {"HF_TOKEN": secrets[0]}
    return Mistake("secret-env-also-in-env", f"workloads[{j}]", f"workloads[{j}].secretEnv.HF_TOKEN",
                   ("also given in env",), "cross", also)


@mistake("priority-class-unknown")
def _priority(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    bad = draw(choice(["urgent", "High", "critical", "system-cluster-critical", "very_high"]))
    w["priorityClass"] = bad
    return Mistake("priority-class-unknown", f"workloads[{j}]", f"workloads[{j}].priorityClass",
                   (show(bad), "allowed: " + ", ".join(PRIORITY_NAMES)), "cross")


@mistake("workload-number-invalid")
def _workload_number(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    key, bad = draw(choice([("maxRestarts", -1), ("maxRestarts", "three"), ("maxRestarts", 1001),
                                     ("terminationGracePeriodSeconds", -5), ("terminationGracePeriodSeconds", "30s")]))
    w[key] = bad
    return Mistake("workload-number-invalid", f"workloads[{j}]", f"workloads[{j}].{key}", (show(bad),), "parse")


@mistake("workload-service-account-invalid")
def _workload_service_account(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, make=any_workload)) is None:
        return None
    j, w, _ = site
    bad, why = draw(choice([("trainer@acme-ml-dev.iam.gserviceaccount.com", "GCP service-account email"),
                            ("ML Trainer", "not a Kubernetes service account name"),
                            ("trainer_sa", "not a Kubernetes service account name"),
                            ("-trainer", "not a Kubernetes service account name")]))
    w["serviceAccount"] = bad
    return Mistake("workload-service-account-invalid", f"workloads[{j}]", f"workloads[{j}].serviceAccount",
                   (show(bad), why), "parse")


@mistake("workload-pod-option-invalid")
def _workload_pod_option(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    reserved = draw(choice(RESERVED_CONTAINER_NAMES))
    key, bad, fragments = draw(choice([
        ("containerName", reserved, (show(reserved), "used by a Pathways container")),
        ("containerName", "Main", ("'Main'", "container name")),
        ("imagePullPolicy", "always", ("'always'", *quoted(PULL_POLICIES))),
        ("imagePullSecrets", ["Reg_Cred"], ("'Reg_Cred'",)),
    ]))
    w[key] = bad
    return Mistake("workload-pod-option-invalid", f"workloads[{j}]", f"workloads[{j}].{key}", fragments, "parse")


@mistake("gcs-fuse-invalid")
def _gcs_fuse(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    key, bad, why = draw(choice([("bucket", "gs://acme-ckpt", "without gs://"),
                                          ("mountPath", "/tmp", "absolute path"),
                                          ("mountPath", "ckpt", "absolute path"),
                                          ("name", "shared-tmp", "volume name")]))
    volume = {"name": "ckpt", "bucket": "acme-ckpt", "mountPath": "/ckpt", "workers": True, key: bad}
    w["gcsFuse"] = [volume]
    return Mistake("gcs-fuse-invalid", f"workloads[{j}]", f"workloads[{j}].gcsFuse[0].{key}", (why,), "parse")


@mistake("jax-mode")
def _jax_mode(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_jax, jax_cpu_workload)) is None:
        return None
    j, w, _ = site
    bad = draw(choice(["colocated", "headless"]))
    w["mode"] = bad
    return Mistake("jax-mode", f"workloads[{j}]", f"workloads[{j}].mode", (show(bad), "runtime 'pathways' only"),
                   "cross")


@mistake("jax-settings-on-pathways")
def _jax_on_pathways(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_pathways, pathways_workload_on_first_pool)) is None:
        return None
    j, w, _ = site
    w["jax"] = {"processes": draw(st.integers(1, 8))}
    return Mistake("jax-settings-on-pathways", f"workloads[{j}]", f"workloads[{j}].jax", ("runtime 'jax' only",),
                   "cross")


@mistake("jax-cpu-settings-on-tpu")
def _jax_cpu_on_tpu(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_jax_tpu, jax_tpu_workload)) is None:
        return None
    j, w, _ = site
    key, value = draw(choice([("processes", 4), ("slices", 2), ("cpu", "4"), ("memory", "16Gi")]))
    w["jax"] = {key: value}
    return Mistake("jax-cpu-settings-on-tpu", f"workloads[{j}]", f"workloads[{j}].jax.{key}", ("CPU pool only",),
                   "cross")


@mistake("jax-cpu-processes-missing")
def _jax_processes(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_jax_cpu, jax_cpu_workload)) is None:
        return None
    j, w, _ = site
    w["jax"].pop("processes")
    w["jax"].pop("slices", None)
    return Mistake("jax-cpu-processes-missing", f"workloads[{j}]", f"workloads[{j}].jax.processes", ("is required",),
                   "cross")


@mistake("jax-cpu-slices-do-not-divide")
def _jax_slices(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_jax_cpu, jax_cpu_workload)) is None:
        return None
    j, w, _ = site
    processes = draw(st.integers(3, 9))
    slices = draw(st.integers(2, processes - 1).filter(lambda s: processes % s))
    w["jax"].update(processes=processes, slices=slices)
    return Mistake("jax-cpu-slices-do-not-divide", f"workloads[{j}]", f"workloads[{j}].jax.slices",
                   (str(slices), f"({processes})"), "cross")


@mistake("jax-cpu-quantity-invalid")
def _jax_quantity(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_jax_cpu, jax_cpu_workload)) is None:
        return None
    j, w, _ = site
    key = draw(choice(["cpu", "memory"]))
    bad = draw(choice(["two", "0", "-1", "4 GB", 0]))
    w["jax"][key] = bad
    return Mistake("jax-cpu-quantity-invalid", f"workloads[{j}]", f"workloads[{j}].jax.{key}",
                   ("positive Kubernetes quantity",), "parse")


@mistake("jax-cpu-processes-invalid")
def _jax_processes_invalid(draw, cfg, base, taken):
    if (site := _workload_site(draw, cfg, base, taken, _is_jax_cpu, jax_cpu_workload)) is None:
        return None
    j, w, _ = site
    bad = draw(choice([0, -4, "four", 5000]))
    w["jax"]["processes"] = bad
    return Mistake("jax-cpu-processes-invalid", f"workloads[{j}]", f"workloads[{j}].jax.processes", (show(bad),),
                   "parse")


@mistake("jax-multislice-on-single-host-slices")
def _jax_single_host(draw, cfg, base, taken):
    """A jax workload on a pool of several single-host slices (made so from any free pool)."""
    i = draw(choice([i for i in range(len(_pools(cfg))) if free(taken, f"tpuPools[{i}]")] or [None]))
    if i is None or (site := _workload_site(draw, cfg, base, taken, _is_jax, jax_cpu_workload)) is None:
        return None
    j, w, _ = site
    single_host = [(g.name, t) for g in GENERATIONS.values() for t in g.topologies
                   if resolve(g.name, t).vms_per_slice == 1]
    generation, topology = draw(choice(single_host))
    pool = _pools(cfg)[i]
    for key in ("machineType", "networkProfile", "reservation", "reservations", "maxRunDuration", "autoscaling"):
        pool.pop(key, None)
    pool.update(type=generation, topology=topology, slices=draw(st.integers(2, 4)), capacity="on-demand")
    base.pools[i] = pool_facts = dataclasses.replace(base.pools[i], generation=generation, slices=pool["slices"],
                                                     shape=resolve(generation, topology), capacity="on-demand")
    w["tpuPool"] = pool_facts.name
    w.pop("tpuPools", None)
    w.pop("jax", None)
    for key in ("env", "secretEnv"):  # names that were fine on the CPU pool may be managed on TPU
        if key in w:
            w[key] = {k: v for k, v in w[key].items() if k not in jax_managed_env("tpu")}
    return Mistake("jax-multislice-on-single-host-slices", f"workloads[{j}]", f"workloads[{j}].tpuPool",
                   (show(pool_facts.name), "multi-host slices"), "cross", (f"tpuPools[{i}]",))


@mistake("pool-reservations-count")
def _pool_reservations_count(draw, cfg, base, taken):
    """One more reservation than the group has slices (XPK: 1, or one per new pool)."""
    if (site := _pool_site(draw, cfg, taken)) is None:
        return None
    i, pool = site
    slices = base.pools[i].slices
    for key in ("reservation", "maxRunDuration"):
        pool.pop(key, None)
    if pool.get("autoscaling") is False:
        pool.pop("autoscaling")
    pool["capacity"] = "reservation"
    pool["reservations"] = [f"res-{n}" for n in range(slices + 1)]
    return Mistake("pool-reservations-count", f"tpuPools[{i}]", f"tpuPools[{i}].reservations",
                   (f"{slices + 1} entries for {slices} slice(s)", "allowed: 1"), "pool")


@mistake("workload-fallback-without-kueue")
def _workload_fallback_without_kueue(draw, cfg, base, taken):
    """An ordered fallback on a stack without Kueue (Kueue's flavor order is the fallback order)."""
    if base.kueue or not base.pools:
        return None
    if (site := _workload_site(draw, cfg, base, taken, want=lambda w: w.pool is not None)) is None:
        return None
    j, w, facts = site
    w.pop("tpuPool", None)
    w["tpuPools"] = [facts.pool]
    return Mistake("workload-fallback-without-kueue", f"workloads[{j}]", f"workloads[{j}].tpuPools",
                   ("kueue.enabled is false",), "cross")


@mistake("autoprovisioning-default-account", site="cluster")
def _autoprovisioning_default_account(draw, cfg, base, taken):
    """Node auto-provisioning for nodes that run as the Compute Engine default account."""
    cluster = cfg.get(P + "cluster")
    if not isinstance(cluster, dict) or cluster.get("create") is False:
        return None
    cluster["nodeServiceAccount"] = {"create": False}
    cluster["autoprovisioning"] = {"enabled": True, "locations": [region_zones(base.region)[0]]}
    return Mistake("autoprovisioning-default-account", "cluster", "cluster.autoprovisioning.enabled",
                   ("Compute Engine default",), "cross")


# --- drawing invalid configs ----------------------------------------------------------------------------------


def _replay_safe(base: ValidDraw) -> ValidDraw:
    """A copy of the facts that mutations may update (pools, workloads, kueue) without touching `base`."""
    return dataclasses.replace(base, pools=list(base.pools), workloads=list(base.workloads))


@st.composite
def invalid_configs(draw, first: Optional[str] = None, max_mistakes: int = 3) -> InvalidDraw:
    """A valid draw with 1..max_mistakes mistakes at distinct sites (mostly one: then the check is exact).

    `first`: the kind of the first mistake (tests run every kind); a base it cannot apply to is redrawn.
    """
    for _ in range(10):
        base = draw(valid_configs())
        facts, cfg = _replay_safe(base), copy.deepcopy(base.config)
        mistakes: list[Mistake] = []
        if first is None:
            break
        found = MISTAKES[first](draw, cfg, facts, set())
        if found is not None:
            mistakes.append(found)
            break
    else:
        reject()  # `first` needs something ten bases in a row lacked (a TPU pool, say)
    wanted = min(max_mistakes, draw(choice([1, 1, 1, 2, 3])))
    kinds = sorted(MISTAKES)
    for _ in range(12):  # some kinds do not apply to every base (no pools, no jax workload, ...)
        if len(mistakes) >= wanted:
            break
        kind = draw(choice(kinds))
        taken = {site for m in mistakes for site in m.claims}
        trial, trial_facts = copy.deepcopy(cfg), _replay_safe(facts)
        found = MISTAKES[kind](draw, trial, trial_facts, taken)
        if found is None:
            continue
        assert all(free(taken, site) for site in found.claims), (kind, found.claims, taken)
        cfg, facts = trial, trial_facts
        mistakes.append(found)
    if not mistakes:  # a mistake every config can have
        mistakes.append(MISTAKES["cluster-name-invalid"](draw, cfg, facts, set()))
    return InvalidDraw(config=cfg, base=base, mistakes=mistakes)


# --- stack files that are not YAML ------------------------------------------------------------------------------


YAML_SLIPS = ("tab-indent", "unclosed-quote", "unclosed-flow", "value-with-colon", "duplicate-key")


@dataclass
class BrokenFile:
    text: str
    kind: str  # tab-indent | unclosed-quote | unclosed-flow | value-with-colon | duplicate-key
    line: int  # the line the mistake is on (1-based)


@st.composite
def broken_stack_files(draw, kind: str) -> BrokenFile:
    """A valid stack file with a typing slip (YAML_SLIPS) that makes it not YAML; checked with the stack-file
    loader, and redrawn when the slip happens to leave valid YAML (a value that was quoted already, say)."""
    base = draw(valid_configs())
    lines = yaml.safe_dump({"config": base.config}, sort_keys=False, width=1000).splitlines()
    mappings = [i for i, line in enumerate(lines) if line.startswith("  ") and ": " in line and not line.endswith(":")]
    i = draw(choice(mappings))
    indent = len(lines[i]) - len(lines[i].lstrip(" "))
    key, value = lines[i].strip().split(": ", 1)
    if kind == "tab-indent":
        lines[i] = "\t" + lines[i][1:]
    elif kind == "unclosed-quote":
        lines[i] = " " * indent + f'{key}: "{value}'
        lines = lines[:i + 1]  # ... to the end of the file: nothing closes it
    elif kind == "unclosed-flow":
        lines[i] = " " * indent + f"{key}: [{value}"
        lines = lines[:i + 1]
    elif kind == "value-with-colon":
        lines[i] = " " * indent + f"{key}: {value}: x"
    else:
        lines.insert(i + 1, lines[i])
    text = "\n".join(lines) + "\n"
    try:
        parse_stack_yaml(text)
    except ConfigError:
        return BrokenFile(text=text, kind=kind, line=i + 1 if kind != "duplicate-key" else i + 2)
    reject()
    raise AssertionError("unreachable")  # reject() raises

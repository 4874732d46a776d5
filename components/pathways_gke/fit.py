"""Does every declared pod fit? Place every pod of a plan on the node pools it is pinned to, at their maximum size.

Read off the planned objects themselves (JobSets, LeaderWorkerSets, Deployments, Jobs) and node pools, so what is
placed is what would be applied:

- a pod goes to a pool whose node labels satisfy its nodeSelector (GKE adds `cloud.google.com/gke-nodepool` and,
  on TPU pools, `cloud.google.com/gke-tpu-accelerator` / `-topology`) and whose taints it tolerates;
- a pool holds at most its maximum node count (autoscaling's max per zone times its zones, or its fixed size);
  each node offers GKE Standard allocatable (catalog.gke_allocatable, the one allocatable function) and its TPU
  chips; a pod's requests are its containers' requests (a limit without a request is the request, as the API
  server defaults it) and the largest init container's, plus the multi-tier checkpointing RAM disk when it mounts
  it (the plan's CheckpointConfiguration inMemoryVolumeSize: memory-backed, it counts against the node's memory);
- a pod whose required pod anti-affinity on `kubernetes.io/hostname` selects pods like it (the head guard) takes
  a node no other such pod is on: one head per node;
- exclusive topology (`alpha.jobset.sigs.k8s.io/exclusive-topology`, LeaderWorkerSet `exclusive-topology` and
  `subgroup-exclusive-topology` on `cloud.google.com/gke-nodepool`): each Job / group / subgroup takes a node pool
  of its own. A workload whose groups find no pools even alone never schedules (refused); groups that fit alone
  but not beside another workload's wait for its pools (a warning with the number waiting), as do Kueue-admitted
  pods that fit the pools alone (Kueue admits in turn; pods that cannot fit even with nothing else running are
  refused with or without it);
- LeaderWorkerSet subgroups follow the version's formula (kubernetes-sigs/lws pkg/webhooks/pod_webhook.go
  getSubGroupIndex): from v0.10.0 (lws#918, commit 574b8a4) a group whose size divides evenly by subGroupSize is
  cut into equal subgroups, so with subGroupSize 1 the leader is alone in subgroup 0 (a TPU-placed leader then
  needs a node pool of its own); before, a leader beyond an even split joined subgroup 0. `LeaderExcluded`
  leaves the leader out of every subgroup.

A controller Deployment (default RollingUpdate: one extra pod, none down) also needs room for one more pod for a
rollout; a pool without it is a queued shortfall (a warning: a version bump or resize would wait), placed last.
A pod under a PathwaysCluster goes only to that cluster's pools (two clusters may both name a pool `cpu-np`).
Pods pinned to pools the plan does not declare (an adopted cluster's) are not placed. A shortfall names the
workload object, the pods that do not fit, the pools it may use and what to raise. Pure:
no Pulumi import; the `pathways-gke-pods-fit` policy (policies.py) runs it offline and under `pulumi preview`.
The controllers of the yaml/v2 installs (JobSet, Kueue, LeaderWorkerSet) are not in the plan: each installed one is
placed from its release manifest's Deployment (releases.controller_manifest: replicas and every container's
requests, per release) with the manager container sized as the readiness ConfigMap records (`<addon>.resources`,
when `sizeForCluster` is on), on its own cluster's CPU pool, where the installs pin them (_controller_groups).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any, Iterable, Mapping, Optional, Sequence

from . import tokens
from .catalog import GENERATIONS, TPU_HOSTS, cpu_machine, gke_allocatable
from .config.types import parse_quantity
from .naming import (EXCLUSIVE_TOPOLOGY_ANNOTATION, LWS_EXCLUSIVE_TOPOLOGY, LWS_SUBGROUP_EXCLUSIVE_TOPOLOGY,
                     HEAD_ROLE, MTC_CSI_DRIVER, MTC_KIND, QUEUE_NAME_LABEL, ROLE_LABEL, SERVICES_CONFIGMAP,
                     TPU_TAINT)
from .property_paths import COMPUTED, value_at
from .releases import MANAGER, controller_manifest, version_key

NODEPOOL_LABEL = "cloud.google.com/gke-nodepool"
ROLLOUT = "rollout"  # the role of a controller's surge pod
TPU_ACCELERATOR_LABEL = "cloud.google.com/gke-tpu-accelerator"
TPU_TOPOLOGY_LABEL = "cloud.google.com/gke-tpu-topology"
HOSTNAME = "kubernetes.io/hostname"
TPU_RESOURCE = "google.com/tpu"
SUBGROUP_FIX_SINCE = (0, 10, 0)  # lws#918
LARGER_THAN_A_NODE = "each pod requests more than one node of its pools can allocate"


@dataclass
class Node:
    cpu_m: int
    memory: int
    tpu: int
    heads: set[str] = field(default_factory=set)  # anti-affinity keys of the guarded pods on it

    def take(self, pod: "Pod") -> bool:
        if pod.cpu_m > self.cpu_m or pod.memory > self.memory or pod.tpu > self.tpu:
            return False
        if pod.anti and pod.anti in self.heads:
            return False
        self.cpu_m -= pod.cpu_m
        self.memory -= pod.memory
        self.tpu -= pod.tpu
        if pod.anti:
            self.heads.add(pod.anti)
        return True


@dataclass
class Pool:
    name: str  # the GKE node-pool name (the `name` input)
    resource: str  # the Pulumi resource name
    machine_type: str
    labels: dict[str, str]
    taints: list[Mapping[str, Any]]
    max_nodes: int
    nodes: list[Node]
    exclusive_owner: Optional[str] = None
    urn: str = ""
    cluster: Optional[str] = None  # the URN of the PathwaysCluster it belongs to (None: not under one)


@dataclass(frozen=True)
class Pod:
    owner: str  # "<Kind> <name>"
    role: str  # "leader" / "worker" / replicated job name / "pod"
    cpu_m: int
    memory: int
    tpu: int
    selector: tuple[tuple[str, str], ...]
    tolerations: tuple[tuple[str, Optional[str], str], ...]  # (key, value or None for Exists, effect)
    anti: Optional[str]  # a one-per-node key when the pod keeps apart from pods like it
    queued: bool = False  # admitted by Kueue (queue-name label), or waiting for another workload's pools
    pool: Optional[str] = None  # the URN of the one pool it may use (a controller: its own cluster's CPU pool)
    cluster: Optional[str] = None  # the URN of the PathwaysCluster it belongs to (None: not under one)
    advice: str = ""  # what to raise, when the generic advice does not say it (the controllers)
    surge: bool = False  # the one extra pod a controller's rolling update starts beside the running ones


@dataclass(frozen=True)
class Shortfall:
    owner: str
    role: str
    missing: int  # pods that find no place
    total: int
    pools: tuple[str, ...]  # pools the pods may use
    reason: str
    queued: bool = False
    advice: str = ""

    def message(self) -> str:
        where = ", ".join(self.pools) or "none (no node pool matches its nodeSelector and tolerations)"
        whole_node = self.reason.startswith(LARGER_THAN_A_NODE)
        if self.advice and self.pools:  # a controller on its cluster's CPU pool
            fix = ("use a larger cpuPool.machineType" if whole_node
                   else "raise cpuPool.maxNodes or use a larger cpuPool.machineType") + f" ({self.advice})"
        elif not self.pools:
            fix = "pin it to an existing pool"
        elif "exclusive" in self.reason:
            fix = "add a node pool (a slice) for each group or lower the replicas"
        elif whole_node:
            fix = "use a larger machine type or lower the pods' requests"
        else:
            fix = "raise the pool's maxNodes (cpuPool.maxNodes for the CPU pool), use a larger machine type, or " \
                  "lower the pods' requests / count"
        wait = ("; until there is room, a rollout of it (a version bump or a resize) waits, and `pulumi up` with it"
                if self.role == ROLLOUT else
                "; they wait their turn (Kueue, or the pools other workloads hold)" if self.queued else "")
        return (f"{self.owner}: {self.missing} of {self.total} {self.role} pod(s) cannot be scheduled at the pools' "
                f"maximum size ({self.reason}); pools it may use: {where}; {fix}{wait}")


# --- reading the plan ---------------------------------------------------------------------------------------


def _int(value: Any) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _tpu_chips(machine_type: str) -> int:
    for gen in GENERATIONS.values():
        for m in gen.machine_types:
            if m.name == machine_type:
                return m.chips_per_vm
    return 0


def clusters_of(resources: Iterable[Mapping[str, Any]]) -> dict[str, Optional[str]]:
    """Per resource URN, the nearest PathwaysCluster it is under (its parent chain), or None. Two clusters of one
    plan may name their pools alike (`cpu-np`): a pod is placed only on its own cluster's pools."""
    by_urn = {r["urn"]: r for r in resources if isinstance(r.get("urn"), str)}
    out: dict[str, Optional[str]] = {}
    for urn, resource in by_urn.items():
        seen: set[str] = set()
        parent = resource.get("parent")
        found = None
        while isinstance(parent, str) and parent in by_urn and parent not in seen:
            seen.add(parent)
            if by_urn[parent].get("type") == tokens.PATHWAYS_CLUSTER:
                found = parent
                break
            parent = by_urn[parent].get("parent")
        out[urn] = found
    return out


def pools_of(resources: Iterable[Mapping[str, Any]]) -> list[Pool]:
    resources = list(resources)
    cluster = clusters_of(resources)
    out = []
    allocatable: dict[str, Any] = {}  # machine type -> what GKE leaves on a node (the same for every pool of it)
    by_urn = {str(r.get("urn")): r for r in resources}
    for r in resources:
        if r.get("type") != tokens.NODE_POOL:
            continue
        inputs = r.get("inputs") or {}
        if r.get("read"):  # an existing slice pool (tpuPools[].create: false): its shape is its group's
            inputs = _existing_slice_inputs(r, by_urn.get(str(r.get("parent"))))
        machine = value_at(inputs, "nodeConfig.machineType")
        name = inputs.get("name")
        if not isinstance(machine, str) or not isinstance(name, str) or COMPUTED in (machine, name):
            continue
        host = TPU_HOSTS.get(machine) or cpu_machine(machine)
        if host is None:
            continue
        zones = inputs.get("nodeLocations")
        zone_count = len(zones) if isinstance(zones, list) and zones else 1
        autoscaling = inputs.get("autoscaling") or {}
        max_nodes = (_int(autoscaling.get("totalMaxNodeCount"))
                     or (_int(autoscaling.get("maxNodeCount")) or 0) * zone_count
                     or (_int(inputs.get("nodeCount")) or 0) * zone_count
                     or (_int(inputs.get("initialNodeCount")) or 0) * zone_count)
        labels = {k: str(v) for k, v in (value_at(inputs, "nodeConfig.labels") or {}).items()}
        labels[NODEPOOL_LABEL] = name
        topology = value_at(inputs, "placementPolicy.tpuTopology")
        if isinstance(topology, str):
            labels[TPU_TOPOLOGY_LABEL] = topology
        alloc = allocatable.get(machine) or allocatable.setdefault(machine, gke_allocatable(host))
        chips = _tpu_chips(machine)
        out.append(Pool(name=name, resource=str(r.get("name")), machine_type=machine, labels=labels,
                        taints=list(value_at(inputs, "nodeConfig.taints") or []), max_nodes=max_nodes,
                        nodes=[Node(alloc.millicores, alloc.memory_bytes, chips) for _ in range(max_nodes)],
                        urn=str(r.get("urn") or ""), cluster=cluster.get(str(r.get("urn")))))
    return out


def _existing_slice_inputs(pool: Mapping[str, Any], group: Optional[Mapping[str, Any]]) -> dict[str, Any]:
    """What the fit knows of an existing slice pool a group reads: the group's declared shape (its registered
    outputs), GKE's TPU taint, no label of ours. Empty for any other read pool (its shape is unknown offline)."""
    outputs = (group or {}).get("outputs") or {}
    if (group or {}).get("type") != tokens.TPU_SLICE_GROUP or not outputs.get("machineType"):
        return {}
    name = str(pool.get("options", {}).get("id", "")).rsplit("/", 1)[-1] or str(pool.get("name"))
    return {"name": name, "nodeConfig": {"machineType": outputs["machineType"], "taints": [dict(TPU_TAINT)]},
            "nodeCount": outputs.get("vmsPerSlice"), "placementPolicy": {"tpuTopology": outputs.get("topology")}}


def _quantity(value: Any) -> Decimal:
    try:
        return parse_quantity(str(value))
    except ValueError:
        return Decimal(0)


def _requests(spec: Mapping[str, Any]) -> tuple[int, int, int]:
    def one(container: Mapping[str, Any]) -> tuple[Decimal, Decimal, Decimal]:
        res = container.get("resources") or {}
        req, lim = res.get("requests") or {}, res.get("limits") or {}
        get = lambda k: _quantity(req[k]) if k in req else _quantity(lim[k]) if k in lim else Decimal(0)  # noqa: E731
        return get("cpu"), get("memory"), get(TPU_RESOURCE)

    main = [one(c) for c in spec.get("containers") or []]
    init = [one(c) for c in spec.get("initContainers") or []]
    total = [sum((m[i] for m in main), Decimal(0)) for i in range(3)]
    for i in range(3):
        total[i] = max(total[i], max((c[i] for c in init), default=Decimal(0)))
    return int(total[0] * 1000), int(total[1]), int(total[2])


def _anti(metadata: Mapping[str, Any], spec: Mapping[str, Any]) -> Optional[str]:
    labels = metadata.get("labels") or {}
    for term in value_at(spec, "affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution") or []:
        if term.get("topologyKey") != HOSTNAME:
            continue
        match = value_at(term, "labelSelector.matchLabels") or {}
        if match and all(labels.get(k) == v for k, v in match.items()):
            return ",".join(f"{k}={v}" for k, v in sorted(match.items()))
    return None


def _ramdisk_bytes(resources: Iterable[Mapping[str, Any]]) -> int:
    """The multi-tier checkpointing RAM disk a pod mounting it holds on its node: the largest inMemoryVolumeSize of
    the plan's CheckpointConfigurations (a memory-backed volume counts against the node's memory)."""
    sizes = [_quantity(value_at(r, "inputs.spec.inMemoryVolumeSize")) for r in resources
             if value_at(r, "inputs.kind") == MTC_KIND]
    return int(max(sizes, default=Decimal(0)))


def _mounts_ramdisk(spec: Mapping[str, Any]) -> bool:
    return any(value_at(v, "csi.driver") == MTC_CSI_DRIVER for v in spec.get("volumes") or [])


def _pod(owner: str, role: str, template: Mapping[str, Any], ramdisk: int = 0) -> Pod:
    metadata, spec = template.get("metadata") or {}, template.get("spec") or {}
    cpu_m, memory, tpu = _requests(spec)
    if ramdisk and _mounts_ramdisk(spec):
        memory += ramdisk
    selector = tuple(sorted((k, str(v)) for k, v in (spec.get("nodeSelector") or {}).items()))
    tolerations = tuple((str(t.get("key", "")), t.get("value") if t.get("operator") != "Exists" else None,
                         str(t.get("effect", ""))) for t in spec.get("tolerations") or [])
    return Pod(owner, role, cpu_m, memory, tpu, selector, tolerations, _anti(metadata, spec))


def _queued(pod: Pod, inputs: Mapping[str, Any]) -> Pod:
    return replace(pod, queued=bool(value_at(inputs, ("metadata", "labels", QUEUE_NAME_LABEL))))


def subgroup_index(pod_count: int, subgroup_size: int, worker_index: int, lws_version: str) -> int:
    """The subgroup of pod `worker_index` (0 = the leader) of a group of `pod_count` pods (LeaderWorker type).

    kubernetes-sigs/lws pkg/webhooks/pod_webhook.go getSubGroupIndex; from v0.10.0 (lws#918) an even split is
    checked first, so with subGroupSize 1 every pod (the leader too) is its own subgroup."""
    fixed = version_key(lws_version) >= SUBGROUP_FIX_SINCE
    if fixed and pod_count % subgroup_size == 0:
        return worker_index // subgroup_size
    if (pod_count - 1) % subgroup_size == 0:  # the leader is the pod beyond an even split: it joins subgroup 0
        return 0 if worker_index == 0 else (worker_index - 1) // subgroup_size
    return worker_index // subgroup_size


# A group of pods placed together: `exclusive` when it needs a node pool of its own.
Group = tuple[list[Pod], bool]


def groups_of(resources: Iterable[Mapping[str, Any]], lws_version: str) -> list[Group]:
    resources = list(resources)
    cluster = clusters_of(resources)
    ramdisk = _ramdisk_bytes(resources)
    out: list[Group] = []
    for r in resources:
        groups = _object_groups(r, lws_version, ramdisk)
        home = cluster.get(str(r.get("urn")))
        out += [([replace(p, cluster=home) for p in pods], exclusive) for pods, exclusive in groups] \
            if home is not None else groups
    return out + _controller_groups(resources, cluster)


def _object_groups(r: Mapping[str, Any], lws_version: str, ramdisk: int = 0) -> list[Group]:
    """The pod groups of one planned Kubernetes object (none for anything else)."""
    inputs = r.get("inputs") or {}
    kind, name = inputs.get("kind"), value_at(inputs, "metadata.name")
    if "apiVersion" not in inputs or not isinstance(name, str):
        return []
    owner = f"{kind} {name}"
    spec = inputs.get("spec") or {}
    out: list[Group] = []
    if r.get("type") == tokens.JOBSET:
        for rj in spec.get("replicatedJobs") or []:
            job = value_at(rj, "template.spec") or {}
            count = _int(job.get("parallelism")) or 1
            topology = (value_at(rj, ("template", "metadata", "annotations", EXCLUSIVE_TOPOLOGY_ANNOTATION))
                        or value_at(inputs, ("metadata", "annotations", EXCLUSIVE_TOPOLOGY_ANNOTATION)))
            exclusive = topology == NODEPOOL_LABEL
            pod = _queued(_pod(owner, str(rj.get("name", "pod")), job.get("template") or {}, ramdisk), inputs)
            if topology == HOSTNAME:  # each Job alone on its node
                pod = replace(pod, anti=pod.anti or "exclusive-node")
            for _ in range(_int(rj.get("replicas")) or 1):
                out.append(([pod] * count, exclusive))
    elif r.get("type") == tokens.LEADER_WORKER_SET:
        out += _lws_groups(owner, inputs, lws_version)
    elif r.get("type") == tokens.DEPLOYMENT:
        pod = _pod(owner, "pod", spec.get("template") or {})
        out += [([pod], False) for _ in range(_int(spec.get("replicas")) or 1)]
    elif r.get("type") == tokens.JOB:
        pod = _pod(owner, "pod", spec.get("template") or {})
        out += [([pod], False) for _ in range(_int(spec.get("parallelism")) or 1)]
    return out


CONTROLLER_NAMES = {"jobset": "JobSet", "kueue": "Kueue", "lws": "LeaderWorkerSet"}


def _recorded_resources(value: Any) -> Optional[dict[str, Any]]:
    try:
        recorded = json.loads(value) if isinstance(value, str) else None
    except ValueError:
        return None
    return recorded if isinstance(recorded, dict) else None


def _head_pool_of(marker: Mapping[str, Any], head_pools: Sequence[Mapping[str, Any]],
                  cluster: Mapping[str, Optional[str]]) -> Optional[Mapping[str, Any]]:
    """The CPU (head) pool of the marker's cluster: the one under the same PathwaysCluster, else the plan's only one."""
    home = cluster.get(str(marker.get("urn")))
    same = [p for p in head_pools if home is not None and cluster.get(str(p.get("urn"))) == home]
    if len(same) == 1:
        return same[0]
    return head_pools[0] if len(head_pools) == 1 else None


def _controller_groups(resources: Sequence[Mapping[str, Any]], cluster: Mapping[str, Optional[str]]) -> list[Group]:
    """The controllers of the yaml/v2 installs, whose Deployments the plan does not hold. The readiness ConfigMap
    (addons.readiness_marker) records each installed controller's release (`<addon>.version`) and, when the stack
    sizes it, the manager container's resources (`<addon>.resources`, addons/sizing.py). The release manifest's
    Deployment (releases.controller_manifest: its replicas and every container's requests) is placed with the
    manager sized as recorded, on its cluster's CPU pool: addons/install.pin_to_node_pool pins every Deployment of
    every install, LeaderWorkerSet's too (services.install_transforms), to the pool whose nodes carry
    `pathways-gke/role: head`. A vendored manifest (`<addon>.manifest`) is placed with its release's numbers.
    `cluster`: clusters_of(resources)."""
    head_pools = [r for r in resources if r.get("type") == tokens.NODE_POOL
                  and value_at(r, ("inputs", "nodeConfig", "labels", ROLE_LABEL)) == HEAD_ROLE
                  and isinstance(value_at(r, "inputs.name"), str)]
    out: list[Group] = []
    for marker in resources:
        if marker.get("type") != tokens.CONFIG_MAP or value_at(marker, "inputs.metadata.name") != SERVICES_CONFIGMAP:
            continue
        pool = _head_pool_of(marker, head_pools, cluster)
        if pool is None:
            continue
        pool_name = str(value_at(pool, "inputs.name"))
        data = value_at(marker, "inputs.data") or {}
        for addon, title in CONTROLLER_NAMES.items():
            version = data.get(f"{addon}.version")
            try:
                manifest = controller_manifest(addon, version) if isinstance(version, str) else None
            except ValueError:  # a computed or malformed version: nothing to read the manifest of
                manifest = None
            if manifest is None:
                continue
            sized = _recorded_resources(data.get(f"{addon}.resources"))
            recorded = data.get(f"{addon}.replicas")  # dynamic slicing: XPK's 3 Kueue replicas
            replicas = int(recorded) if isinstance(recorded, str) and recorded.isdigit() else manifest.replicas
            containers = [{"name": c.name, "resources": sized if sized is not None and c.name == MANAGER
                           else c.resources()} for c in manifest.containers]
            template = {"spec": {"nodeSelector": {NODEPOOL_LABEL: pool_name}, "containers": containers}}
            pod = _pod(f"Deployment {manifest.namespace}/{manifest.deployment}", "controller", template)
            size = (f"sized for the cluster, {addon}.sizeForCluster; false keeps the release manifest's requests"
                    if sized is not None else f"its release manifest's requests, {manifest.source}")
            advice = (f"the {title} controller {version} runs {replicas} pod(s) of {_cpu_text(pod.cpu_m)} "
                      f"CPU / {pod.memory // 2**20}Mi on the CPU pool: {size}")
            pod = replace(pod, pool=pool.get("urn") if isinstance(pool.get("urn"), str) else None, advice=advice)
            out += [([pod], False) for _ in range(replicas)]
            # the Deployments keep the default RollingUpdate strategy (25% / 25%: maxSurge rounds up to one pod,
            # maxUnavailable down to none, for the 1 or 2 replicas they run): a rollout starts one more pod and
            # removes an old one only once it is Ready (kubernetes apps/v1 DeploymentStrategy defaults)
            out.append(([replace(pod, role=ROLLOUT, queued=True, surge=True)], False))
    return out


def _cpu_text(millicores: int) -> str:
    return str(millicores // 1000) if millicores % 1000 == 0 else f"{millicores}m"


def _lws_groups(owner: str, inputs: Mapping[str, Any], lws_version: str) -> list[Group]:
    spec = inputs.get("spec") or {}
    lwt = spec.get("leaderWorkerTemplate") or {}
    size = _int(lwt.get("size")) or 1
    worker = _queued(_pod(owner, "worker", lwt.get("workerTemplate") or {}), inputs)
    leader = _queued(_pod(owner, "leader", lwt.get("leaderTemplate") or lwt.get("workerTemplate") or {}), inputs)
    annotations = value_at(inputs, "metadata.annotations") or {}
    policy = lwt.get("subGroupPolicy") or {}
    subgroup_size = _int(policy.get("subGroupSize"))
    out: list[Group] = []
    for _ in range(_int(spec.get("replicas")) or 1):
        pods = [leader] + [worker] * (size - 1)
        if annotations.get(LWS_SUBGROUP_EXCLUSIVE_TOPOLOGY) == NODEPOOL_LABEL and subgroup_size:
            subgroups: dict[int, list[Pod]] = {}
            loose: list[Pod] = []
            for i, pod in enumerate(pods):
                if policy.get("subGroupPolicyType") == "LeaderExcluded":
                    if i == 0:
                        loose.append(pod)
                        continue
                    index = (i - 1) // subgroup_size
                else:
                    index = subgroup_index(size, subgroup_size, i, lws_version)
                subgroups.setdefault(index, []).append(pod)
            out += [(group, True) for _, group in sorted(subgroups.items())]
            out += [([pod], False) for pod in loose]
        else:
            out.append((pods, annotations.get(LWS_EXCLUSIVE_TOPOLOGY) == NODEPOOL_LABEL))
    return out


# --- placing ------------------------------------------------------------------------------------------------


def _tolerates(pod: Pod, taint: Mapping[str, Any]) -> bool:
    effect = {"NO_SCHEDULE": "NoSchedule", "PREFER_NO_SCHEDULE": "PreferNoSchedule",
              "NO_EXECUTE": "NoExecute"}.get(str(taint.get("effect")), str(taint.get("effect")))
    if effect == "PreferNoSchedule":
        return True
    for key, value, t_effect in pod.tolerations:
        if key in ("", taint.get("key")) and (value is None or value == str(taint.get("value", ""))) \
                and t_effect in ("", effect):
            return True
    return False


def _matches(pod: Pod, pool: Pool) -> bool:
    if pod.pool is not None and pool.urn != pod.pool:
        return False
    if pod.cluster is not None and pool.cluster is not None and pod.cluster != pool.cluster:
        return False
    for key, value in pod.selector:
        if key == TPU_ACCELERATOR_LABEL:
            if not TPU_HOSTS.get(pool.machine_type) or _tpu_chips(pool.machine_type) == 0:
                return False
            continue  # the accelerator's name is GKE's; a TPU pool of the requested topology is enough
        if key not in pool.labels:
            if key.startswith("cloud.google.com/") and key != NODEPOOL_LABEL:
                continue  # a label GKE sets that the plan does not carry: assumed present
            return False
        if pool.labels[key] != value:
            return False
    if pod.tpu and _tpu_chips(pool.machine_type) == 0:
        return False
    return all(_tolerates(pod, t) for t in pool.taints)


class PoolIndex:
    """The pools each kind of pod may use, looked up once per kind (what it selects, tolerates, asks for and where it
    belongs) rather than once per pod: pods of a workload are alike, so 256 slices cost about as many matcher calls
    as 16. Positions index the plan's pools, so one index serves every fresh copy `pools_of` makes of them."""

    def __init__(self, pools: Sequence[Pool]):
        self.pools = list(pools)
        self._by_kind: dict[tuple, tuple[int, ...]] = {}

    @staticmethod
    def kind(pod: Pod) -> tuple:
        return pod.selector, pod.tolerations, pod.tpu > 0, pod.pool, pod.cluster

    def positions(self, pod: Pod) -> tuple[int, ...]:
        key = self.kind(pod)
        found = self._by_kind.get(key)
        if found is None:
            found = self._by_kind[key] = tuple(i for i, pool in enumerate(self.pools) if _matches(pod, pool))
        return found

    def for_all(self, pods: Sequence[Pod]) -> tuple[int, ...]:
        """Positions of the pools every one of `pods` may use."""
        kinds = {self.kind(pod): pod for pod in pods}
        common: Optional[set[int]] = None
        for pod in kinds.values():
            mine = set(self.positions(pod))
            common = mine if common is None else common & mine
        return tuple(sorted(common or ()))


def _fits_an_empty_node(pod: Pod, pool: Pool) -> bool:
    host = TPU_HOSTS.get(pool.machine_type) or cpu_machine(pool.machine_type)
    if host is None:
        return True
    alloc = gke_allocatable(host)
    return Node(alloc.millicores, alloc.memory_bytes, _tpu_chips(pool.machine_type)).take(pod)


def _pack(pods: Sequence[Pod], nodes: list[Node]) -> int:
    """Place pods first-fit on nodes; the number that found no node."""
    missing = 0
    start: dict[Pod, int] = {}  # nodes before this index had no room for this pod (room only shrinks)
    for pod in sorted(pods, key=lambda p: (p.tpu, p.cpu_m, p.memory), reverse=True):
        i = start.get(pod, 0)
        while i < len(nodes) and not nodes[i].take(pod):
            i += 1
        start[pod] = i
        if i == len(nodes):
            missing += 1
    return missing


def place(resources: Sequence[Mapping[str, Any]], lws_version: str = "v0.10.0") -> list[Shortfall]:
    """Every shortfall of the plan's pods on its node pools at their maximum size (empty: everything fits)."""
    pools = pools_of(resources)
    index = PoolIndex(pools)
    groups = groups_of(resources, lws_version)
    short: dict[tuple[str, str, str], list[int]] = {}  # (owner, role, reason) -> [missing, total]
    queued: dict[tuple[str, str, str], bool] = {}
    advice: dict[tuple[str, str, str], str] = {}
    considered: dict[tuple[str, str, str], set[str]] = {}

    described: dict[tuple[int, ...], frozenset[str]] = {}

    def count(pod: Pod, reason: str, missing: int, total: int, positions: tuple[int, ...]) -> None:
        key = (pod.owner, pod.role, reason)
        queued[key] = pod.queued
        advice[key] = pod.advice
        entry = short.setdefault(key, [0, 0])
        entry[0] += missing
        entry[1] += total
        if positions not in described:
            described[positions] = frozenset(f"{pools[i].name} ({pools[i].max_nodes} x {pools[i].machine_type})"
                                             for i in positions)
        considered.setdefault(key, set()).update(described[positions])

    def claim(pods: list[Pod], candidates: list[Pool]) -> bool:
        for pool in candidates:
            if pool.exclusive_owner is not None:
                continue
            trial = [Node(n.cpu_m, n.memory, n.tpu, set(n.heads)) for n in pool.nodes]
            if _pack(pods, trial) == 0:
                pool.nodes, pool.exclusive_owner = trial, pods[0].owner
                return True
        return False

    exclusive = sorted((g[0] for g in groups if g[1]), key=lambda pods: -len(pods))
    # a workload alone on the cluster: a group that finds no pool of its own never schedules
    alone_fails: set[int] = set()
    for owner in sorted({pods[0].owner for pods in exclusive}):
        alone = pools_of(resources)
        for pods in exclusive:
            if pods[0].owner == owner and not claim(pods, [alone[i] for i in index.for_all(pods)
                                                           if alone[i].exclusive_owner is None]):
                alone_fails.add(id(pods))
    # all workloads together (largest groups first): each group takes a whole pool nobody else took; a group that
    # fits alone but not beside the others waits for their pools (the scheduler runs them one after another)
    for pods in exclusive:
        every = index.for_all(pods)
        if not any(index.positions(pod) for pod in pods):
            continue  # pinned to pools this plan does not declare (an adopted cluster's): nothing to place on
        if claim(pods, [pools[i] for i in every if pools[i].exclusive_owner is None]):
            continue
        if id(pods) in alone_fails:
            reason = ("each group needs a node pool of its own (exclusive topology) and the matching pools are too "
                      "few or too small")
            waits = False
        else:
            reason = "its groups wait for node pools other workloads hold (exclusive topology)"
            waits = True
        for pod in pods:  # a group that finds no pools even alone is refused, Kueue or not
            count(replace(pod, queued=waits), reason, 1, 1, every)

    # then everything else, on whatever room is left
    loose: dict[Pod, int] = {}
    for group, is_exclusive in groups:
        if not is_exclusive:
            for pod in group:
                loose[pod] = loose.get(pod, 0) + 1
    # the controllers' rollout pods last: they need what is left once everything else runs
    for pod, total in sorted(loose.items(), key=lambda kv: (not kv[0].surge, kv[0].tpu, kv[0].cpu_m, kv[0].memory),
                             reverse=True):
        positions = index.positions(pod)
        matching = [pools[i] for i in positions]
        if not matching:
            continue  # pinned to pools this plan does not declare (an adopted cluster's): nothing to place on
        nodes = [n for p in matching for n in p.nodes]
        missing = _pack([pod] * total, nodes)
        if missing:
            if pod.surge:
                reason = ("a rolling update starts one more controller pod beside the running ones (maxSurge 1, "
                          "maxUnavailable 0) and no node has room left for it")
            elif not any(_fits_an_empty_node(pod, p) for p in matching):
                reason = f"{LARGER_THAN_A_NODE} ({_cpu_text(pod.cpu_m)} CPU / {pod.memory // 2**20}Mi)"
            elif pod.anti:
                reason = "one per node (the head guard)"
            else:
                reason = "requests exceed what the nodes have left"
            # TPU slices are shared by workloads that run in turn; what must run side by side on the CPU pool
            # (heads, client proxies, leaders) never waits legitimately
            fresh_pools = pools_of(resources)
            fresh = [n for i in index.positions(pod) for n in fresh_pools[i].nodes]
            fits_alone = _pack([pod] * total, fresh) == 0
            if pod.tpu and fits_alone:
                reason, pod = "they wait for TPU hosts other workloads hold", replace(pod, queued=True)
            elif not fits_alone and not pod.surge:
                # Kueue admits pods in turn; it cannot make room the pools lack even with nothing else running
                pod = replace(pod, queued=False)
            count(pod, reason, missing, total, positions)
        elif total:
            count(pod, "", 0, total, positions)
    return [Shortfall(owner, role, m, t, tuple(sorted(considered[(owner, role, reason)])), reason,
                      queued[(owner, role, reason)], advice[(owner, role, reason)])
            for (owner, role, reason), (m, t) in sorted(short.items()) if m]


def lws_version_of(resources: Iterable[Mapping[str, Any]], default: str = "v0.10.0") -> str:
    """The LeaderWorkerSet release the plan installs (the readiness ConfigMap's `lws.version`, or the version in
    its manifest URL), else `default`."""
    resources = list(resources)
    for r in resources:
        version = value_at(r, ("inputs", "data", "lws.version")) if r.get("type") == tokens.CONFIG_MAP else None
        if isinstance(version, str) and re.fullmatch(r"v[0-9]+\.[0-9]+\.[0-9]+", version):
            return version
    for r in resources:
        url = value_at(r, "inputs.file")
        match = re.search(r"kubernetes-sigs/lws/releases/download/(v[0-9][^/]*)/", url) if isinstance(url, str) else None
        if match:
            return match[1]
    return default


__all__ = ["Pod", "Pool", "PoolIndex", "Shortfall", "groups_of", "lws_version_of", "place", "pools_of", "subgroup_index"]

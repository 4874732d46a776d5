"""Checks of one `mode: serving` / `mode: service` workload against its pool, the LWS release and the CPU pool.

Used by `checks.workload_problems` for stack files and by the `PathwaysServing` component for standalone use,
so both report the same problems with the same paths. Facts: kubernetes-sigs/lws (name limits lws#410,
feature tags), Pathways ports (naming.PATHWAYS_PORTS).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Optional

from .. import naming
from ..catalog import TPU_HOSTS, cannot_size_reason, cpu_machine, gke_allocatable
from ..errors import Problem
from ..releases import kueue_lws_name_problem, version_key
from .pathways import jax_release_of
from ..pathways_facts import RM_CONTAINER
from .pathways_checks import MAX_DNS_LABEL, SERVER_REQUESTS, SERVER_SIZES, shortfall, head_requests, tpu_head_server_sizes
from .placement import Placement
from .workloads import PathwaysWorkloadConfig, is_given


# LWS releases that bring a feature the rendered LeaderWorkerSet uses (LWS git tags, read from the code).
LEADER_EXCLUDED_SINCE = "v0.6.0"  # subGroupPolicyType: LeaderExcluded (a head on the CPU pool)
MUTABLE_SIZE_SINCE = "v0.7.0"  # leaderWorkerTemplate.size may change (earlier: immutable)
# The oldest Pathways release whose IFRT proxy is documented accepting IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true on
# the pod network: AXLearn's LWS layout pins proxy_server:20260128-jax_0.9.0 (PATHWAYS_SERVING.md §2.9); Shared
# Pathways Service renders it with jax-0.10.0. XLA reads "true" only since grpc_credentials_possibly_insecure_wrapper.cc
# (2025), which lets Google's internal proxy build allow it; the older grpc_credentials.cc wanted "yes" and CHECK-failed
# outside OSS builds. Older releases (GKE's JetStream tutorial pins jax-0.5.3) need ALTS, i.e. Workload Identity off
# on the node pools, which this project does not do (it would hand every pod the node's service account).
INSECURE_PROXY_SINCE = (0, 9, 0)
# Env LWS injects into every container of a group (a user variable of the same name is replaced).
LWS_ENV = ("LWS_LEADER_ADDRESS", "LWS_GROUP_SIZE", "LWS_WORKER_INDEX")
# Resource-manager-only head (mode service): the limits of its one server.
RM_ONLY_REQUESTS = SERVER_SIZES[RM_CONTAINER]

@dataclass(frozen=True)
class Layout:
    """The group shape of an LWS workload: `replicas` groups of one head + `slices` slices of `vms` VMs."""

    replicas: int
    slices: int  # slices per group
    vms: int  # VMs per slice
    surge: int  # extra groups during a rolling update
    leader: str  # tpu | cpu

    @property
    def size(self) -> int:
        """LWS `leaderWorkerTemplate.size`: the leader plus every worker VM of the group."""
        return self.slices * self.vms + 1


def layout_of(workload: PathwaysWorkloadConfig, placement: Placement) -> Layout:
    if placement.shape is None:
        raise ValueError(f"workload {workload.name!r} has no TPU pool group")
    vms = placement.shape.vms_per_slice
    if workload.serving is not None:
        s = workload.serving
        return Layout(s.replicas, s.slices_per_replica, vms, s.max_surge, s.leader)
    if workload.service is not None:
        return Layout(1, placement.slice_count, vms, 0, workload.service.leader)
    raise ValueError(f"workload {workload.name!r} is not in mode serving or service")


def max_lws_name(groups: int) -> int:
    """Longest LWS name whose worker StatefulSet `<lws>-<g>` still fits the 52-character StatefulSet limit."""
    return 52 - 1 - len(str(max(groups - 1, 0)))


def leader_server_requests(workload: PathwaysWorkloadConfig, placement: Placement) -> dict[str, Decimal]:
    """What the Pathways servers of an LWS leader request, summed: sized for a TPU VM with leader tpu."""
    assert placement.shape is not None
    serving = workload.mode == "serving"
    if layout_of(workload, placement).leader == "tpu":
        sizes = tpu_head_server_sizes(placement.shape.machine_type, proxy=serving)
        return {key: sum((s[key] for s in sizes.values()), Decimal(0)) for key in ("cpu", "memory")}
    return dict(SERVER_REQUESTS) if serving else dict(RM_ONLY_REQUESTS)


def serving_workload_problems(workload: PathwaysWorkloadConfig, placement: Placement, path: str, *, lws_version: str,
                              kueue_version: Optional[str] = None) -> list[Problem]:
    """Every problem of a serving/service workload that the LWS builder relies on being absent.

    `kueue_version`: the Kueue release that admits the workload (None: not queued)."""
    if not workload.on_lws or placement.shape is None:
        return []
    out: list[Problem] = []
    at = lambda field: f"{path}.{field}"  # noqa: E731
    block = "serving" if workload.mode == "serving" else "service"
    layout = layout_of(workload, placement)
    pw = workload.pathways

    # options of the JobSet layout that have no meaning on a LeaderWorkerSet
    for field, given in (("maxRestarts", workload.max_restarts > 0),
                         ("pathways.elasticSlices", pw.elastic_slices > 0),
                         ("pathways.maxSliceRestarts", pw.max_slice_restarts != 1),
                         ("pathways.images.colocatedPython", pw.images.colocated_python is not None)):
        if given:
            out.append(Problem(at(field), f"is not supported in mode '{workload.mode}' (a LeaderWorkerSet "
                               "recreates a failed group instead of counting restarts); remove it"))

    if layout.leader == "cpu" and version_key(lws_version) < version_key(LEADER_EXCLUDED_SINCE):
        out.append(Problem(at(f"{block}.leader"), f"'cpu' needs LeaderWorkerSet {LEADER_EXCLUDED_SINCE} or newer "
                           f"(subGroupPolicyType LeaderExcluded keeps the head out of the slices' node pools); lws."
                           f"version is {lws_version}: raise it or use leader: tpu", layout.leader))

    # names LWS derives: worker StatefulSet <lws>-<g> (<= 52), pods <lws>-<g>-<w> (<= 63)
    groups = layout.replicas + layout.surge
    limit = max_lws_name(groups)
    if len(workload.name) > limit:
        out.append(Problem(at("name"), f"is {len(workload.name)} characters; a LeaderWorkerSet of {groups} group(s) "
                           f"allows at most {limit} (its worker StatefulSet '<name>-<group>' labels pods with "
                           "'<name>-<group>-<revision hash>', a 63-character label)", workload.name))
    else:
        longest = f"{workload.name}-{groups - 1}-{layout.size - 1}"
        if len(longest) > MAX_DNS_LABEL:
            out.append(Problem(at("name"), f"makes worker pod name '{longest}' longer than {MAX_DNS_LABEL} "
                               "characters", workload.name))
        elif kueue_version is not None and placement.queue_name:
            why = kueue_lws_name_problem(kueue_version, workload.name)
            if why:
                out.append(Problem(at("name"), why, workload.name))

    if workload.serving is not None:
        out.extend(_serving_problems(workload, placement, layout, path))
    else:
        out.extend(_service_problems(workload, placement, path))

    for source, names in (("env", workload.env), ("secretEnv", workload.secret_env),
                          ("pathways.env.server", pw.env.server), ("pathways.env.proxy", pw.env.proxy),
                          ("pathways.env.worker", pw.env.worker),
                          *((f"sidecars[{i}].env", s.env) for i, s in enumerate(workload.sidecars))):
        for name in sorted(set(names) & set(LWS_ENV)):
            out.append(Problem(at(f"{source}.{name}"), "is set by the LeaderWorkerSet controller in every container "
                               f"of the group; not allowed: {', '.join(LWS_ENV)}"))

    release = jax_release_of(pw.version) if pw.version and pw.images.proxy is None else None
    if release is not None and release < INSECURE_PROXY_SINCE:
        out.append(Problem(at("pathways.version"), f"is a Pathways release for JAX {'.'.join(map(str, release))}; in "
                           f"mode '{workload.mode}' the IFRT proxy listens on the pod network and its clients connect "
                           "with insecure gRPC credentials (IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true), which "
                           "Pathways proxies are known to accept from jax-"
                           f"{'.'.join(map(str, INSECURE_PROXY_SINCE))} on (older ones speak only ALTS, unreachable "
                           "from a Workload Identity pod); use jax-0.9.0 or newer", pw.version))

    # the pod-network proxy's credentials are ours (render/serving_lws.py INSECURE_CREDENTIALS_ENV)
    for source, names in (("env", workload.env), ("secretEnv", workload.secret_env),
                          ("pathways.env.proxy", pw.env.proxy)):
        if naming.IFRT_PROXY_INSECURE_ENV in names and (source.startswith("pathways") or workload.mode == "serving"):
            out.append(Problem(at(f"{source}.{naming.IFRT_PROXY_INSECURE_ENV}"), "is set to \"true\" by "
                               f"pathways-gke in mode '{workload.mode}' (the proxy listens on the pod network, "
                               "where ALTS credentials cannot be used); remove it"))

    # the head pod must fit where it runs
    need = head_requests(workload, leader_server_requests(workload, placement))
    if layout.leader == "tpu":
        host = TPU_HOSTS.get(placement.shape.machine_type)
        if host is None:
            out.append(Problem(at(f"{block}.leader"), f"'tpu' puts the head on a {placement.shape.machine_type} TPU "
                               "host, which has no size in the catalog (its vCPUs and memory are not in a stored "
                               "source), so the Pathways servers and the server cannot be shown to fit beside the "
                               "host's worker; use leader: cpu", layout.leader))
        short = shortfall(need, gke_allocatable(host)) if host else None
        if short:
            out.append(Problem(at(f"{block}.leader"), f"'tpu' puts the head on a {placement.shape.machine_type} TPU "
                               f"host, which cannot hold it ({short}); use leader: cpu or lower resources.requests",
                               layout.leader))
    elif placement.cpu_machine_type is not None:
        machine = cpu_machine(placement.cpu_machine_type)
        if machine is None:
            out.append(Problem(at(f"{block}.leader"), f"'cpu' puts the head on the CPU pool, whose machine type "
                               f"'{placement.cpu_machine_type}' {cannot_size_reason(placement.cpu_machine_type)}; "
                               "use a machine type the catalog sizes, such as n2-standard-64", layout.leader))
        short = shortfall(need, gke_allocatable(machine)) if machine else None
        if short and machine is not None:
            out.append(Problem(at("resources"), f"makes the head pod too large for a cpuPool node ({machine.name}: "
                               f"{short}); lower resources.requests or use a larger cpuPool.machineType"))
    return out


def _serving_problems(workload: PathwaysWorkloadConfig, placement: Placement, layout: Layout, path: str) -> list[Problem]:
    out: list[Problem] = []
    serving = workload.serving
    assert serving is not None
    at = lambda field: f"{path}.serving.{field}"  # noqa: E731
    needed = (layout.replicas + layout.surge) * layout.slices
    if layout.replicas * layout.slices > placement.slice_count:
        out.append(Problem(at("replicas"), f"x serving.slicesPerReplica {layout.slices} = "
                           f"{layout.replicas * layout.slices} slices, more than TPU pool '{placement.group_text}' has "
                           f"({placement.slice_count}); every group holds whole slices", layout.replicas))
    elif needed > placement.slice_count:
        out.append(Problem(at("maxSurge"), f"spare group(s) of {layout.slices} slice(s) during a rolling update need "
                           f"{needed} slices with the replicas, but TPU pool '{placement.group_text}' has {placement.slice_count}",
                           layout.surge))
    # the server container shares the leader pod with the proxy and the resource manager only (no hostNetwork:
    # the workers' ports are in their own pods), so only those ports clash
    reserved = set(_LEADER_POD_PORTS)
    if serving.port is not None and serving.port in reserved:
        out.append(Problem(at("port"), _port_clash(), serving.port))
    for i, port in enumerate(serving.ports):
        if port.port in reserved:
            out.append(Problem(at(f"ports[{i}].port"), _port_clash(), port.port))
    if serving.probes.port is not None and serving.probes.port in reserved:
        out.append(Problem(at("probes.port"), _port_clash(), serving.probes.port))
    return out  # env names pathways-gke sets in the server container: pathways_checks (MANAGED_ENV["user"])


_LEADER_POD_PORTS = (naming.PROXY_PORT, *naming.RM_PORTS)


def _port_clash() -> str:
    return (f"is a port of the Pathways servers in the same pod (proxy, resource manager); not allowed: "
            f"{', '.join(str(p) for p in _LEADER_POD_PORTS)}")


def _service_problems(workload: PathwaysWorkloadConfig, placement: Placement, path: str) -> list[Problem]:
    out: list[Problem] = []
    service = workload.service
    assert service is not None
    at = lambda field: f"{path}.{field}"  # noqa: E731
    if service.client_slices > placement.slice_count:
        out.append(Problem(at("service.clientSlices"), f"is more than the backend's {placement.slice_count} slice(s) "
                           f"(TPU pool '{placement.group_text}')", service.client_slices))
    for i, client in enumerate(service.clients):
        name = naming.client_proxy_name(workload.name, client)
        if len(name) > MAX_DNS_LABEL:
            out.append(Problem(at(f"service.clients[{i}]"), f"makes the proxy Service name '{name}' longer than "
                               f"{MAX_DNS_LABEL} characters; shorten the client or workload name", client))
    for field, given in (("image", workload.image is not None), ("command", workload.command is not None),
                         ("args", bool(workload.args)),
                         ("env", bool(workload.env)), ("secretEnv", bool(workload.secret_env)),
                         ("privileged", workload.privileged), ("gcsFuse", bool(workload.gcs_fuse)),
                         ("containerName", is_given(workload, "container_name")),
                         ("resources", is_given(workload, "resources"))):
        if given:
            out.append(Problem(at(field), "has no effect in mode 'service' (the backend runs only the Pathways "
                               "servers; each client brings its own program); remove it"))
    return out

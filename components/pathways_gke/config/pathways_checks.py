"""Checks of one `runtime: pathways` workload against where it runs (pool shape, CPU pool, names).

Used by `checks.workload_problems` for stack files and by the `PathwaysWorkload` component for standalone
use, so both report the same problems with the same paths.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Optional

from .. import naming
from ..catalog import TPU_HOSTS, Allocatable, cannot_size_reason, cpu_machine, gke_allocatable
from ..errors import Problem
from ..pathways_facts import MANAGED_ENV, PROXY_CONTAINER, SERVER_LIMITS
from .pathways import ContainerResources, SidecarResources, parse_quantity
from .placement import Placement
from .resilience_workload import workload_resilience_problems
from .workloads import RESERVED_CONTAINER_NAMES, PathwaysWorkloadConfig, is_given


GB = Decimal(10**9)


MAX_DNS_LABEL = 63

# The Pathways servers' default sizes, CPU in cores and memory in bytes (pathways_facts.SERVER_LIMITS: limits
# only, so requests = limits), and what a head's servers request together.
SERVER_SIZES = {name: {key: parse_quantity(value) for key, value in limits.items()}
                for name, limits in SERVER_LIMITS.items()}
SERVER_REQUESTS = {key: sum((size[key] for size in SERVER_SIZES.values()), Decimal(0)) for key in ("cpu", "memory")}
# A head on a TPU VM (a serving leader with leader: tpu, a colocated JobSet head) shares it with that VM's
# pathways-worker, which requests only the chips but needs the host's
# CPUs and most of its memory (the TPU runtime's pinned host buffers). Google's JetStream layouts set no resources on
# the leader at all; XPK's limits would reserve 24 CPU / 132 GB there (141 GB with the user container) — most of a
# v5e host. On a TPU VM the Pathways servers get at most this share of the host's allocatable, as requests = limits,
# so they can neither crowd the worker out of memory nor be the first evicted.
TPU_HEAD_SHARE = Decimal("0.25")


def tpu_head_server_sizes(machine_type: str, *, proxy: bool = True) -> dict[str, dict[str, Decimal]]:
    """CPU (cores) and memory (bytes) of each Pathways server in a head on a `machine_type` TPU VM: the default
    sizes, scaled down (CPU and memory each, keeping their ratio) to fit TPU_HEAD_SHARE of the host's GKE
    allocatable (catalog.gke_allocatable); a machine without host facts in the catalog keeps them. `proxy=False`: a
    resource-manager-only head (mode service)."""
    servers = {k: v for k, v in SERVER_SIZES.items() if proxy or k != PROXY_CONTAINER}
    host = TPU_HOSTS.get(machine_type)
    if host is None:  # no host facts in the catalog (e.g. tpu7x): the default sizes, as before
        return {name: dict(size) for name, size in servers.items()}
    alloc = gke_allocatable(host)
    budget = {"cpu": Decimal(alloc.millicores) / 1000 * TPU_HEAD_SHARE,
              "memory": Decimal(alloc.memory_bytes) * TPU_HEAD_SHARE}
    out: dict[str, dict[str, Decimal]] = {name: {} for name in servers}
    for key in ("cpu", "memory"):
        total = sum(size[key] for size in servers.values())
        scale = min(Decimal(1), budget[key] / total)
        for name, size in servers.items():
            if scale == 1:
                out[name][key] = size[key]
            elif key == "cpu":  # whole millicores, rounded down (the sum stays within the budget)
                out[name][key] = Decimal(int(size[key] * scale * 1000)) / 1000
            else:  # whole MiB, rounded down
                out[name][key] = Decimal(int(size[key] * scale / 2**20)) * 2**20
    return out


def quantity(key: str, value: Decimal) -> str:
    """A Kubernetes quantity for a size from tpu_head_server_sizes: whole cores or m; whole G or Mi."""
    if key == "cpu":
        return str(int(value)) if value == int(value) else f"{int(value * 1000)}m"
    return f"{int(value / GB)}G" if value % GB == 0 else f"{int(value / 2**20)}Mi"


def head_requests(workload: PathwaysWorkloadConfig, servers: Optional[dict[str, Decimal]] = None) -> dict[str, Decimal]:
    """CPU (cores) and memory (bytes) the head pod requests: the Pathways servers (`servers`, default
    SERVER_REQUESTS), the user container and the workload's sidecars."""
    total = dict(SERVER_REQUESTS if servers is None else servers)
    containers: list[ContainerResources | SidecarResources] = [c.resources for c in workload.sidecars]
    if has_user_container(workload):
        containers.insert(0, workload.resources)
    for res in containers:
        for key in ("cpu", "memory"):
            value = res.requests.get(key, res.limits.get(key))  # limits-only: requests = limits
            if value is not None:
                total[key] += parse_quantity(value)
    return total


def has_user_container(workload: PathwaysWorkloadConfig) -> bool:
    """The head pod runs the user's program (every mode but headless and service)."""
    return workload.mode not in ("headless", "service")


def head_pod_reserved_ports(workload: PathwaysWorkloadConfig) -> tuple[int, ...]:
    """Ports a sidecar cannot take in the head pod, per layout. A LeaderWorkerSet leader (serving, service) is on the
    pod network and shares its pod only with the Pathways servers in it (render/serving_lws.py leader_template: the
    proxy and the resource manager in mode serving, the resource manager in mode service); its workers are other
    pods. A JobSet head is on the host network (render/pathways_jobset.py), where a colocated head shares the TPU VM
    with a worker: every Pathways port."""
    if workload.on_lws:
        return (naming.PROXY_PORT, *naming.RM_PORTS) if workload.mode == "serving" else naming.RM_PORTS
    return naming.PATHWAYS_PORTS


def sidecar_problems(workload: PathwaysWorkloadConfig, path: str) -> list[Problem]:
    """Names and ports of the head pod's extra containers: unique in the pod, none a Pathways server's."""
    out: list[Problem] = []
    names = {workload.container_name} if has_user_container(workload) else set()
    ports: dict[int, str] = {}
    reserved = head_pod_reserved_ports(workload)
    reserved_ports = set(reserved)
    for i, sidecar in enumerate(workload.sidecars):
        at = f"{path}.sidecars[{i}]"
        if sidecar.name in RESERVED_CONTAINER_NAMES:
            out.append(Problem(f"{at}.name", "is the name of a Pathways container; not allowed: "
                               f"{', '.join(RESERVED_CONTAINER_NAMES)}", sidecar.name))
        elif sidecar.name in names:
            other = ("containerName (the user container)" if sidecar.name == workload.container_name
                     and has_user_container(workload) else "another sidecar")
            out.append(Problem(f"{at}.name", f"is also the name of {other}; container names are unique in a pod",
                               sidecar.name))
        names.add(sidecar.name)
        for j, port in enumerate(sidecar.ports):
            if port in reserved_ports:
                where = ("the leader pod's own Pathways servers (a LeaderWorkerSet leader is on the pod network; "
                         "its workers are other pods)" if workload.on_lws else "the Pathways servers (the head's "
                         "own, or a worker's on the same TPU VM: JobSet pods are on the host network)")
                out.append(Problem(f"{at}.ports[{j}]", f"is a port of {where}; not allowed: "
                                   f"{', '.join(str(p) for p in reserved)}", port))
            elif port in ports:
                out.append(Problem(f"{at}.ports[{j}]", f"is also a port of sidecar '{ports[port]}'; a port is "
                                   "unique in a pod", port))
            ports.setdefault(port, sidecar.name)
    return out


def shortfall(need: dict[str, Decimal], alloc: Allocatable) -> Optional[str]:
    """What a pod needing `need` (cores, bytes) lacks on a node offering `alloc`; None when it fits."""
    short = []
    cpu = Decimal(alloc.millicores) / 1000
    if need["cpu"] > cpu:
        short.append(f"{need['cpu']:.1f} CPU > {cpu:.1f} allocatable")
    if need["memory"] > alloc.memory_bytes:
        short.append(f"{need['memory'] / GB:.0f} GB > {alloc.memory_bytes / GB:.0f} GB allocatable")
    return "; ".join(short) or None


def pathways_workload_problems(workload: PathwaysWorkloadConfig, placement: Placement, path: str,
                               cpu_machine_path: str = "cpuPool.machineType") -> list[Problem]:
    """Every problem of a Pathways workload that the JobSet builder relies on being absent."""
    out: list[Problem] = workload_resilience_problems(workload, path)
    pw = workload.pathways
    at = lambda field: f"{path}.{field}"  # noqa: E731

    if pw.gcs_scratch is None:
        out.append(Problem(at("pathways.gcsScratch"), "is required for runtime 'pathways': a gs://bucket/path the "
                           "Pathways servers use as scratch space (--gcs_scratch_location)"))
    if pw.version is None and pw.uses_default_images:
        missing = [c for c in ("server", "proxy") if getattr(pw.images, c) is None]
        out.append(Problem(at("pathways.version"), "is required when the default Pathways images are used "
                           f"(no custom image for: {', '.join(missing)}); pin the tag matching your client JAX, "
                           "e.g. jax-0.9.2 — an implicit 'latest' is never used"))
    if placement.shape is not None and pw.elastic_slices > placement.slice_count:
        out.append(Problem(at("pathways.elasticSlices"), f"is larger than the pool's {placement.slice_count} slice(s)",
                           pw.elastic_slices))
    if pw.max_slice_restarts != type(pw).model_fields["max_slice_restarts"].default and pw.elastic_slices == 0:
        out.append(Problem(at("pathways.maxSliceRestarts"), "applies only with pathways.elasticSlices > 0 (how often "
                           "one slice may restart before the JobSet fails); without elastic slices any worker "
                           "failure restarts the whole JobSet", pw.max_slice_restarts))

    out.extend(sidecar_problems(workload, path))

    # headless: no user container, so its options would be silently ignored
    if workload.mode == "headless":
        for field, given in (("image", workload.image is not None), ("command", workload.command is not None),
                             ("args", bool(workload.args)),
                             ("env", bool(workload.env)), ("secretEnv", bool(workload.secret_env)),
                             ("privileged", workload.privileged),
                             ("containerName", is_given(workload, "container_name")),
                             ("resources", is_given(workload, "resources"))):
            if given:
                out.append(Problem(at(field), "has no effect in mode 'headless' (the head runs only the Pathways "
                                   "servers; connect a notebook through the port-forward output); remove it"))

    # env names: no duplicates with what we inject, none in both env and secretEnv
    for name in sorted(set(workload.env) & set(MANAGED_ENV["user"])):
        out.append(Problem(at(f"env.{name}"), "is set by pathways-gke in the user container "
                           f"({', '.join(MANAGED_ENV['user'])}); remove it"))
    for name in sorted(set(workload.secret_env) & set(MANAGED_ENV["user"])):
        out.append(Problem(at(f"secretEnv.{name}"), "is set by pathways-gke in the user container; remove it"))
    for name in sorted(set(workload.env) & set(workload.secret_env)):
        out.append(Problem(at(f"secretEnv.{name}"), "is also given in env; a variable comes from one of them"))
    for component in ("server", "proxy", "worker"):
        for name in sorted(set(getattr(pw.env, component)) & set(MANAGED_ENV[component])):
            out.append(Problem(at(f"pathways.env.{component}.{name}"), "is set by pathways-gke in that container; "
                               f"not allowed: {', '.join(MANAGED_ENV[component])}"))

    # GCS FUSE volume names are unique
    seen: dict[str, set[str]] = {"name": set(), "mountPath": set()}
    for i, volume in enumerate(workload.gcs_fuse):
        for key, value in (("name", volume.name), ("mountPath", volume.mount_path)):
            if value in seen[key]:
                out.append(Problem(at(f"gcsFuse[{i}].{key}"), "is used by another gcsFuse volume", value))
            seen[key].add(value)
    if workload.mode == "headless" and any(not v.workers for v in workload.gcs_fuse):
        out.append(Problem(at("gcsFuse"), "mounts into the user container, which headless workloads do not have; "
                           "set workers: true or remove the volume"))

    shape = placement.shape
    if shape is not None and not workload.on_lws:
        # generated names (Jobs, pod host names) must be DNS labels <= 63 (the JobSet webhook checks these)
        longest = naming.worker_pod_hostname(workload.name, max(placement.slice_count - 1, 0), shape.vms_per_slice - 1)
        if len(longest) > MAX_DNS_LABEL:
            out.append(Problem(at("name"), f"makes worker host name '{longest}' longer than {MAX_DNS_LABEL} "
                               "characters", workload.name))

    if workload.on_lws:
        pass  # where the head runs and whether it fits: config/serving_checks.py
    elif workload.mode == "colocated" and shape is not None:
        if placement.slice_count > 1:
            out.append(Problem(at("mode"), f"needs a single-slice TPU pool (this one has {placement.slice_count} "
                               "slices): JobSet's exclusive placement gives each slice's Job a whole node pool, so "
                               "a head placed on one pool would block that pool's worker Job; use mode 'default'",
                               workload.mode))
        host = TPU_HOSTS.get(shape.machine_type)
        if host is None:
            out.append(Problem(at("mode"), f"'colocated' puts the head on a {shape.machine_type} TPU host, which has "
                               "no size in the catalog (its vCPUs and memory are not in a stored source), so the head "
                               "cannot be shown to fit beside the host's worker; use mode 'default' (head on the CPU "
                               "pool)", workload.mode))
        else:
            sizes = tpu_head_server_sizes(shape.machine_type)
            servers = {key: sum((s[key] for s in sizes.values()), Decimal(0)) for key in ("cpu", "memory")}
            short = shortfall(head_requests(workload, servers), gke_allocatable(host))
            if short:
                out.append(Problem(at("mode"), f"'colocated' puts the head on a {shape.machine_type} TPU host, which "
                                   f"cannot hold it ({short}); use mode 'default' (head on the CPU pool) or lower "
                                   "resources.requests", workload.mode))
    elif placement.cpu_machine_type is not None:
        machine = cpu_machine(placement.cpu_machine_type)
        if machine is None:
            out.append(Problem(at("mode"), f"puts the Pathways head on the CPU pool, whose machine type "
                               f"'{placement.cpu_machine_type}' {cannot_size_reason(placement.cpu_machine_type)}; "
                               "use a machine type the catalog sizes, such as n2-standard-64", workload.mode))
        else:
            alloc = gke_allocatable(machine)
            servers_short = shortfall(dict(SERVER_REQUESTS), alloc)
            short = shortfall(head_requests(workload), alloc)
            if servers_short:  # nothing the workload says can make it fit: the machine is the fault
                out.append(Problem(cpu_machine_path, f"is too small for workload {workload.name}'s Pathways head "
                                   f"({machine.name}: {servers_short} for the Pathways servers alone, which request "
                                   "24 CPU / 132 GB); use a larger machine such as n2-standard-64",
                                   placement.cpu_machine_type))
            elif short:
                out.append(Problem(at("resources") if has_user_container(workload) else at("sidecars"),
                                   f"makes the head pod too large for a cpuPool node ({machine.name}: {short}); the "
                                   "Pathways servers alone request 24 CPU / 132 GB. Lower "
                                   f"{'resources' if has_user_container(workload) else 'sidecars[].resources'}"
                                   ".requests or use a larger cpuPool.machineType (n2-standard-64)"))
    return out

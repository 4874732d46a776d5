"""`pathways-gke preflight`: what a live `pulumi up` of a stack would run into, as pure checks over the answers of
Google's APIs (no client import here; google.py asks, this module judges).

Each check ends pass, fail or unknown (the API could not be asked, or it does not say), with the fix. The facts
come from the one config reader (a validated StackConfig), the offline plan's resource types, the catalog and the
GKE rulebook; nothing here re-derives them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Sequence

from .. import tokens
from ..catalog import COMPUTE_TPU_QUOTA_METRICS
from ..gke_rules import below_floor, version_floors

PASS, FAIL, UNKNOWN = "pass", "fail", "unknown"

# The API each created resource type needs (`gcp:<module>/...` -> the service that answers it)
API_OF_MODULE = {"container": "container.googleapis.com", "compute": "compute.googleapis.com",
                 "serviceaccount": "iam.googleapis.com", "projects": "cloudresourcemanager.googleapis.com",
                 "storage": "storage.googleapis.com", "monitoring": "monitoring.googleapis.com"}
# What creating each resource type asks of the caller (https://cloud.google.com/iam/docs/permissions-reference;
# GKE checks container.clusters.update for node-pool changes, and actAs on the node service account)
PERMISSIONS_OF_TYPE: dict[str, tuple[str, ...]] = {
    tokens.GKE_CLUSTER: ("container.clusters.create", "container.clusters.get", "iam.serviceAccounts.actAs"),
    tokens.NODE_POOL: ("container.clusters.update", "iam.serviceAccounts.actAs"),
    tokens.RESOURCE_POLICY: ("compute.resourcePolicies.create",),
    tokens.FIREWALL: ("compute.firewalls.create",),
    tokens.ROUTER: ("compute.routers.create",),
    tokens.ROUTER_NAT: ("compute.routers.update",),
    tokens.SERVICE_ACCOUNT: ("iam.serviceAccounts.create",),
    tokens.SERVICE_ACCOUNT_IAM_MEMBER: ("iam.serviceAccounts.setIamPolicy",),
    tokens.PROJECT_IAM_MEMBER: ("resourcemanager.projects.setIamPolicy",),
    tokens.BUCKET: ("storage.buckets.create",),
    tokens.BUCKET_IAM_MEMBER: ("storage.buckets.setIamPolicy",),
}
PREEMPTIBLE_CAPACITIES = ("spot", "flex-start", "queued")  # draw on the preemptible TPU quota


@dataclass(frozen=True)
class Check:
    name: str
    status: str
    detail: str
    fix: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"check": self.name, "status": self.status, "detail": self.detail, "fix": self.fix or None}


def unknown(name: str, why: str, fix: str = "") -> Check:
    return Check(name, UNKNOWN, why, fix)


# --- what the stack needs ---------------------------------------------------------------------------------------


def required_apis(resource_types: Iterable[str]) -> list[str]:
    apis = {"container.googleapis.com", "compute.googleapis.com"}
    for t in resource_types:
        module = tokens.gcp_module(t)
        if module in API_OF_MODULE:
            apis.add(API_OF_MODULE[module])
    return sorted(apis)


def required_permissions(resource_types: Iterable[str]) -> list[str]:
    return sorted({p for t in resource_types for p in PERMISSIONS_OF_TYPE.get(t, ())})


def project_of(resource: Any, default: str) -> str:
    """The project a planned resource lands in: its `project` input (a Shared VPC's firewall, router and NAT are in
    the host project), else the stack's."""
    project = (getattr(resource, "inputs", None) or {}).get("project")
    return project if isinstance(project, str) and project else default


def apis_by_project(resources: Iterable[Any], default: str,
                    feature_apis: Mapping[str, str]) -> dict[str, dict[str, str]]:
    """project -> API -> what needs it: GKE's own, the API of each planned resource type in the project it lands in,
    and the feature APIs the plan's actionsRequired lists (gke/cluster_spec.required_apis, in the stack's project)."""
    out: dict[str, dict[str, str]] = {default: {"container.googleapis.com": "the cluster",
                                                "compute.googleapis.com": "the node pools"}}
    for r in resources:
        module = tokens.gcp_module(r.type)
        if module in API_OF_MODULE:
            out.setdefault(project_of(r, default), {}).setdefault(API_OF_MODULE[module], r.type)
    for api, why in feature_apis.items():
        out[default][api] = why
    return out


def permissions_by_project(resources: Iterable[Any], default: str) -> dict[str, list[str]]:
    """project -> the permissions creating the planned resources there asks of the caller."""
    out: dict[str, set[str]] = {}
    for r in resources:
        wanted = PERMISSIONS_OF_TYPE.get(r.type, ())
        if wanted:
            out.setdefault(project_of(r, default), set()).update(wanted)
    return {project: sorted(perms) for project, perms in out.items()}


def api_checks(project: str, wanted: Sequence[str], services: Sequence[Mapping[str, Any]],
               why: Optional[Mapping[str, str]] = None, suffix: str = "") -> list[Check]:
    """serviceusage services.batchGet: `services[] {name: projects/N/services/X, config.name, state}`. `suffix`
    names the project in the check when it is not the stack's (a Shared VPC host)."""
    state = {str((s.get("config") or {}).get("name") or str(s.get("name", "")).rsplit("/", 1)[-1]): s.get("state")
             for s in services}
    out = []
    for api in wanted:
        needed = f" (needed by {why[api]})" if why and api in why else ""
        if state.get(api) == "ENABLED":
            out.append(Check(f"api {api}{suffix}", PASS, "enabled"))
        else:
            out.append(Check(f"api {api}{suffix}", FAIL, f"{state.get(api) or 'not enabled'} in project {project}"
                             + needed, f"gcloud services enable {api} --project {project}"))
    return out


def tpu_chips_needed(pools: Iterable[Any]) -> dict[tuple[str, bool], int]:
    """(generation, preemptible) -> chips with every pool at its maximum (each slice a full node pool).

    Pools on a reservation are left out: a reservation's resources count against quota when it is created, and
    VMs that consume it need none of their own
    (https://cloud.google.com/compute/docs/instances/reservations-overview); the reservation check covers them."""
    need: dict[tuple[str, bool], int] = {}
    for pool in pools:
        if pool.capacity == "reservation":
            continue
        key = (pool.shape.generation, pool.capacity in PREEMPTIBLE_CAPACITIES)
        need[key] = need.get(key, 0) + pool.slices * pool.shape.chips
    return need


def quota_checks(project: str, pools: Sequence[Any], region: str, quotas: Optional[Sequence[Mapping[str, Any]]],
                 error: str = "") -> list[Check]:
    """regions.get `quotas[] {metric, limit, usage}` against the chips the pools need at their maximum."""
    out = []
    by_metric = {str(q.get("metric")): q for q in quotas or []}
    for (generation, preemptible), chips in sorted(tpu_chips_needed(pools).items()):
        kind = "preemptible " if preemptible else ""
        name = f"quota {kind}{generation} TPU chips in {region}"
        metrics = COMPUTE_TPU_QUOTA_METRICS.get(generation)
        console = (f"https://console.cloud.google.com/iam-admin/quotas?project={project} "
                   f"(filter: TPU {generation}, region {region})")
        if metrics is None:
            out.append(unknown(name, f"needs {chips} chips; Compute Engine does not report {generation} TPU quota "
                                     "(it is in the Cloud Quotas API)", f"check it at {console}"))
            continue
        if quotas is None:
            out.append(unknown(name, f"needs {chips} chips; quota not readable ({error})", f"check it at {console}"))
            continue
        metric = metrics[1] if preemptible else metrics[0]
        q = by_metric.get(metric)
        if q is None:
            out.append(Check(name, FAIL, f"needs {chips} chips; no {metric} quota in {region}",
                             f"request {metric} quota: {console}"))
            continue
        free = float(q.get("limit", 0)) - float(q.get("usage", 0))
        detail = f"needs {chips} chips at max; {metric} limit {q.get('limit', 0):g}, in use {q.get('usage', 0):g}"
        out.append(Check(name, PASS, detail) if free >= chips else
                   Check(name, FAIL, detail, f"request {chips - free:g} more {metric} chips: {console}"))
    return out


def reservation_check(pool: Any, project: str, reservation: Optional[Mapping[str, Any]], error: str = "",
                      spec: Any = None, slices: Optional[int] = None) -> Check:
    """reservations.get: `specificReservation {count, inUseCount, instanceProperties.machineType}`. `spec` and
    `slices`: one entry of a per-slice `reservations` list and the number of slices that consume it."""
    spec = spec or pool.reservation_spec
    owner = spec.project or project
    name = f"reservation {spec.name} ({pool.name}, {pool.zone})"
    needed = (pool.slices if slices is None else slices) * pool.shape.vms_per_slice
    if reservation is None:
        if error.startswith("404"):
            return Check(name, FAIL, f"no reservation {spec.name} in zone {pool.zone} of project {owner}",
                         f"check the name and zone (gcloud compute reservations list --project {owner}), or fix "
                         f"tpuPools {pool.name}.reservation")
        return unknown(name, f"could not read it ({error})", "the caller needs compute.reservations.get on "
                       f"project {owner}")
    specific = reservation.get("specificReservation")
    if not isinstance(specific, Mapping):
        return unknown(name, "not a specific reservation (an aggregate one): its free capacity is not per machine "
                       "type", "compare its reservedResources with the pool yourself")
    machine = str((specific.get("instanceProperties") or {}).get("machineType") or "")
    if machine != pool.shape.machine_type:
        return Check(name, FAIL, f"reserves {machine or 'an unknown machine type'}, the pool needs "
                     f"{pool.shape.machine_type}", "point the pool at a reservation of that machine type")
    free = int(specific.get("count", 0)) - int(specific.get("inUseCount", 0))
    detail = f"{machine}: {free} of {specific.get('count', 0)} free, the pool needs {needed}"
    if free < needed:
        return Check(name, FAIL, detail, "free capacity in the reservation, or lower the pool's slices")
    return Check(name, PASS, detail)


def reservation_block_check(pool: Any, project: str, block: Optional[Mapping[str, Any]], error: str = "",
                            spec: Any = None, slices: Optional[int] = None) -> Check:
    """reservationBlocks.get: `{count, inUseCount, status}` of the block the pool names."""
    spec = spec or pool.reservation_spec
    owner = spec.project or project
    name = f"reservation block {spec.name}/{spec.block} ({pool.name})"
    needed = (pool.slices if slices is None else slices) * pool.shape.vms_per_slice
    if block is None:
        if error.startswith("404"):
            return Check(name, FAIL, f"no block {spec.block} in reservation {spec.name} ({pool.zone}, {owner})",
                         f"gcloud compute reservations blocks list {spec.name} --zone {pool.zone} --project {owner}")
        return unknown(name, f"could not read it ({error})")
    free = int(block.get("count", 0)) - int(block.get("inUseCount", 0))
    detail = f"{free} of {block.get('count', 0)} free, the pool needs {needed}"
    return Check(name, PASS, detail) if free >= needed else Check(
        name, FAIL, detail, "free capacity in the block, name another block, or lower the pool's slices")


def machine_type_check(machine_type: str, zone: str, found: Optional[bool], error: str = "") -> Check:
    name = f"machine type {machine_type} in {zone}"
    if found is None:
        return unknown(name, f"could not ask ({error})")
    if found:
        return Check(name, PASS, "offered")
    return Check(name, FAIL, f"not offered in {zone}",
                 f"gcloud compute machine-types list --filter='name={machine_type}' to find a zone that has it")


def version_check(stack: Any, config: Optional[Mapping[str, Any]], error: str = "") -> list[Check]:
    """container getServerConfig: `validMasterVersions[]`, `channels[] {channel, defaultVersion, validVersions}`."""
    cluster = stack.cluster
    name = f"GKE version in {cluster.location}"
    if config is None:
        return [unknown(name, f"could not read the server config ({error})")]
    out = []
    if cluster.version:
        channel: Mapping[str, Any] = next((c for c in config.get("channels") or []
                                           if c.get("channel") == cluster.release_channel), {})
        valid = [str(v) for v in (channel.get("validVersions") or config.get("validMasterVersions") or [])]
        matching = [v for v in valid if v == cluster.version or v.startswith(cluster.version + ".")
                    or v.startswith(cluster.version + "-")]
        version = matching[0] if matching else cluster.version
        if matching:
            out.append(Check(name, PASS, f"{cluster.version} is offered ({version})"))
        else:
            out.append(Check(name, FAIL, f"{cluster.version} is not offered on {cluster.release_channel} in "
                             f"{cluster.location} (newest: {', '.join(valid[:3]) or 'none'})",
                             "pin cluster.version to an offered version, or leave it unset"))
    elif cluster.release_channel == "UNSPECIFIED":  # no channel: GKE creates the server config's default version
        if not config.get("defaultClusterVersion"):
            return [unknown(name, "the server config has no defaultClusterVersion")]
        version = str(config["defaultClusterVersion"])
        out.append(Check(name, PASS, f"no release channel: GKE's default version is {version} (defaultClusterVersion)"))
    else:
        default = next((c for c in config.get("channels") or [] if c.get("channel") == cluster.release_channel), None)
        if default is None or not default.get("defaultVersion"):
            return [unknown(name, f"no {cluster.release_channel} channel in the server config")]
        version = str(default["defaultVersion"])
        out.append(Check(name, PASS, f"{cluster.release_channel} channel's default is {version}"))
    for pool in stack.tpu_pools:
        for floor, what in version_floors(pool.type, pool.capacity, pool.network_profile_on):
            if below_floor(version, floor):
                out.append(Check(f"GKE floor for {pool.name}", FAIL, f"{version} is below {floor}, needed by {what}",
                                 f"pin cluster.version to {floor} or later"))
    return out


def bucket_check(bucket: str, create: bool, status: Optional[int], error: str = "") -> Check:
    """buckets.get: 200 exists and readable, 404 free, 403 exists (someone's) but not readable by the caller."""
    name = f"bucket {bucket}"
    if status == 200:
        return Check(name, FAIL, "exists, and the stack creates it (create: true)",
                     f"set buckets {bucket}.create: false, or import it") if create else Check(name, PASS, "exists")
    if status == 404:
        return Check(name, PASS, "free; the stack creates it") if create else Check(
            name, FAIL, "does not exist", f"create it (gcloud storage buckets create gs://{bucket}) or list it under "
            "buckets with create: true")
    if status == 403:
        return Check(name, FAIL, "exists but the caller cannot read it (another project's, or no storage.buckets.get)",
                     "choose another name" if create else "grant the caller storage.buckets.get on it")
    return unknown(name, f"could not ask ({error})")


def permission_check(project: str, wanted: Sequence[str], granted: Optional[Sequence[str]], error: str = "") -> Check:
    name = f"caller permissions on {project}"
    if granted is None:
        return unknown(name, f"could not test them ({error})")
    missing = [p for p in wanted if p not in set(granted)]
    if missing:
        return Check(name, FAIL, f"missing {', '.join(missing)}",
                     "grant a role with them (e.g. roles/container.admin, roles/iam.serviceAccountAdmin, "
                     "roles/resourcemanager.projectIamAdmin, roles/storage.admin)")
    return Check(name, PASS, f"has all {len(wanted)} permissions the stack's resources need")

"""Checks that span sections: zones vs region, names, references between workloads and pools."""

from __future__ import annotations

from collections import Counter
from typing import Any, Optional

from ..catalog import CatalogError, cpu_machine, gke_allocatable
from .. import naming
from ..errors import Problem, allowed
from ..naming import PRIORITY_NAMES, jax_managed_env
from ..releases import RELEASES, manifest_problems
from ..gke_rules import (GCS_FUSE_HOST_NETWORK_MIN_GKE, JOBSET_METRICS_MIN_GKE, JOBSET_RESTARTS_MIN_GKE,
                         auto_upgrade_problem, below_floor, below_line_floors, version_floor_problems, version_floors)
from .capacity_checks import capacity_problems
from .cluster import CREATE_ONLY_CLUSTER_FIELDS
from .serving_checks import serving_workload_problems
from .model import StackConfig, run_across_sections
from .pathways_checks import pathways_workload_problems, shortfall
from .resilience_checks import resilience_problems
from .resilience_workload import workload_resilience_problems
from .ironwood_checks import ironwood_problems
from .placement import Placement
from .tpu import TpuPoolConfig, pool_problems
from .types import NODE_POOL_NAME, parse_quantity, region_of
from .workloads import JaxSettings, JaxWorkloadConfig, PathwaysWorkloadConfig

RESERVED_NAMESPACES = ("kube-system", "kube-public", "kube-node-lease", "jobset-system", "kueue-system",
                       "gke-managed-system", "gmp-system")


@run_across_sections  # StackConfig's validator runs it (config/model.py says why it is handed over)
def cross_section_problems(stack: StackConfig) -> list[Problem]:
    """Every check across sections, in the order they are reported."""
    return [*cluster_and_pool_problems(stack), *addon_problems(stack), *workload_problems(stack),
            *jax_workload_problems(stack), *access_problems(stack), *at_scale_problems(stack),
            *ignored_key_problems(stack), *capacity_problems(stack), *resilience_problems(stack),
            *ironwood_problems(stack)]


def ignored_key_problems(stack: StackConfig) -> list[Problem]:
    """Keys no builder would read in this combination: refused with the path, the value and what to do."""
    out: list[Problem] = []
    cluster, cpu, obs = stack.cluster, stack.cpu_pool, stack.observability
    if cluster.nat.router and not cluster.private_nodes:
        out.append(Problem("cluster.nat.router", "puts a Cloud NAT on that router, but a NAT is made only for private "
                           "nodes (cluster.privateNodes is false: the nodes have public addresses); set "
                           "cluster.privateNodes: true or drop nat.router", cluster.nat.router))
    if not cpu.create:
        for name in ("image_streaming", "image_cache_disk"):
            if name in cpu.model_fields_set:
                key = type(cpu).model_fields[name].alias or name
                out.append(Problem(f"cpuPool.{key}", "only shapes a head pool pathways-gke creates; with "
                                   "cpuPool.create: false the existing pool is used as it is: remove it (or change "
                                   "the pool with gcloud container node-pools update)", getattr(cpu, name)))
    nat_fields = cluster.nat.model_fields_set
    if "enabled" in nat_fields and not cluster.private_nodes:
        out.append(Problem("cluster.nat.enabled", "decides the Cloud NAT of private nodes, and cluster.privateNodes is "
                           "false (the nodes have public addresses, no NAT is made): drop cluster.nat, or set "
                           "cluster.privateNodes: true", cluster.nat.enabled))
    # the network's own objects: the webhook firewall (a private control plane) and the Router + NAT
    network_objects = cluster.private_nodes and bool(cluster.master_ipv4_cidr_block or
                                                     (cluster.nat_on(stack.project) and not cluster.nat.router))
    if cluster.network_project and not network_objects:
        out.append(Problem("cluster.networkProject", "is where the webhook firewall and the Cloud Router + NAT of "
                           "private nodes are created, and this stack makes none (cluster.privateNodes false, or no "
                           "masterIpv4CidrBlock and no NAT of its own): remove it", cluster.network_project))
    if cluster.network and not cluster.create and not network_objects:
        out.append(Problem("cluster.network", "with cluster.create: false is read only for the webhook firewall and "
                           "the NAT of private nodes, and this stack makes neither (the adopted cluster keeps its "
                           "network): remove it", cluster.network))
    if not cluster.create and "managed_prometheus" in obs.model_fields_set:
        out.append(Problem("observability.managedPrometheus", "is a setting of a cluster pathways-gke creates (its "
                           "monitoring config); with cluster.create: false the existing cluster keeps its own: "
                           "remove it (or change it with gcloud container clusters update --enable-managed-"
                           "prometheus)", obs.managed_prometheus))
    if "stuck_minutes" in obs.model_fields_set and not obs.alerts:
        out.append(Problem("observability.stuckMinutes", "sets when an alert fires, and observability.alerts is "
                           "false: set observability.alerts: true or drop it", obs.stuck_minutes))
    kueue = stack.kueue
    if not kueue.enabled:
        for name in sorted(kueue.model_fields_set - {"enabled"}):
            key = type(kueue).model_fields[name].alias or name
            out.append(Problem(f"kueue.{key}", "configures the Kueue install, and kueue.enabled is false (nothing is "
                               "installed): set kueue.enabled: true or remove it", getattr(kueue, name)))
    if not stack.needs_lws:
        for name in sorted(stack.lws.model_fields_set):
            key = type(stack.lws).model_fields[name].alias or name
            out.append(Problem(f"lws.{key}", "configures the LeaderWorkerSet install, which is made only for "
                               "workloads in modes serving and service, and this stack has none: remove it",
                               getattr(stack.lws, name)))
    if not cluster.create and cluster.master_authorized_networks:
        out.append(Problem("cluster.masterAuthorizedNetworks", "only shapes a cluster pathways-gke creates; with "
                           "cluster.create: false the existing cluster keeps its own networks: remove it (or change "
                           "them with gcloud container clusters update --master-authorized-networks)"))
    for i, bucket in enumerate(stack.buckets):
        if bucket.create:
            continue
        for name in ("temporary_object_days", "location"):
            if name in bucket.model_fields_set:
                key = type(bucket).model_fields[name].alias or name
                out.append(Problem(f"buckets[{i}].{key}", f"applies only to a bucket this stack creates; bucket "
                                   f"'{bucket.name}' is not created here (buckets[{i}].create is false), so its own "
                                   "settings stand: set create: true or remove it", getattr(bucket, name)))
    if obs.alerts and not any(not w.on_lws for w in stack.workloads):
        out.append(Problem("observability.alerts", "watches the JobSets of this stack's workloads (kube_jobset_* "
                           "metrics), and this stack has none: " + ("every workload serves on a LeaderWorkerSet"
                                                                    if stack.workloads else "it has no workloads")
                           + "; set observability.alerts: false", True))
    return out


def access_problems(stack: StackConfig) -> list[Problem]:
    """Service accounts, buckets and NAT settings that cannot all be true at once."""
    out: list[Problem] = []
    bindings: dict[str, tuple[int, Optional[str], bool]] = {}
    for i, w in enumerate(stack.workloads):
        at = f"workloads[{i}]"
        for name, count in Counter(b.bucket for b in w.buckets).items():
            if count > 1:  # every workload, with or without its own service account
                out.append(Problem(f"{at}.buckets", "names a bucket more than once; give each bucket one entry "
                                   "with the access it needs (read or readWrite)", name))
        if w.service_account is None:
            for field, given in (("gcpServiceAccount", w.gcp_service_account), ("serviceAccountExists",
                                                                                 w.service_account_exists)):
                if given:
                    out.append(Problem(f"{at}.{field}", "needs serviceAccount: the Kubernetes service account it "
                                       "is about", given))
            continue
        seen = bindings.setdefault(w.service_account, (i, w.gcp_service_account, w.service_account_exists))
        if seen[1:] != (w.gcp_service_account, w.service_account_exists):
            out.append(Problem(f"{at}.serviceAccount", f"is also used by workloads[{seen[0]}] with a different "
                               "gcpServiceAccount/serviceAccountExists; one Kubernetes service account has one "
                               "binding", w.service_account))
    names = [b.name for b in stack.buckets]
    for i, bucket in enumerate(stack.buckets):
        if names.index(bucket.name) != i:
            out.append(Problem(f"buckets[{i}].name", "is declared more than once", bucket.name))
        if bucket.create and bucket.project not in (None, stack.project):
            out.append(Problem(f"buckets[{i}].project", f"is not gcp:project ({stack.project}); the stack creates "
                               "buckets in its own project — drop create or project", bucket.project))
    out.extend(lifecycle_problems(stack))
    cluster = stack.cluster
    if cluster.create and cluster.host_project(stack.project) != stack.project and cluster.pods_range_name is None:
        out.append(Problem("cluster.podsRangeName", f"is required: the network is in project "
                           f"{cluster.host_project(stack.project)} (Shared VPC), where GKE cannot create secondary "
                           "ranges; name the subnetwork's secondary ranges for Pods and Services (podsRangeName, "
                           "servicesRangeName) and set cluster.subnetwork"))
    nat = stack.cluster.nat
    if nat.router and nat.enabled is False:
        out.append(Problem("cluster.nat.router", "puts a NAT on that router, but nat.enabled is false; drop one",
                           nat.router))
    return out


def lifecycle_problems(stack: StackConfig) -> list[Problem]:
    """A created bucket deletes its scratch objects after temporaryObjectDays (gke/identity.bucket_args); a
    scratch location at the bucket's root would make that rule delete every object, so it is refused when the
    stack declares other data in the bucket (a workload's buckets, a gcsFuse volume, another scratch path)."""
    out: list[Problem] = []
    created = {b.name: b for b in stack.buckets if b.create}
    scratch: dict[str, list[tuple[int, str]]] = {}
    data: dict[str, list[str]] = {}
    for i, w in enumerate(stack.workloads):
        for j, declared in enumerate(w.buckets):
            data.setdefault(declared.bucket, []).append(f"workloads[{i}].buckets[{j}]")
        if isinstance(w, PathwaysWorkloadConfig):
            for j, volume in enumerate(w.gcs_fuse):
                data.setdefault(volume.bucket, []).append(f"workloads[{i}].gcsFuse[{j}]")
            if w.pathways.gcs_scratch:
                bucket, _, path = w.pathways.gcs_scratch[len("gs://"):].partition("/")
                scratch.setdefault(bucket, []).append((i, path.strip("/")))
    for bucket, uses in scratch.items():
        if bucket not in created:
            continue
        others = data.get(bucket, []) + [f"workloads[{i}].pathways.gcsScratch" for i, path in uses if path]
        for i, path in uses:
            workload = stack.workloads[i]
            if not path and others and isinstance(workload, PathwaysWorkloadConfig):
                out.append(Problem(f"workloads[{i}].pathways.gcsScratch", f"is the root of bucket {bucket}, which the "
                                   "stack creates with a lifecycle rule deleting scratch objects after "
                                   f"{created[bucket].temporary_object_days} days: at the root that rule covers every "
                                   f"object, including the data of {', '.join(others)}; give scratch a path of its "
                                   f"own (gs://{bucket}/scratch)", workload.pathways.gcs_scratch))
    return out


def at_scale_problems(stack: StackConfig) -> list[Problem]:
    """DNS, image cache and observability rules GKE enforces (docs/at-scale.md)."""
    out: list[Problem] = []
    cluster, obs = stack.cluster, stack.observability
    if not cluster.create and cluster.dns != "auto":
        out.append(Problem("cluster.dns", "applies only to a cluster this stack creates (cluster.create: true); an "
                           "adopted cluster keeps its DNS provider. Remove the key, or change it with gcloud "
                           "container clusters update --cluster-dns", cluster.dns))
    pools = [("cpuPool", stack.cpu_pool)] + [(f"tpuPools[{i}]", p) for i, p in enumerate(stack.tpu_pools)]
    for path, pool in pools:
        if pool.image_cache_disk and not pool.image_streaming:
            out.append(Problem(f"{path}.imageCacheDisk", "needs image streaming: GKE uses a container-image-cache "
                               f"secondary boot disk only on pools with GCFS enabled; set {path}.imageStreaming: "
                               "true or drop the disk", pool.image_cache_disk))
    if obs.managed_prometheus and cluster.version and below_floor(cluster.version, JOBSET_METRICS_MIN_GKE):
        out.append(Problem("cluster.version", f"is older than {JOBSET_METRICS_MIN_GKE}, the first GKE version with "
                           "the JobSet metrics package that observability.managedPrometheus turns on; raise the "
                           "version or set observability.managedPrometheus: false", cluster.version))
    out.extend(feature_floor_problems(stack))
    out.extend(maintenance_scope_problems(stack))
    if obs.alerts and not obs.managed_prometheus:
        out.append(Problem("observability.alerts", "reads the JobSet metrics (kube_jobset_*) that only "
                           "observability.managedPrometheus collects; turn that on or the alerts off", True))
    if obs.notification_channels and not obs.alerts:
        out.append(Problem("observability.notificationChannels", "has no alert policy to notify; set "
                           "observability.alerts: true or drop the channels"))
    return out


def maintenance_scope_problems(stack: StackConfig) -> list[Problem]:
    """NO_MINOR_* exclusion scopes need a release channel (gke_rules: maintenance-exclusions)."""
    maintenance = stack.cluster.maintenance
    if maintenance is None or stack.cluster.release_channel != "UNSPECIFIED":
        return []
    return [Problem(f"cluster.maintenance.exclusions[{i}].scope", "needs a release channel: on "
                    "releaseChannel UNSPECIFIED GKE takes only scope NO_UPGRADES (at most 30 days); enroll the "
                    "cluster in a channel (and keep node auto-upgrade on) or use NO_UPGRADES", e.scope)
            for i, e in enumerate(maintenance.exclusions) if e.scope != "NO_UPGRADES"]


def feature_floor_problems(stack: StackConfig) -> list[Problem]:
    """Version floors of features the workloads and alerts use (gke_rules: jobset-restarts-version,
    gcs-fuse-host-network-version), against a pinned cluster.version."""
    out: list[Problem] = []
    version = stack.cluster.version
    if version is None:
        return out
    jobsets = [w for w in stack.workloads if not w.on_lws]
    if stack.observability.alerts and jobsets and below_line_floors(version, JOBSET_RESTARTS_MIN_GKE):
        out.append(Problem("cluster.version", "is older than " + " / ".join(JOBSET_RESTARTS_MIN_GKE) + ", the GKE "
                           "versions (per minor line) that export kube_jobset_restarts, which the restart alert of "
                           "observability.alerts reads; raise the version or set observability.alerts: false",
                           version))
    for i, w in enumerate(stack.workloads):
        if isinstance(w, PathwaysWorkloadConfig) and not w.on_lws and w.gcs_fuse \
                and below_floor(version, GCS_FUSE_HOST_NETWORK_MIN_GKE):
            out.append(Problem("cluster.version", f"is older than {GCS_FUSE_HOST_NETWORK_MIN_GKE}, the first GKE "
                               "version whose GCS FUSE driver mounts volumes in hostNetwork pods "
                               f"(hostNetworkPodKSA); workloads[{i}].gcsFuse needs it: raise the version", version))
    return out


def cluster_and_pool_problems(stack: StackConfig) -> list[Problem]:
    out: list[Problem] = []
    region = stack.cluster.region
    cpu = stack.cpu_pool
    if cpu.min_nodes > cpu.max_nodes:
        out.append(Problem("cpuPool.minNodes", f"is larger than cpuPool.maxNodes ({cpu.max_nodes})", cpu.min_nodes))
    if cpu.zone is not None and region_of(cpu.zone) != region:
        out.append(Problem("cpuPool.zone", f"is not in the cluster's region {region} "
                           f"(cluster.location {stack.cluster.location})", cpu.zone))
    if cpu.create and cpu.zone is None and not stack.cluster.zonal and not stack.tpu_pools:
        out.append(Problem("cpuPool.zone", f"is required when the cluster is regional ({stack.cluster.location}) "
                           "and there is no TPU pool to take the zone from"))
    if stack.cluster.master_ipv4_cidr_block and not stack.cluster.private_nodes:
        out.append(Problem("cluster.masterIpv4CidrBlock", "applies to private clusters only; set "
                           "cluster.privateNodes: true or drop it", stack.cluster.master_ipv4_cidr_block))
    for i, pool in enumerate(stack.tpu_pools):
        out.extend(tpu_pool_problems(stack, pool, f"tpuPools[{i}]"))
    for name, count in Counter(p.name for p in stack.tpu_pools).items():
        if count > 1:
            index = [p.name for p in stack.tpu_pools].index(name)
            out.append(Problem(f"tpuPools[{index}].name", "is used by more than one TPU pool group", name))
    pool_names = {p.node_pool_name(stack.cluster.name, i) for p in stack.tpu_pools for i in range(p.slices)}
    if cpu.name in pool_names:
        out.append(Problem("cpuPool.name", "clashes with a TPU node-pool name", cpu.name))
    out.extend(adoption_problems(stack))
    return out


# CpuPoolConfig fields that only shape a pool we create: refused when an existing head pool is reused
CREATE_ONLY_CPU_POOL_FIELDS = ("min_nodes", "max_nodes", "zone", "disk_size_gb", "disk_type", "spot", "labels")
# TpuPoolConfig fields that only shape node pools we create: refused on a group of existing pools (create: false).
# Kept there: name, type, topology, machineType, slices, zone (the slices' shape and where they are) and capacity
# (the tolerations and node selector the workers need on them).
CREATE_ONLY_TPU_POOL_FIELDS = ("reservation", "max_run_duration", "autoscaling", "network_profile", "disk_size_gb",
                               "disk_type", "image_streaming", "image_cache_disk", "auto_upgrade",
                               "max_pods_per_node", "host_maintenance_interval", "protect", "labels",
                               "dynamic_slicing", "numa_aware")  # Ironwood: the sub-block policy, the pools' kubelet


def adoption_problems(stack: StackConfig) -> list[Problem]:
    """`cluster.create: false` / `cpuPool.create: false`: fields we would silently ignore are refused."""
    out: list[Problem] = []
    cluster, cpu = stack.cluster, stack.cpu_pool
    if not cluster.create:
        out += given_fields(cluster, CREATE_ONLY_CLUSTER_FIELDS, "cluster", "only shapes a cluster pathways-gke "
                            "creates; with cluster.create: false the existing cluster keeps its own setting, so it is "
                            "refused rather than ignored: remove it (or change it on the cluster with gcloud)")
    if not cpu.create:
        if cluster.create:
            out.append(Problem("cpuPool.create", "false reuses an existing head pool, which only an adopted cluster "
                               "has; set cluster.create: false too, or drop cpuPool.create", False))
        out += given_fields(cpu, CREATE_ONLY_CPU_POOL_FIELDS, "cpuPool", "only shapes a head pool pathways-gke "
                            "creates; with cpuPool.create: false the existing pool is used as it is: remove it")
    for i, pool in enumerate(stack.tpu_pools):
        out.extend(existing_slice_problems(stack, pool, f"tpuPools[{i}]"))
    return out


def given_fields(model, fields: tuple[str, ...], path: str, message: str) -> list[Problem]:
    """A problem at `path.<key>` for each of `fields` the stack file gives on `model` (keys in camelCase)."""
    return [Problem(f"{path}.{type(model).model_fields[name].alias or name}", message)
            for name in fields if name in model.model_fields_set]


def existing_slice_problems(stack: StackConfig, pool: TpuPoolConfig, path: str) -> list[Problem]:
    """A group of existing slice pools (create: false), and a group this stack creates under XPK's pool names."""
    out: list[Problem] = []
    adopted = not stack.cluster.create
    if not pool.create:
        if not adopted:
            out.append(Problem(f"{path}.create", "false runs on existing node pools, which only an adopted cluster "
                               "has; set cluster.create: false too, or drop it", False))
        out += given_fields(pool, CREATE_ONLY_TPU_POOL_FIELDS, path, "only shapes node pools pathways-gke creates; "
                            "with create: false the existing pools are used as they are: remove it")
        if stack.kueue.enabled:
            out.append(Problem(f"{path}.create", "false runs on existing slices that carry no pathways-gke/tpu-group "
                               "label, so this stack's Kueue flavor could only select them by accelerator and "
                               "topology, as XPK's does: two ClusterQueues would count the same slices. Run without "
                               "kueue.enabled, or create this stack's own slices", False))
        jax = [w.name for w in stack.workloads if isinstance(w, JaxWorkloadConfig) and w.tpu_pool == pool.name]
        if jax:
            out.append(Problem(f"{path}.create", "false runs on existing slices without the pathways-gke/tpu-group "
                               f"label that runtime jax places its processes by (workload(s) {', '.join(jax)}); "
                               "give them a group this stack creates", False))
    elif adopted and pool.name == naming.XPK_SLICE_GROUP:
        first = pool.node_pool_name(stack.cluster.name, 0)
        out.append(Problem(f"{path}.name", f"makes node pools named {first}, …: XPK's names for the slice pools of "
                           "a cluster it made (<cluster>-np-<i>). On an adopted cluster they exist already "
                           "(AlreadyExists) or XPK's next `cluster create` takes them for its own and re-creates or "
                           "deletes them: choose another group name, or set create: false to run on XPK's slices",
                           pool.name))
    return out


def tpu_pool_problems(stack: StackConfig, pool: TpuPoolConfig, path: str) -> list[Problem]:
    """One pool group against the rest of the stack (region, name lengths, Kueue for queued)."""
    out = pool_problems(pool, path)
    region = stack.cluster.region
    if region_of(pool.zone) != region:
        out.append(Problem(f"{path}.zone", f"is not in the cluster's region {region} "
                           f"(cluster.location {stack.cluster.location}); all node pools live in the "
                           "cluster's region", pool.zone))
    longest = pool.node_pool_name(stack.cluster.name, pool.slices - 1)
    if not NODE_POOL_NAME.matches(longest):
        out.append(Problem(f"{path}.name", f"makes node-pool name '{longest}' (<cluster>-<group>-<i>), longer "
                           "than GKE's 40 characters; shorten cluster.name or the group name", pool.name))
    if pool.capacity == "queued" and not stack.kueue.enabled:
        out.append(Problem(f"{path}.capacity", "'queued' provisioning is admitted through Kueue's "
                           "ProvisioningRequest check; set kueue.enabled: true", pool.capacity))
    out.extend(gke_pool_rule_problems(stack, pool, path))
    return out


def gke_pool_rule_problems(stack: StackConfig, pool: TpuPoolConfig, path: str) -> list[Problem]:
    """The rulebook (gke_rules.py) applied to one pool group: auto-upgrade vs channel, version floors."""
    out: list[Problem] = []
    channel = stack.cluster.release_channel if stack.cluster.create else None  # adopted: checked at preview
    problem = auto_upgrade_problem(channel, pool.auto_upgrade)
    if problem:
        out.append(Problem(f"{path}.autoUpgrade", problem, False))
    if pool.topology is not None:
        floors = version_floors(pool.type, pool.capacity, pool.network_profile_on)
        for message in version_floor_problems(stack.cluster.version, floors):
            fix = " (or networkProfile: false)" if "network profile" in message else ""
            out.append(Problem("cluster.version", f"{message}{fix} — needed by {path} ({pool.name})"))
    return out


def addon_problems(stack: StackConfig) -> list[Problem]:
    """JobSet / Kueue / namespace / priority checks (docs/jobset-and-kueue.md)."""

    out: list[Problem] = []
    installed = {RELEASES["jobset"].namespace: "jobset"}
    if stack.kueue.enabled:
        installed[RELEASES["kueue"].namespace] = "kueue"
    if stack.needs_lws:
        installed[RELEASES["lws"].namespace] = "lws"
    if stack.namespace in installed:
        addon = installed[stack.namespace]
        out.append(Problem("namespace", f"is where the {addon} release manifest installs its controller "
                           f"({addon}{'.enabled: true' if addon == 'kueue' else ''}); the workloads, their "
                           "LocalQueue and the readiness ConfigMap need their own namespace (or 'default')",
                           stack.namespace))
    elif stack.namespace in RESERVED_NAMESPACES:
        out.append(Problem("namespace", "is a system namespace; workloads need their own (or 'default'); "
                           f"not allowed: {', '.join(RESERVED_NAMESPACES)}", stack.namespace))
    sections = [("jobset", stack.jobset)] + ([("kueue", stack.kueue)] if stack.kueue.enabled else []) \
        + ([("lws", stack.lws)] if stack.needs_lws else [])
    for addon, section in sections:
        if section.manifest is not None:
            out.extend(Problem(f"{addon}.manifest", message, section.manifest)
                       for message in manifest_problems(addon, section.version, section.manifest))
    if stack.kueue.enabled and stack.cpu_pool.machine is None:
        out.append(Problem("cpuPool.machineType", "has no size in the catalog (sized: predefined "
                           "standard/highmem/highcpu types, shared-core e2-micro/small/medium and custom types "
                           "FAMILY-custom-VCPUS-MEMORY_MB); with kueue.enabled the ClusterQueue's CPU and memory "
                           "quota is derived from it (e.g. n2-standard-64)", stack.cpu_pool.machine_type))
    for i, workload in enumerate(stack.workloads):
        if workload.priority_class is not None and workload.priority_class not in PRIORITY_NAMES:
            out.append(Problem(f"workloads[{i}].priorityClass", "is not on the priority ladder this stack creates; "
                               f"{allowed(PRIORITY_NAMES)}", workload.priority_class))
    return out


def workload_problems(stack: StackConfig) -> list[Problem]:
    out: list[Problem] = []
    pools = [p.name for p in stack.tpu_pools]
    for name, count in Counter(w.name for w in stack.workloads).items():
        if count > 1:
            index = [w.name for w in stack.workloads].index(name)
            out.append(Problem(f"workloads[{index}].name", "is used by more than one workload", name))
    for i, workload in enumerate(stack.workloads):
        path = f"workloads[{i}]"
        if workload.tpu_pool is not None and workload.tpu_pool not in pools:
            out.append(Problem(f"{path}.tpuPool", f"names no TPU pool group; {allowed(pools) if pools else 'this stack has no tpuPools'}",
                               workload.tpu_pool))
        for j, group in enumerate(workload.tpu_pools or []):
            if group not in pools:
                out.append(Problem(f"{path}.tpuPools[{j}]", "names no TPU pool group; "
                                   f"{allowed(pools) if pools else 'this stack has no tpuPools'}", group))
        if isinstance(workload, PathwaysWorkloadConfig) and not workload.pool_groups:
            out.append(Problem(f"{path}.tpuPool", "is required for runtime 'pathways' (the workers run on a TPU "
                               f"pool group); {allowed(pools) if pools else 'this stack has no tpuPools'}"))
        if workload.image is None and not (isinstance(workload, PathwaysWorkloadConfig)
                                           and workload.mode in ("headless", "service")):
            out.append(Problem(f"{path}.image", "is required (the user container's image, pinned to a tag); only "
                               "headless and service-mode Pathways workloads have no user container"))
        if workload.command is None and isinstance(workload, JaxWorkloadConfig):
            out.append(Problem(f"{path}.command", "is required for runtime 'jax' (the program every process runs)"))
        for env_name, secret in workload.secret_env.items():
            if secret not in stack.secret_names:
                # never echoed: a value that names no secret may be the secret itself, pasted in
                out.append(Problem(f"{path}.secretEnv.{env_name}", "names no key of pathways-gke:secrets (value not "
                                   "shown: a secretEnv value is the NAME of a secret, never the secret itself); "
                                   + (allowed(stack.secret_names) if stack.secret_names else
                                      "set the secret with `pulumi config set --secret --path "
                                      "'pathways-gke:secrets.NAME' VALUE` and write secretEnv: {VAR: NAME}")))
        out.extend(_object_size_problems(workload, path))
    out.extend(pathways_problems(stack))
    return out


# etcd refuses a request over 1.5 MiB (its default --max-request-bytes, 1572864: etcd embed/config.go, as the
# Kubernetes apiserver's own comment in staging/src/k8s.io/apiserver/pkg/server/config.go cites it, next to the
# apiserver's 3 MiB MaxRequestBodyBytes for a request body). Every text a workload holds (env values, args, commands,
# its sidecars') is written into the one JobSet or LeaderWorkerSet object that `pulumi up` stores, so text past this
# size is refused by the cluster, whatever the rest of the object holds.
STORED_OBJECT_LIMIT_BYTES = 1_572_864


def _object_size_problems(workload: Any, path: str) -> list[Problem]:
    total, largest, largest_path = 0, 0, ""
    stack: list[tuple[str, Any]] = [("", workload.model_dump(by_alias=True, exclude_none=True))]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            size = len(value.encode("utf-8", "surrogatepass"))
            total += size
            if size > largest:
                largest, largest_path = size, where
        elif isinstance(value, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", v) for i, v in enumerate(value))
    if total <= STORED_OBJECT_LIMIT_BYTES:
        return []
    mib = lambda n: f"{n / 2**20:.2f}".rstrip("0").rstrip(".") + " MiB"  # noqa: E731
    return [Problem(f"{path}.{largest_path}" if largest_path else path,
                    f"is {mib(largest)} of text, and the workload's text totals {mib(total)}; the object that holds "
                    f"it is stored in etcd, which refuses a request over {mib(STORED_OBJECT_LIMIT_BYTES)} (the API "
                    "server reads at most 3 MiB): `pulumi up` would fail; keep large data in a bucket and pass its location")]


def pathways_problems(stack: StackConfig) -> list[Problem]:
    """Pathways workloads against their pool and the CPU pool (config/pathways_checks.py)."""

    out: list[Problem] = []
    pools = {p.name for p in stack.tpu_pools}
    for i, workload in enumerate(stack.workloads):
        if not isinstance(workload, PathwaysWorkloadConfig) or any(g not in pools for g in workload.pool_groups):
            continue
        if any(stack.pool(g).topology is None for g in workload.pool_groups):  # type: ignore[union-attr]
            continue  # reported at tpuPools[i].topology
        placement = Placement.of(stack, workload)  # a dynamic slice is the workload's own shape
        out.extend(pathways_workload_problems(workload, placement, f"workloads[{i}]"))
        out.extend(serving_workload_problems(workload, placement, f"workloads[{i}]", lws_version=stack.lws.version,
                                             kueue_version=stack.kueue.version if stack.kueue.enabled else None))
    out.extend(lws_name_problems(stack))
    return out


def lws_name_problems(stack: StackConfig) -> list[Problem]:
    """Names LeaderWorkerSets derive must not collide with another workload's objects.

    An LWS `x` owns the headless Service `x` and the worker StatefulSets `x-<group>`; a second LWS named
    `x-<digits>` collides with them (kubernetes-sigs/lws#236); our own Services `x-svc` / `x-proxy-<client>`
    must not be another workload's name either.
    """
    out: list[Problem] = []
    names = [w.name for w in stack.workloads]
    for i, workload in enumerate(stack.workloads):
        if not isinstance(workload, PathwaysWorkloadConfig) or not workload.on_lws:
            continue
        derived = {naming.serving_service_name(workload.name): "its Service"}
        if workload.service is not None:
            derived.update({naming.client_proxy_name(workload.name, c): f"client {c}'s proxy"
                            for c in workload.service.clients})
        for j, other in enumerate(names):
            if j == i:
                continue
            suffix = other[len(workload.name) + 1:] if other.startswith(workload.name + "-") else ""
            if suffix.isdigit() and stack.workloads[j].on_lws:
                out.append(Problem(f"workloads[{j}].name", f"collides with the LeaderWorkerSet '{workload.name}' "
                                   "(the name of one of its worker StatefulSets); rename one of them", other))
            elif other in derived:
                out.append(Problem(f"workloads[{j}].name", f"is the name of {derived[other]} of workload "
                                   f"'{workload.name}'; rename one of them", other))
    return out


def jax_workload_problems(stack: StackConfig) -> list[Problem]:
    """`runtime: jax` workloads: the process layout on TPU (from the pool) or on the CPU pool (from `jax`)."""
    out: list[Problem] = []
    for i, workload in enumerate(stack.workloads):
        path = f"workloads[{i}]"
        if not isinstance(workload, JaxWorkloadConfig):
            continue  # the pathways model refuses a jax block
        if any(stack.pool(g) is None for g in workload.pool_groups):
            continue  # reported by workload_problems
        try:
            placement = Placement.of(stack, workload)  # a dynamic slice is the workload's own shape
        except CatalogError:
            continue  # reported with the pool
        out.extend(jax_problems(workload, path, placement))
    return out


def _jax_settings_given(workload: JaxWorkloadConfig) -> set[str]:
    """`jax` fields that differ from their defaults (a config dumped and re-read keeps its meaning)."""
    defaults = JaxSettings()
    return {f for f in JaxSettings.model_fields if getattr(workload.jax, f) != getattr(defaults, f)}


def jax_problems(workload: JaxWorkloadConfig, path: str, placement: Placement) -> list[Problem]:
    """One jax workload where `placement` puts it: on the CPU pool (no shape; each process checked against a node of
    its `cpu_machine_type`) or on the slices of its TPU pool group."""

    out: list[Problem] = workload_resilience_problems(workload, path)
    shape, slices = placement.shape, placement.slice_count
    pool_name = placement.tpu_group or workload.first_pool  # existing slices (create: false) carry no group label
    cpu_machine_type = placement.cpu_machine_type
    managed = jax_managed_env("cpu" if shape is None else "tpu")
    for source, names in (("env", workload.env), ("secretEnv", workload.secret_env)):
        for name in names:
            if name in managed:
                out.append(Problem(f"{path}.{source}.{name}", "is set by pathways-gke for every jax process and "
                                   f"cannot be overridden; managed: {', '.join(managed)}"))
    for name in sorted(set(workload.env) & set(workload.secret_env)):
        out.append(Problem(f"{path}.secretEnv.{name}", "is also given in env; a variable comes from one of them"))
    jax = workload.jax
    given = _jax_settings_given(workload)
    if shape is None:
        if jax.processes is None:
            out.append(Problem(f"{path}.jax.processes", "is required for a jax workload on the CPU pool (no "
                               "tpuPool): the number of JAX processes, e.g. jax: {processes: 4}"))
        elif jax.slices is not None and jax.processes % jax.slices:
            out.append(Problem(f"{path}.jax.slices", f"must divide jax.processes ({jax.processes}) evenly: every "
                               "Job runs the same number of processes", jax.slices))
        machine = cpu_machine(cpu_machine_type) if cpu_machine_type else None
        if machine is not None:
            short = shortfall({"cpu": parse_quantity(jax.cpu), "memory": parse_quantity(jax.memory)},
                              gke_allocatable(machine))
            if short:
                out.append(Problem(f"{path}.jax", f"sizes each process ({jax.cpu} CPU, {jax.memory}) larger than a "
                                   f"node of the CPU pool ({machine.name}: {short}); lower jax.cpu / jax.memory or "
                                   "use a larger CPU machine type"))
        return out
    layout = f"{slices} slice(s) x {shape.vms_per_slice} VM(s) = {slices * shape.vms_per_slice}"
    for field in ("processes", "slices"):
        if field in given:
            out.append(Problem(f"{path}.jax.{field}", f"applies to jax workloads on the CPU pool only; on TPU pool "
                               f"'{pool_name}' there is one process per TPU VM ({layout}); remove it or remove "
                               "tpuPool to run on the CPU pool", getattr(jax, field)))
    for field in ("cpu", "memory"):
        if field in given:
            out.append(Problem(f"{path}.jax.{field}", "applies to jax workloads on the CPU pool only (a TPU "
                               "process gets its whole VM)", getattr(jax, field)))
    if slices > 1 and not shape.multi_host:
        out.append(Problem(f"{path}.tpuPool", f"names a pool group of {slices} single-host slices "
                           f"({shape.generation} {shape.topology} on {shape.machine_type}); GKE Multislice needs "
                           "multi-host slices: use a larger topology or slices: 1", pool_name))
    return out

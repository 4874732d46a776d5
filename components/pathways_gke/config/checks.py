"""Checks that span sections: zones vs region, names, references between workloads and pools."""

from __future__ import annotations

from collections import Counter

from ..errors import Problem, allowed
from .cluster import GKE_NAME, region_of
from .stack import StackConfig
from .tpu import TpuPoolConfig, pool_problems

RESERVED_NAMESPACES = ("kube-system", "kube-public", "kube-node-lease", "jobset-system", "kueue-system",
                       "gke-managed-system", "gmp-system")


def cross_section_problems(stack: StackConfig) -> list[Problem]:
    return [*cluster_and_pool_problems(stack), *addon_problems(stack), *workload_problems(stack)]


def cluster_and_pool_problems(stack: StackConfig) -> list[Problem]:
    out: list[Problem] = []
    region = stack.cluster.region
    cpu = stack.cpu_pool
    if cpu.min_nodes > cpu.max_nodes:
        out.append(Problem("cpuPool.minNodes", f"is larger than cpuPool.maxNodes ({cpu.max_nodes})", cpu.min_nodes))
    if cpu.zone is not None and region_of(cpu.zone) != region:
        out.append(Problem("cpuPool.zone", f"is not in the cluster's region {region} "
                           f"(cluster.location {stack.cluster.location})", cpu.zone))
    if cpu.zone is None and not stack.cluster.zonal and not stack.tpu_pools:
        out.append(Problem("cpuPool.zone", f"is required when the cluster is regional ({stack.cluster.location}) "
                           "and there is no TPU pool to take the zone from"))
    machine = cpu.machine
    if machine is None:
        pass  # unknown shape: GKE will judge it; we only size-check machines we can read
    for i, pool in enumerate(stack.tpu_pools):
        out.extend(tpu_pool_problems(stack, pool, f"tpuPools[{i}]"))
    for name, count in Counter(p.name for p in stack.tpu_pools).items():
        if count > 1:
            index = [p.name for p in stack.tpu_pools].index(name)
            out.append(Problem(f"tpuPools[{index}].name", "is used by more than one TPU pool group", name))
    pool_names = {p.node_pool_name(stack.cluster.name, i) for p in stack.tpu_pools for i in range(p.slices)}
    if cpu.name in pool_names:
        out.append(Problem("cpuPool.name", "clashes with a TPU node-pool name", cpu.name))
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
    if not GKE_NAME.match(longest):
        out.append(Problem(f"{path}.name", f"makes node-pool name '{longest}' (<cluster>-<group>-<i>), longer "
                           "than GKE's 40 characters; shorten cluster.name or the group name", pool.name))
    if pool.capacity == "queued" and not stack.kueue.enabled:
        out.append(Problem(f"{path}.capacity", "'queued' provisioning is admitted through Kueue's "
                           "ProvisioningRequest check; set kueue.enabled: true", pool.capacity))
    return out


def addon_problems(stack: StackConfig) -> list[Problem]:
    """JobSet / Kueue / namespace / priority checks (docs/jobset-and-kueue.md)."""
    from ..addons.install import RELEASES, manifest_problems  # noqa: PLC0415 (addons imports config)
    from ..addons.priority import PRIORITY_NAMES  # noqa: PLC0415

    out: list[Problem] = []
    installed = {RELEASES["jobset"].namespace: "jobset"}
    if stack.kueue.enabled:
        installed[RELEASES["kueue"].namespace] = "kueue"
    if stack.namespace in installed:
        addon = installed[stack.namespace]
        out.append(Problem("namespace", f"is where the {addon} release manifest installs its controller "
                           f"({addon}{'.enabled: true' if addon == 'kueue' else ''}); the workloads, their "
                           "LocalQueue and the readiness ConfigMap need their own namespace (or 'default')",
                           stack.namespace))
    elif stack.namespace in RESERVED_NAMESPACES:
        out.append(Problem("namespace", "is a system namespace; workloads need their own (or 'default'); "
                           f"not allowed: {', '.join(RESERVED_NAMESPACES)}", stack.namespace))
    sections = [("jobset", stack.jobset)] + ([("kueue", stack.kueue)] if stack.kueue.enabled else [])
    for addon, section in sections:
        if section.manifest is not None:
            out.extend(Problem(f"{addon}.manifest", message, section.manifest)
                       for message in manifest_problems(addon, section.version, section.manifest))
    if stack.kueue.enabled and stack.cpu_pool.machine is None:
        out.append(Problem("cpuPool.machineType", "has no shape this project knows (predefined "
                           f"{'/'.join(('standard', 'highmem', 'highcpu'))} types only); with kueue.enabled the "
                           "ClusterQueue's CPU and memory quota is derived from it (e.g. n2-standard-64)",
                           stack.cpu_pool.machine_type))
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
        if workload.runtime == "pathways" and workload.tpu_pool is None:
            out.append(Problem(f"{path}.tpuPool", "is required for runtime 'pathways' (the workers run on a TPU "
                               f"pool group); {allowed(pools) if pools else 'this stack has no tpuPools'}"))
        if workload.runtime == "jax" and workload.mode != "default":
            out.append(Problem(f"{path}.mode", "applies to runtime 'pathways' only", workload.mode))
        if workload.image is None and not (workload.runtime == "pathways" and workload.mode == "headless"):
            out.append(Problem(f"{path}.image", "is required (the user container's image, pinned to a tag); only "
                               "headless Pathways workloads have no user container"))
        if workload.command is None and workload.runtime == "jax":
            out.append(Problem(f"{path}.command", "is required for runtime 'jax' (the program every process runs)"))
        for env_name, secret in workload.secret_env.items():
            if secret not in stack.secret_names:
                out.append(Problem(f"{path}.secretEnv.{env_name}", "names no key of pathways-gke:secrets; "
                                   + (allowed(stack.secret_names) if stack.secret_names else
                                      "set it with `pulumi config set --secret --path 'secrets.NAME' VALUE`"),
                                   secret))
    return out

"""Workloads only: Pathways JobSets on a cluster another stack manages, read through a StackReference.

Splitting workloads from the cluster keeps every workload change away from the infrastructure stack
(small blast radius, fast previews) and gives the workloads a kubeconfig that is already known when
they are previewed. The cluster stack (this repository's program) exports kubeconfig and tpuPools:
per TPU pool group, the placement args of a workload on it (namespace, pools, TPU shape, capacity, queue), which a
workload passes to PathwaysWorkload unchanged; it picks its TPU pool group by name.

The facts are read from the cluster stack's state, so they are known during `pulumi preview` and the
workloads appear in it; the PathwaysWorkloads are created once those facts resolve (inside `apply`),
because the JobSet's shape (TPU type, topology, slice count) must be a known, validated value.
"""

import pulumi
import pulumi_kubernetes as k8s

from pathways_gke.workloads.pathways import PathwaysWorkload

config = pulumi.Config()
cluster = pulumi.StackReference(config.require("clusterStack"))
workloads = config.require_object("workloads")
secrets = config.get_secret_object("secrets") or {}

# this stack's own Kubernetes provider, from the cluster stack's (secret) kubeconfig
provider = k8s.Provider("workloads-k8s", kubeconfig=cluster.require_output("kubeconfig"),
                        enable_server_side_apply=True)


def placement(pools: dict, group: str, workload: str) -> dict:
    if group in pools:
        return pools[group]
    raise ValueError(f"workloads[{workload}].tpuPool: {group!r} is not a TPU pool group of the cluster stack; "
                     f"it has: {', '.join(pools) or 'none'}")


def create(pools: dict) -> dict:
    created = {}
    for spec in workloads:
        workload = {k: v for k, v in spec.items() if k != "tpuPool"}
        args = {"workload": workload, **placement(pools, spec["tpuPool"], spec["name"])}
        needed = sorted(set(workload.get("secretEnv", {}).values()))
        if needed:
            args["secrets"] = {name: pulumi.Output.secret(secrets).apply(lambda s, n=name: s[n]) for name in needed}
        created[spec["name"]] = PathwaysWorkload(spec["name"], args,
                                                 opts=pulumi.ResourceOptions(providers=[provider]))
    return {name: w.jax_backend_target for name, w in created.items()}


pulumi.export("jaxBackendTargets", cluster.require_output("tpuPools").apply(create))

"""Workloads only: Pathways JobSets on a cluster another stack manages, read through a StackReference.

Splitting workloads from the cluster keeps every workload change away from the infrastructure stack
(small blast radius, fast previews) and gives the workloads a kubeconfig that is already known when
they are previewed. The cluster stack (this repository's program) exports kubeconfig, namespace,
cpuPool, tpuPoolFacts and queueName; a workload picks its TPU pool group by name.

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


def pool_facts(pools: list, group: str, workload: str) -> dict:
    for pool in pools:
        if pool["name"] == group:
            return pool
    raise ValueError(f"workloads[{workload}].tpuPool: {group!r} is not a TPU pool group of the cluster stack; "
                     f"it has: {', '.join(p['name'] for p in pools) or 'none'}")


def create(facts: dict) -> dict:
    created = {}
    for spec in workloads:
        workload = {k: v for k, v in spec.items() if k != "tpuPool"}
        pool = pool_facts(facts["tpu_pools"], spec["tpuPool"], spec["name"])
        args = {
            "workload": workload,
            "tpu_type": pool["type"], "tpu_topology": pool["topology"], "tpu_machine_type": pool["machineType"],
            "slices": pool["slices"], "tpu_group": pool["name"], "capacity": pool["capacity"],
            "namespace": facts["namespace"], "cpu_pool": facts["cpu_pool"],
        }
        if pool.get("placementPolicy"):
            args["placement_policy"] = pool["placementPolicy"]
        if facts.get("queue_name"):
            args["queue_name"] = facts["queue_name"]
        needed = sorted(set(workload.get("secretEnv", {}).values()))
        if needed:
            args["secrets"] = {name: pulumi.Output.secret(secrets).apply(lambda s, n=name: s[n]) for name in needed}
        created[spec["name"]] = PathwaysWorkload(spec["name"], args,
                                                 opts=pulumi.ResourceOptions(providers=[provider]))
    return {name: w.jax_backend_target for name, w in created.items()}


facts = pulumi.Output.all(
    namespace=cluster.require_output("namespace"),
    cpu_pool=cluster.require_output("cpuPool"),
    tpu_pools=cluster.require_output("tpuPoolFacts"),
    queue_name=cluster.get_output("queueName"),
)
pulumi.export("jaxBackendTargets", facts.apply(create))

"""The Pulumi program behind `pulumi up -s <env>` and the offline plan: stack config -> PathwaysCluster."""

import pulumi

from .cluster import PathwaysCluster, ValidatedStack
from .config.stack import PROJECT, from_pulumi_config
from .deferred import ConfigRunError
from .errors import ConfigError


def main() -> PathwaysCluster:
    try:
        stack = from_pulumi_config()
    except ConfigError as exc:
        # a RunError ends the program cleanly (no traceback) before anything is registered; still a
        # ConfigError for the offline plan (exit 2)
        raise ConfigRunError(exc.problems) from None
    secrets = pulumi.Config(PROJECT).get_secret_object("secrets") if stack.secret_names else None
    # PathwaysCluster also takes a validated stack (its docstring); the hint names only the args a caller writes
    cluster = PathwaysCluster(stack.cluster.name, ValidatedStack(stack, secrets))  # type: ignore[arg-type]
    pulumi.export("clusterName", cluster.cluster_name)
    pulumi.export("endpoint", cluster.endpoint)
    pulumi.export("kubeconfig", cluster.kubeconfig)
    pulumi.export("cpuPool", stack.cpu_pool.name)
    pulumi.export("tpuPools", {g: group.node_pool_names for g, group in cluster.tpu_groups.items()})
    pulumi.export("namespace", stack.namespace)
    # for workload stacks that read this one through a StackReference (examples/workloads-only)
    pulumi.export("tpuPoolFacts", cluster.tpu_pools)
    # "runs as …, can write …" per workload, and what the stack could not do itself
    pulumi.export("identities", cluster.identities)
    pulumi.export("actionsRequired", cluster.actions_required)
    if cluster.queue_name is not None:
        pulumi.export("queueName", cluster.queue_name)
    if cluster.console_links is not None:
        pulumi.export("consoleLinks", cluster.console_links)
    if cluster.serving_endpoints is not None:
        pulumi.export("servingEndpoints", cluster.serving_endpoints)
    if cluster.client_targets is not None:
        pulumi.export("clientTargets", cluster.client_targets)
    return cluster

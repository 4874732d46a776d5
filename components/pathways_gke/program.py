"""The Pulumi program behind `pulumi up -s <env>` and the offline plan: stack config -> PathwaysCluster."""

import pulumi

from .cluster import PathwaysCluster
from .config.stack import PROJECT, from_pulumi_config
from .deferred import ConfigRunError
from .errors import ConfigError


# The engine this program needs: ResourceOptions.replace_with (a replaced TPU pool replaces the JobSet that ran on
# it) came with Pulumi 3.207.0 (pulumi CHANGELOG 3.207.0). Pulumi.yaml states it as requiredPulumiVersion, but
# the CLI reads that key only since 3.219.0 (CHANGELOG 3.219.0, #21627), so no CLI that reads it can fail it:
# the program asks the engine for the feature itself, before it registers anything.
MIN_PULUMI_CLI = "3.207.0"


def require_engine() -> None:
    """Refuse an engine without replaceWith up front (the SDK would fail at the first JobSet, mid-deployment)."""
    from pulumi.runtime.proto import resource_pb2
    from pulumi.runtime.settings import monitor_supports_feature

    if not monitor_supports_feature(resource_pb2.RESOURCE_MONITOR_FEATURE_REPLACE_WITH):
        raise pulumi.RunError(f"pathways-gke needs a Pulumi CLI >= {MIN_PULUMI_CLI} (the replaceWith resource "
                              "option); this engine does not support it: upgrade the CLI (pulumi version shows it)")


def main() -> PathwaysCluster:
    require_engine()
    try:
        stack = from_pulumi_config()
    except ConfigError as exc:
        # a RunError ends the program cleanly (no traceback) before anything is registered; still a
        # ConfigError for the offline plan (exit 2)
        raise ConfigRunError(exc.problems) from None
    secrets = pulumi.Config(PROJECT).get_secret_object("secrets") if stack.secret_names else None
    cluster = PathwaysCluster.from_stack(stack.cluster.name, stack, secrets)
    pulumi.export("clusterName", cluster.cluster_name)
    pulumi.export("endpoint", cluster.endpoint)
    pulumi.export("kubeconfig", cluster.kubeconfig)
    pulumi.export("cpuPool", stack.cpu_pool.name)
    pulumi.export("tpuPoolNames", cluster.tpu_pool_names)
    pulumi.export("namespace", stack.namespace)
    # per TPU pool group, a workload component's placement args: what workload stacks that read this one through a
    # StackReference pass to PathwaysWorkload / JaxWorkload / PathwaysServing unchanged (examples/workloads-only)
    pulumi.export("tpuPools", cluster.tpu_pools)
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
    # per Pathways workload: the port-forward command, JAX backend target, serving endpoint and a load balancer's
    # address once assigned (`pulumi stack output connect`; docs/connect.md)
    pulumi.export("connect", cluster.connect)
    return cluster

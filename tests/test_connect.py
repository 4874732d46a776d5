"""What to connect with: the stack program's `connect` output per Pathways workload (docs/connect.md), and a
load-balanced Service's address once GKE assigns it."""

from __future__ import annotations

import pytest

from pathways_gke.workloads.serving import ingress_address


@pytest.mark.slow  # plans two stacks
def test_the_stack_exports_per_workload_what_to_connect_with(stack_plans):
    connect = stack_plans("serve").outputs["connect"]
    serving, service = connect["llama-serve"], connect["shared-pw"]
    assert serving["endpoint"] == "http://llama-serve-svc.default.svc.cluster.local:8000"
    assert serving["portForwardCommand"] == "kubectl port-forward -n default svc/llama-serve-svc 8000:8000"
    assert "loadBalancerAddress" in serving  # serving.loadBalancer: internal (an Output until GKE assigns it)
    assert "jaxBackendTarget" not in serving  # the server owns its group's proxy
    assert service["clientTargets"]["alice"] == "grpc://shared-pw-proxy-alice.default.svc.cluster.local:29000"
    assert "IFRT_PROXY_USE_INSECURE_GRPC_CREDENTIALS=true" in service["clientPortForwardCommands"]["alice"]
    train = stack_plans("dev").outputs["connect"]
    [(name, entry)] = train.items()
    assert entry["jaxBackendTarget"] == f"grpc://{name}-pathways-head-0-0.{name}:29000"
    assert entry["portForwardCommand"].startswith("kubectl port-forward -n ") and "29000:29000" in \
        entry["portForwardCommand"]


@pytest.mark.slow  # plans a stack
def test_multi_controller_jax_workloads_have_nothing_to_connect_to(stack_plans):
    plan = stack_plans("jax")
    jax = {r.name for r in plan.resources if r.type.endswith(":JobSet")
           and (r.inputs.get("metadata") or {}).get("labels", {}).get("pathways-gke/runtime") == "jax"}
    assert jax and not jax & set(plan.outputs.get("connect") or {})


def test_the_load_balancer_address_is_read_from_the_services_status():
    from pulumi_kubernetes.core.v1 import outputs

    status = outputs.ServiceStatus(load_balancer=outputs.LoadBalancerStatus(
        ingress=[outputs.LoadBalancerIngress(ip="10.128.0.42")]))
    assert ingress_address(status) == "10.128.0.42"
    assert ingress_address({"loadBalancer": {"ingress": [{"hostname": "lb.internal"}]}}) == "lb.internal"
    assert ingress_address(outputs.ServiceStatus(load_balancer=outputs.LoadBalancerStatus())) is None
    assert ingress_address(None) is None

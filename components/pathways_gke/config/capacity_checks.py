"""Checks across sections for the capacity keys: node auto-provisioning (cluster.autoprovisioning) and ordered
fallback (workloads[].tpuPools). Path-named problems, run by config/checks.py `cross_section_problems`."""

from __future__ import annotations

from .fallback import fallback_problems
from .model import StackConfig
from .types import COMPUTE_DEFAULT_SERVICE_ACCOUNT, region_of
from ..errors import Problem


def capacity_problems(stack: StackConfig) -> list[Problem]:
    """Every check of the capacity keys: node auto-provisioning and ordered fallback."""
    return [*autoprovisioning_problems(stack), *fallback_problems(stack)]


def autoprovisioning_problems(stack: StackConfig) -> list[Problem]:
    nap = stack.cluster.autoprovisioning
    if nap is None:
        return []
    at = "cluster.autoprovisioning"
    if not nap.enabled:
        given = sorted(k for k in nap.model_fields_set if k != "enabled")
        if given:
            key = type(nap).model_fields[given[0]].alias or given[0]
            return [Problem(f"{at}.{key}", "is read only when auto-provisioning is on (enabled is false): set "
                            f"{at}.enabled: true, or remove it")]
        return []
    out: list[Problem] = []
    sa = stack.cluster.node_service_account
    if (not sa.create and sa.email is None) or (sa.email and COMPUTE_DEFAULT_SERVICE_ACCOUNT.match(sa.email)):
        out.append(Problem(f"{at}.enabled", "would give auto-provisioned nodes the Compute Engine default service "
                           "account (cluster.nodeServiceAccount is the default account); let the stack create its "
                           "node account (nodeServiceAccount.create: true) or give a dedicated one's email", True))
    region = region_of(stack.cluster.location)
    for index, zone in enumerate(nap.locations or []):
        if region_of(zone) != region:
            out.append(Problem(f"{at}.locations[{index}]", f"is in region {region_of(zone)}; the cluster's nodes "
                               f"live in {region} (cluster.location {stack.cluster.location})", zone))
    if not nap.locations and not stack.tpu_pools:
        out.append(Problem(f"{at}.locations", "is required when the stack has no TPU pool groups (their zones are "
                           "the default): give the zones GKE may create auto-provisioned pools in"))
    return out

"""The plan as a resource tree for humans, and as files (plan.json + one YAML per Kubernetes object)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from .. import tokens
from ..errors import without_credentials
from ..property_paths import value_at
from .engine import Plan, PlanResource

# Which inputs a reviewer wants to see per resource type (property paths into the wire inputs).
KEY_INPUTS: dict[str, tuple[str, ...]] = {
    tokens.GKE_CLUSTER: ("name", "location", "releaseChannel.channel", "deletionProtection", "datapathProvider",
                         "workloadIdentityConfig.workloadPool"),
    tokens.NODE_POOL: ("name", "nodeConfig.machineType", "nodeCount", "autoscaling", "nodeLocations",
                       "placementPolicy", "nodeConfig.spot", "nodeConfig.flexStart", "nodeConfig.reservationAffinity",
                       "queuedProvisioning.enabled"),
    tokens.RESOURCE_POLICY: ("name", "region", "workloadPolicy"),
    tokens.SERVICE_ACCOUNT: ("accountId",),
    tokens.PROJECT_IAM_MEMBER: ("role", "member"),
    tokens.BUCKET_IAM_MEMBER: ("bucket", "role", "member"),
    tokens.SERVICE_ACCOUNT_IAM_MEMBER: ("serviceAccountId", "role", "member"),
    tokens.BUCKET: ("name", "location", "hierarchicalNamespace.enabled", "lifecycleRules"),
    tokens.ROUTER: ("name", "project", "region", "network"),
    tokens.ROUTER_NAT: ("name", "project", "region", "router", "natIpAllocateOption",
                        "sourceSubnetworkIpRangesToNat"),
    tokens.FIREWALL: ("name", "project", "network", "sourceRanges", "targetServiceAccounts"),
    tokens.KUBERNETES_PROVIDER: ("clusterIdentifier",),
}
K8S_KEY_INPUTS = ("metadata.namespace", "metadata.name")


def short(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    return str(value)


def key_inputs(resource: PlanResource) -> list[tuple[str, Any]]:
    paths = KEY_INPUTS.get(resource.type)
    if paths is None and tokens.is_kubernetes_type(resource.type):
        if resource.remote:  # a component (yaml/v2 ConfigFile): every input, each a top-level key
            return [(key, resource.inputs[key]) for key in sorted(resource.inputs)
                    if resource.inputs[key] is not None]
        paths = K8S_KEY_INPUTS
    pairs = [(p, value_at(resource.inputs, p)) for p in paths or ()]
    return [(p, v) for p, v in pairs if v is not None]


def render_tree(plan: Plan) -> str:
    by_parent: dict[Any, list[PlanResource]] = {}
    for r in plan.resources:
        by_parent.setdefault(r.parent, []).append(r)
    names = {r.urn: r.name for r in plan.resources}
    lines = [f"stack {plan.stack} (project {plan.project}): {len(plan.resources)} resources"]

    def walk(parent: Any, indent: str) -> None:
        children = sorted(by_parent.get(parent, []), key=lambda r: (r.custom, r.type, r.name))
        for i, r in enumerate(children):
            last = i == len(children) - 1
            flags = [f for f in ("protect", "deleteBeforeReplace") if r.options.get(f)]
            if r.options.get("replaceOnChanges"):
                flags.append("replaceOnChanges=" + ",".join(r.options["replaceOnChanges"]))
            if r.options.get("ignoreChanges"):
                flags.append("ignoreChanges=" + ",".join(r.options["ignoreChanges"]))
            if r.read:
                flags.append("read")
            lines.append(f"{indent}{'└─ ' if last else '├─ '}{r.type}  {r.name}"
                         + (f"  [{'; '.join(flags)}]" if flags else ""))
            detail = indent + ("   " if last else "│  ")
            deps = [names.get(d, d) for d in r.depends_on]
            if deps:
                lines.append(f"{detail}   depends on: {', '.join(deps)}")
            for path, value in key_inputs(r):
                lines.append(f"{detail}   {path} = {short(value)}")
            walk(r.urn, detail)

    walk(None, "")
    identities = plan.outputs.get("identities")
    if isinstance(identities, dict) and identities:
        lines.append("identities:")
        lines += [f"  {w}: {v.get('summary')}" for w, v in identities.items() if isinstance(v, dict)]
    if plan.outputs.get("actionsRequired"):
        lines.append("actions required (the stack cannot do these):")
        lines += [f"  - {a}" for a in plan.outputs["actionsRequired"]]
    if plan.outputs:
        lines.append("outputs:")
        lines += [f"  {k} = {short(v)}" for k, v in plan.outputs.items()]
    return "\n".join(lines) + "\n"


def object_file_name(obj: dict[str, Any]) -> str:
    meta = obj.get("metadata") or {}
    parts = [obj.get("kind", "object"), meta.get("namespace") or "cluster", meta.get("name") or "unnamed"]
    return re.sub(r"[^a-z0-9.\-]+", "-", "-".join(str(p).lower() for p in parts)) + ".yaml"


def write_out(plan: Plan, out_dir: Path) -> list[Path]:
    """plan.json plus one YAML file per rendered Kubernetes object. Returns the files written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / "plan.json"]
    written[0].write_text(without_credentials(plan.dumps()))
    for obj in plan.kubernetes_objects():
        path = out_dir / object_file_name(obj)
        path.write_text(without_credentials(yaml.safe_dump(obj, sort_keys=False, default_flow_style=False)))
        written.append(path)
    return written

"""The plan as a resource tree for humans, and as files (plan.json + one YAML per Kubernetes object)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from .. import naming, tokens
from ..errors import without_credentials
from ..pathways_facts import PATHWAYS_CONTAINERS
from ..render.wrapper import WRAPPER_NAME
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
WORKLOAD_TYPES = (tokens.PATHWAYS_WORKLOAD, tokens.JAX_WORKLOAD, tokens.PATHWAYS_SERVING)


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


def creation_ranks(plan: Plan) -> dict[str, int]:
    """Each resource's place in the order a first `pulumi up` creates them (critical_path's create graph); a
    component ranks as its first-created descendant, so siblings print in creation order."""
    from .critical_path import PlanGraphError, create_graph, topological_order

    try:
        graph = create_graph(plan.to_json())
        order = topological_order(graph)
    except PlanGraphError:  # a plan that cannot be scheduled still prints, in its recorded order
        return {r.urn: i for i, r in enumerate(plan.resources)}
    rank = {urn: i for i, urn in enumerate(order)}
    rank.update({child: rank[owner] for child, owner in graph.folded.items()})
    by_urn = plan.by_urn()
    lifted: dict[str, int] = {}
    for r in plan.resources:  # a component takes the rank of its first-created custom descendant
        if r.custom:
            parent = r.parent
            while parent in by_urn and not by_urn[parent].custom:
                lifted[parent] = min(lifted.get(parent, rank[r.urn]), rank[r.urn])
                parent = by_urn[parent].parent
    return {**rank, **lifted}


def workload_line(workload: PlanResource, children: list[PlanResource]) -> str:
    """A workload's image, command, slices and chips, read off the objects it renders (JobSet or LeaderWorkerSet)."""
    images: list[str] = []
    commands: list[str] = []
    slices: list[str] = []
    chips = 0
    for child in children:
        for replicas, pods, template in _pod_sets(child.inputs):
            spec = (template or {}).get("spec") or {}
            selector = spec.get("nodeSelector") or {}
            for container in spec.get("containers") or ():
                if container.get("name") in PATHWAYS_CONTAINERS:
                    continue
                if container.get("image") and container["image"] not in images:
                    images.append(container["image"])
                command = user_command(container)
                if command and command not in commands:
                    commands.append(command)
            tpus = sum(int(((c.get("resources") or {}).get("limits") or {}).get("google.com/tpu", 0) or 0)
                       for c in spec.get("containers") or ())
            if tpus:
                topology = selector.get(naming.TPU_TOPOLOGY_LABEL, "?")
                slices.append(f"{replicas} × {selector.get(naming.TPU_ACCELERATOR_LABEL, 'tpu')} {topology}")
                chips += replicas * pods * tpus
    parts = [f"image {', '.join(images)}" if images else "no user image",
             f"command {' | '.join(commands)!r}" if commands else "no command"]
    parts.append(f"slices {' + '.join(slices)} ({chips} chips)" if slices else "no TPU slices")
    return " · ".join(parts)


def _pod_sets(obj: dict[str, Any]) -> list[tuple[int, int, dict]]:
    """(how many of it, pods in each, pod template) per pod set of a JobSet or a LeaderWorkerSet."""
    spec = obj.get("spec") or {}
    if obj.get("kind") == "JobSet":
        return [(int(rj.get("replicas", 1)), int(((rj.get("template") or {}).get("spec") or {}).get("parallelism", 1)),
                 ((rj.get("template") or {}).get("spec") or {}).get("template") or {})
                for rj in spec.get("replicatedJobs") or ()]
    if obj.get("kind") == "LeaderWorkerSet":
        lwt = spec.get("leaderWorkerTemplate") or {}
        replicas, size = int(spec.get("replicas", 1)), int(lwt.get("size", 1))
        leader, worker = lwt.get("leaderTemplate"), lwt.get("workerTemplate") or {}
        if leader is None:
            return [(replicas, size, worker)]
        return [(replicas, 1, leader), (replicas, size - 1, worker)]
    return []


def user_command(container: dict[str, Any]) -> str:
    """The user's command as written: unwrapped from the SIGTERM wrapper (render/wrapper.py) when it is there."""
    argv = [*(container.get("command") or ()), *(container.get("args") or ())]
    if WRAPPER_NAME in argv[:4] and argv[:2] == ["bash", "-c"]:
        return " ".join(str(a) for a in argv[argv.index(WRAPPER_NAME) + 1:])
    return " ".join(str(a) for a in argv)


def render_tree(plan: Plan) -> str:
    by_parent: dict[Any, list[PlanResource]] = {}
    for r in plan.resources:
        by_parent.setdefault(r.parent, []).append(r)
    names = {r.urn: r.name for r in plan.resources}
    rank = creation_ranks(plan)
    lines = [f"stack {plan.stack} (project {plan.project}): {len(plan.resources)} resources"]

    def walk(parent: Any, indent: str) -> None:
        children = sorted(by_parent.get(parent, []), key=lambda r: (rank.get(r.urn, 0), r.type, r.name))
        for i, r in enumerate(children):
            last = i == len(children) - 1
            flags = [f for f in ("protect", "deleteBeforeReplace") if r.options.get(f)]
            if r.options.get("replaceOnChanges"):
                flags.append("replaceOnChanges=" + ",".join(r.options["replaceOnChanges"]))
            if r.options.get("ignoreChanges"):
                flags.append("ignoreChanges=" + ",".join(r.options["ignoreChanges"]))
            if r.read:
                flags.append("read")
            summary = f"  {workload_line(r, by_parent.get(r.urn, []))}" if r.type in WORKLOAD_TYPES \
                else ""
            lines.append(f"{indent}{'└─ ' if last else '├─ '}{r.type}  {r.name}"
                         + (f"  [{'; '.join(flags)}]" if flags else "") + summary)
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
        lines += [f"  {k} = {short(v)}" for k, v in plan.outputs.items() if k != "actionsRequired"]
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

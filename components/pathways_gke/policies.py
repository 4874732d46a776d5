"""Guardrails as pure rules over plan resources; run offline (`pathways-gke plan`) and by the policy pack.

A resource is a mapping shaped like a plan.json entry: `type`, `name`, `urn`, `inputs` (Pulumi wire
names), `options` (protect, retainOnDelete, ...), optionally `parent`. The policy pack in `policy/`
adapts Pulumi's `ResourceValidationArgs` / `StackValidationArgs` to this shape (policy_pack.py), so
`pulumi preview --policy-pack policy` and the offline plan apply the very same rules.

Values unknown before creation ("<computed>") are skipped, never guessed.

Configuration (the same JSON a `--policy-pack-config` file holds; keys per policy name):
    {"all": "mandatory",                                        # default level for every policy
     "pathways-gke-no-privileged": {"allowPrivileged": ["debug-job"]},   # or true
     "pathways-gke-protect-production": {"production": true},           # or false; absent = detect
     "pathways-gke-tpu-placement": "disabled"}
A stack is production when `production` is true, or (when absent) when a GKE cluster carries the
resource label `env: prod|production`, or the offline plan's stack name is `prod`, `production` or
starts with `prod-` / `prod.` / `prod_`.

Pure: no Pulumi import.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional, TypeGuard

from . import tokens
from .catalog import is_tpu_machine_type
from .config.types import DNS_1035_LABEL, image_is_pinned
from .config.workloads import MAX_LWS_NAME, MAX_WORKLOAD_NAME
from .naming import JOBSET_CRD, LWS_CRD, TPU_GROUP_LABEL
from .property_paths import COMPUTED, value_at

MANDATORY, ADVISORY, DISABLED = "mandatory", "advisory", "disabled"
LEVELS = (MANDATORY, ADVISORY, DISABLED)

# CRD name -> the objects its deletion deletes
PROTECTED_CRDS = {JOBSET_CRD: "JobSet", LWS_CRD: "LeaderWorkerSet"}
CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")
PRODUCTION_LABEL_VALUES = ("prod", "production")
PRODUCTION_STACK = re.compile(r"^prod(uction)?([-_.].*)?$")

Resource = Mapping[str, Any]


@dataclass(frozen=True)
class Violation:
    policy: str
    level: str
    message: str
    urn: Optional[str] = None
    name: Optional[str] = None

    def __str__(self) -> str:
        where = f"{self.name}: " if self.name else ""
        return f"[{self.level}] {self.policy}: {where}{self.message}"

    def to_json(self) -> dict[str, Any]:
        return {"policy": self.policy, "level": self.level, "message": self.message, "urn": self.urn,
                "name": self.name}


# --- helpers ----------------------------------------------------------------------------------


def known(value: Any) -> bool:
    return value is not None and value != COMPUTED


def _is_list(value: Any) -> TypeGuard[Sequence[Any]]:
    return isinstance(value, Sequence) and not isinstance(value, str)


def pod_specs(inputs: Any, path: str = "") -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every pod spec inside a Kubernetes object (a mapping with a `containers` list), with its path.

    Finds them in Pods, Deployments, Jobs, CronJobs and JobSets alike
    (`spec.replicatedJobs[0].template.spec.template.spec`).
    """
    if isinstance(inputs, Mapping):
        if _is_list(inputs.get("containers")):
            yield path or ".", inputs
        for key in sorted(inputs):
            if key in CONTAINER_LISTS:
                continue
            yield from pod_specs(inputs[key], f"{path}.{key}" if path else str(key))
    elif _is_list(inputs):
        for i, item in enumerate(inputs):
            yield from pod_specs(item, f"{path}[{i}]")


def containers(inputs: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(path, container) for every container, init container and ephemeral container."""
    for spec_path, spec in pod_specs(inputs):
        for key in CONTAINER_LISTS:
            items = spec.get(key)
            if not _is_list(items):
                continue
            for i, container in enumerate(items):
                if isinstance(container, Mapping):
                    name = container.get("name", i)
                    yield f"{spec_path}.{key}[{i}] ({name})", container


def object_name(resource: Resource) -> str:
    name = value_at(resource, "inputs.metadata.name")
    return name if isinstance(name, str) and known(name) else str(resource.get("name", ""))


# --- rules: (resource, settings) -> messages ---------------------------------------------------


def rule_pinned_images(resource: Resource, settings: Mapping[str, Any]) -> list[str]:
    """No container image without a tag, or tagged `latest`: every restart must run the same build."""
    if not tokens.is_kubernetes_type(str(resource.get("type", ""))):
        return []
    out = []
    for path, container in containers(resource.get("inputs") or {}):
        image = container.get("image")
        if not known(image):
            continue
        if not isinstance(image, str) or not image_is_pinned(image):
            out.append(f"{path} uses image {image!r}: pin a tag other than 'latest' or a @sha256 digest")
    return out


def rule_no_privileged(resource: Resource, settings: Mapping[str, Any]) -> list[str]:
    """No privileged container unless the stack allows it (allowPrivileged: true, or a list of object names)."""
    if not tokens.is_kubernetes_type(str(resource.get("type", ""))):
        return []
    allowed = settings.get("allowPrivileged", False)
    if allowed is True or (_is_list(allowed) and object_name(resource) in allowed):
        return []
    out = []
    for path, container in containers(resource.get("inputs") or {}):
        if value_at(container, "securityContext.privileged") is True:
            out.append(f"{path} is privileged; set allowPrivileged for '{object_name(resource)}' in the policy "
                       "config (or `privileged: true` on the workload) if it really needs it")
    return out


def is_production(resource: Resource, settings: Mapping[str, Any]) -> bool:
    explicit = settings.get("production")
    if isinstance(explicit, bool):
        return explicit
    labels = value_at(resource, "inputs.resourceLabels") or {}
    if isinstance(labels, Mapping) and str(labels.get("env", "")).lower() in PRODUCTION_LABEL_VALUES:
        return True
    stack = settings.get("stack")
    return isinstance(stack, str) and bool(PRODUCTION_STACK.match(stack))


def rule_protect_production(resource: Resource, settings: Mapping[str, Any]) -> list[str]:
    """A production GKE cluster has deletionProtection on and the Pulumi `protect` option."""
    if resource.get("type") != tokens.GKE_CLUSTER or not is_production(resource, settings):
        return []
    out = []
    protection = value_at(resource, "inputs.deletionProtection")
    if protection is not True and known(protection):
        out.append("production cluster without deletionProtection: set cluster.deletionProtection: true")
    if not value_at(resource, "options.protect"):
        out.append("production cluster is not protected: set cluster.protect: true (Pulumi `protect`)")
    return out


def rule_protect_jobset_crd(resource: Resource, settings: Mapping[str, Any]) -> list[str]:
    """In production, the JobSet (and LeaderWorkerSet) CRD is protected: deleting it deletes every such object
    in the cluster.

    Outside production it must not be: a protected CRD makes `pulumi destroy` of a dev stack fail (the
    install protects it exactly where the cluster is protected).

    Checks the CRD resource itself. Installed from a manifest (yaml/v2 ConfigFile), the CRD is a child
    the provider registers during `pulumi preview`: the policy pack sees it there (our install protects
    it with a transform); the offline plan does not, so offline this rule only sees CRDs a program
    registers directly.
    """
    if resource.get("type") != tokens.CRD or object_name(resource) not in PROTECTED_CRDS:
        return []
    if not is_production(resource, settings) or value_at(resource, "options.protect"):
        return []
    kind = PROTECTED_CRDS[object_name(resource)]
    return [f"the {kind} CRD is not protected (Pulumi `protect`): deleting it deletes every {kind} in the cluster"]


def rule_workload_names(resource: Resource, settings: Mapping[str, Any]) -> list[str]:
    """A JobSet's name is a DNS-1035 label of at most 22 characters (the coordinator label limit); a
    LeaderWorkerSet's at most 50 (its worker StatefulSets' revision-hash label, kubernetes-sigs/lws#410)."""
    kind = {tokens.JOBSET: "JobSet", tokens.LEADER_WORKER_SET: "LeaderWorkerSet"}.get(str(resource.get("type")))
    if kind is None:
        return []
    name = value_at(resource, "inputs.metadata.name")
    if not known(name):
        return []
    out = []
    if not isinstance(name, str) or not DNS_1035_LABEL.match(name):
        out.append(f"{kind} name {name!r} is not a DNS-1035 label (lower-case letters, digits, '-', "
                   "starting with a letter)")
    elif kind == "JobSet" and len(name) > MAX_WORKLOAD_NAME:
        out.append(f"JobSet name {name!r} is {len(name)} characters; at most {MAX_WORKLOAD_NAME} fit JobSet's "
                   "'<name>-pathways-head-0-0.<name>' 63-character label")
    elif kind == "LeaderWorkerSet" and len(name) > MAX_LWS_NAME:
        out.append(f"LeaderWorkerSet name {name!r} is {len(name)} characters; at most {MAX_LWS_NAME} fit its "
                   "worker StatefulSets' 63-character revision-hash label")
    return out


def is_tpu_pool(resource: Resource) -> bool:
    if resource.get("type") != tokens.NODE_POOL:
        return False
    machine = value_at(resource, "inputs.nodeConfig.machineType")
    label = value_at(resource, ("inputs", "nodeConfig", "labels", TPU_GROUP_LABEL))
    return (isinstance(machine, str) and is_tpu_machine_type(machine)) or known(label)


def rule_tpu_placement(resource: Resource, settings: Mapping[str, Any]) -> list[str]:
    """A multi-host TPU slice pool has a placement policy (COMPACT + tpuTopology, or a workload policy)."""
    if not is_tpu_pool(resource):
        return []
    count = value_at(resource, "inputs.nodeCount")
    if not (isinstance(count, (int, float)) and count > 1):
        return []
    placement = value_at(resource, "inputs.placementPolicy") or {}
    if not isinstance(placement, Mapping) or not (placement.get("tpuTopology") or placement.get("policyName")):
        return [f"multi-host TPU pool ({int(count)} nodes) without placementPolicy.tpuTopology or policyName: "
                "its VMs are not one slice"]
    return []


def stack_one_zone_per_tpu_group(resources: Sequence[Resource], settings: Mapping[str, Any]) \
        -> list[tuple[Optional[Resource], str]]:
    """Every node pool of a TPU group is in one and the same single zone (nodeLocations of length 1)."""
    groups: dict[str, list[Resource]] = {}
    for r in resources:
        if is_tpu_pool(r):
            label = value_at(r, ("inputs", "nodeConfig", "labels", TPU_GROUP_LABEL))
            key = label if known(label) else str(r.get("parent") or r.get("name"))
            groups.setdefault(str(key), []).append(r)
    out: list[tuple[Optional[Resource], str]] = []
    for group, pools in sorted(groups.items()):
        zones: dict[str, list[str]] = {}
        for pool in pools:
            locations = value_at(pool, "inputs.nodeLocations")
            if not known(locations):
                continue
            if not _is_list(locations) or len(locations) != 1 or not known(locations[0]):
                out.append((pool, f"TPU pool of group '{group}' must be in exactly one zone; "
                                  f"nodeLocations is {list(locations) if _is_list(locations) else locations!r}"))
                continue
            zones.setdefault(str(locations[0]), []).append(str(pool.get("name")))
        if len(zones) > 1:
            spread = "; ".join(f"{z}: {', '.join(sorted(n))}" for z, n in sorted(zones.items()))
            out.append((None, f"TPU group '{group}' spans several zones ({spread}); a multi-slice job needs "
                              "all its slices in one zone"))
    return out


def stack_pods_fit(resources: Sequence[Resource], settings: Mapping[str, Any],
                   queued: bool = False) -> list[tuple[Optional[Resource], str]]:
    """Every declared pod has a place on the pools it is pinned to at their maximum size (fit.py)."""
    by_owner = {f"{value_at(r, 'inputs.kind')} {value_at(r, 'inputs.metadata.name')}": r for r in resources
                if "apiVersion" in (r.get("inputs") or {})}
    return [(by_owner.get(s.owner), s.message()) for s in _placed(resources) if s.queued == queued]


_LAST_PLACED: list = []
"""While `check_resources` runs: [(its resources, their shortfalls)], so both fit rules read one placement."""


def _placed(resources: Sequence[Resource]) -> list:
    from .fit import lws_version_of, place  # noqa: PLC0415 (the placement model)

    if _LAST_PLACED and _LAST_PLACED[0][0] is resources:
        return _LAST_PLACED[0][1]
    return place(resources, lws_version_of(resources))


def stack_queued_pods_fit(resources: Sequence[Resource], settings: Mapping[str, Any]) \
        -> list[tuple[Optional[Resource], str]]:
    """Pods that cannot all run at once but wait their turn (Kueue-admitted ones that fit their pools alone, or
    groups waiting for pools another workload holds): advisory, with the number waiting."""
    return stack_pods_fit(resources, settings, queued=True)


FIT_CHECKS = (stack_pods_fit, stack_queued_pods_fit)


@dataclass(frozen=True)
class Rule:
    name: str
    description: str
    level: str
    check: Callable[..., Any]
    stack: bool = False  # True: check(resources, settings) -> [(resource|None, message)]


RULES: tuple[Rule, ...] = (
    Rule("pathways-gke-pinned-images", "No `latest` or untagged container images", MANDATORY, rule_pinned_images),
    Rule("pathways-gke-no-privileged", "No privileged container unless the stack allows it", MANDATORY,
         rule_no_privileged),
    Rule("pathways-gke-protect-production", "Production GKE clusters have deletionProtection and `protect`",
         MANDATORY, rule_protect_production),
    Rule("pathways-gke-protect-jobset-crd", "The JobSet (and LeaderWorkerSet) CRD is protected in production",
         MANDATORY,
         rule_protect_jobset_crd),
    Rule("pathways-gke-one-zone-per-tpu-group", "All node pools of a TPU group are in one single zone",
         MANDATORY, stack_one_zone_per_tpu_group, stack=True),
    Rule("pathways-gke-workload-names", f"JobSet names are DNS-1035 labels of at most {MAX_WORKLOAD_NAME} "
         f"characters (LeaderWorkerSet names: {MAX_LWS_NAME})", MANDATORY, rule_workload_names),
    Rule("pathways-gke-tpu-placement", "Multi-host TPU pools carry a placement policy", ADVISORY,
         rule_tpu_placement),
    Rule("pathways-gke-pods-fit", "Every declared pod fits on the node pools it is pinned to at their maximum size "
         "(requests vs allocatable, one head per node, exclusive topology, LeaderWorkerSet subgroups)",
         MANDATORY, stack_pods_fit, stack=True),
    Rule("pathways-gke-queued-pods-fit", "Pods that cannot all run at once and wait their turn (Kueue, or node "
         "pools another workload holds)",
         ADVISORY, stack_queued_pods_fit, stack=True),
)
RULES_BY_NAME = {r.name: r for r in RULES}


# --- configuration ----------------------------------------------------------------------------


def level_and_settings(rule: Rule, config: Optional[Mapping[str, Any]]) -> tuple[str, dict[str, Any]]:
    """Resolve a rule's enforcement level and settings from a pack-config-shaped mapping."""
    config = config or {}
    level = rule.level
    if isinstance(config.get("all"), str):
        level = config["all"]
    elif isinstance(config.get("all"), Mapping) and config["all"].get("enforcementLevel"):
        level = config["all"]["enforcementLevel"]
    own = config.get(rule.name)
    settings: dict[str, Any] = {}
    if isinstance(own, str):
        level = own
    elif isinstance(own, Mapping):
        level = own.get("enforcementLevel", level)
        settings = {k: v for k, v in own.items() if k != "enforcementLevel"}
    if "stack" in config:
        settings.setdefault("stack", config["stack"])
    level = str(level).lower()
    if level not in LEVELS:
        raise ValueError(f"policy config {rule.name}: enforcement level {level!r}; allowed: {', '.join(LEVELS)}")
    return level, settings


def check_config_keys(config: Mapping[str, Any]) -> list[str]:
    """Unknown policy names in a config (a typo would silently configure nothing)."""
    return [k for k in config if k not in RULES_BY_NAME and k not in ("all", "stack")]


def offline_config(stack: str, privileged_workloads: Sequence[str] = (),
                   overrides: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
    """The policy config `pathways-gke plan` uses: the stack name (production detection) and the
    workloads the stack marks `privileged: true`, then the user's overrides."""
    config: dict[str, Any] = {"stack": stack}
    if privileged_workloads:
        config["pathways-gke-no-privileged"] = {"allowPrivileged": sorted(privileged_workloads)}
    for key, value in (overrides or {}).items():
        if isinstance(value, Mapping) and isinstance(config.get(key), Mapping):
            config[key] = {**config[key], **value}
        else:
            config[key] = value
    return config


# --- running ----------------------------------------------------------------------------------


def check_resources(resources: Sequence[Resource], config: Optional[Mapping[str, Any]] = None) -> list[Violation]:
    """Every violation of every enabled rule, in a deterministic order."""
    out: list[Violation] = []
    from .fit import lws_version_of, place  # noqa: PLC0415 (the placement model)

    # both fit rules share one placement of these resources, within this call only
    if any(level_and_settings(r, config)[0] != DISABLED for r in RULES if r.check in FIT_CHECKS):
        _LAST_PLACED[:] = [(resources, place(resources, lws_version_of(resources)))]
    try:
        _check_each(resources, config, out)
    finally:
        _LAST_PLACED.clear()
    return out


def _check_each(resources: Sequence[Resource], config: Optional[Mapping[str, Any]], out: list[Violation]) -> None:
    for rule in RULES:
        level, settings = level_and_settings(rule, config)
        if level == DISABLED:
            continue
        if rule.stack:
            for resource, message in rule.check(resources, settings):
                out.append(Violation(rule.name, level, message, resource.get("urn") if resource else None,
                                     resource.get("name") if resource else None))
            continue
        for resource in resources:
            for message in rule.check(resource, settings):
                out.append(Violation(rule.name, level, message, resource.get("urn"), resource.get("name")))


def check_plan(plan: Mapping[str, Any], config: Optional[Mapping[str, Any]] = None) -> list[Violation]:
    config = dict(config or {})
    config.setdefault("stack", plan.get("stack"))
    return check_resources(list(plan.get("resources") or ()), config)


def render_violations(violations: Sequence[Violation]) -> str:
    if not violations:
        return "policy: no violations\n"
    mandatory = sum(v.level == MANDATORY for v in violations)
    lines = [f"policy: {len(violations)} violation{'s' if len(violations) != 1 else ''} "
             f"({mandatory} mandatory)"]
    lines += [f"  - {v}" for v in violations]
    return "\n".join(lines) + "\n"

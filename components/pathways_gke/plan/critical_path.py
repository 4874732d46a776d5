"""Deploy critical path: how long a first `pulumi up` is expected to take, and which chain decides it.

Pure: works on a plan.json dict (`Plan.to_json()`), no Pulumi import.

The create-order graph is the one the engine follows. A resource is registered (and its create
starts) once the SDK has resolved everything it awaits:
- every URN in `dependsOn`, where a dependency on a local component stands for the component's
  custom and remote children, recursing through local components only (the Python SDK's
  `_add_dependency`; the engine records dependsOn already expanded this way, hand-made plans may not);
- its provider(s) (`options.provider`, `options.providers`): a provider reference needs the
  provider's id, so the provider must exist;
- its parent's URN: a local component's is known once the component is registered, a custom or
  remote parent's only once it is created.
A remote component (`remote: true`, e.g. a yaml/v2 ConfigFile) is one node: Construct returns after
all of its children exist, so they belong to its duration; a dependency on one of them is a
dependency on it. Local components take 0 s, reads ~0 s, everything else its estimate from
DURATIONS. Parallelism is unlimited, as the engine's default (`pulumi up --parallel` is unbounded).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

from .. import tokens
from ..config.types import ZONE
from ..property_paths import value_at
from .image_pulls import FirstStep, first_steps, image_table, is_image_key

DEFAULT_KEY = "default"   # a type without a row
READ_KEY = "read"         # `read: true` (an adopted cluster, a StackReference): a GET, not a create
COMPONENT_KEY = "component"
ESTIMATE_NOTE = ("estimates: a first `pulumi up`, creates only, capacity available "
                 "(TPU quota and stockouts not modelled; docs/critical-path.md)")


@dataclass(frozen=True)
class Row:
    seconds: float
    why: str


# Typical create durations (seconds), keyed by resource type or `type#variant`; `row_key` picks the row.
DURATIONS: Mapping[str, Row] = {
    f"{tokens.GKE_CLUSTER}#regional": Row(540, "GKE Standard regional cluster (control plane in 3 zones): typically "
                                               "5-10 min; plus removeDefaultNodePool (the provider deletes the "
                                               "bootstrap pool, ~1-2 min)"),
    f"{tokens.GKE_CLUSTER}#zonal": Row(360, "GKE Standard zonal cluster: typically 4-6 min, including the default-pool "
                                            "removal"),
    f"{tokens.NODE_POOL}#cpu": Row(240, "GKE node-pool create ends when the initial nodes (general-purpose VMs) have "
                                        "registered: typically 3-5 min"),
    f"{tokens.NODE_POOL}#tpu-multi-host": Row(720, "multi-host TPU slice: all hosts of the slice are created together "
                                                   "(COMPACT placement) and must all register: typically 10-15 min "
                                                   "when capacity is there (our create timeout is 60 min)"),
    f"{tokens.NODE_POOL}#tpu-single-host": Row(420, "single-host TPU slice: one TPU VM; typically 5-8 min"),
    f"{tokens.NODE_POOL}#scale-from-zero": Row(150, "0 initial nodes (flex-start, queued provisioning, autoscaled "
                                                    "from 0): instance templates and groups only, no VM; nodes come "
                                                    "later, at scale-up, outside `pulumi up`"),
    tokens.SERVICE_ACCOUNT: Row(5, "IAM API call; the provider polls until the new account is readable "
                                   "(eventual consistency)"),
    tokens.PROJECT_IAM_MEMBER: Row(10, "read-modify-write of the project IAM policy; the provider serialises "
                                       "members of one project; propagation (~2 min, up to 7) is not awaited"),
    tokens.FIREWALL: Row(15, "one global Compute Engine operation"),
    tokens.BUCKET_IAM_MEMBER: Row(5, "read-modify-write of the bucket's IAM policy "
                                     "(propagation, ~1-2 min, is not awaited)"),
    tokens.SERVICE_ACCOUNT_IAM_MEMBER: Row(5, "read-modify-write of the service account's IAM policy"),
    tokens.BUCKET: Row(5, "one Cloud Storage API call"),
    tokens.ROUTER: Row(15, "one regional Compute Engine operation"),
    tokens.ROUTER_NAT: Row(20, "an update of the router (regional operation)"),
    tokens.KUBERNETES_SERVICE_ACCOUNT: Row(2, "no await logic"),
    tokens.RESOURCE_POLICY: Row(10, "one regional Compute Engine operation (the tpu7x "
                                    "workload policy)"),
    tokens.KUBERNETES_PROVIDER: Row(1, "provider configuration only (kubeconfig from the cluster's outputs)"),
    tokens.GCP_PROVIDER: Row(1, "provider configuration only"),
    f"{tokens.CONFIG_FILE}#awaited": Row(120, "server-side apply of a release manifest (CRDs, RBAC, webhooks, "
                                              "controller); pulumi-kubernetes awaits the controller Deployment "
                                              "(Available: image pull on the CPU node, webhook certificate): "
                                              "~1-3 min"),
    f"{tokens.CONFIG_FILE}#skip-await": Row(15, "server-side apply of a release manifest without await logic"),
    tokens.CONFIG_MAP: Row(2, "no await logic (the readiness gate: the waiting is in the installs it "
                              "depends on)"),
    tokens.NAMESPACE: Row(2, "a single API-server write"),
    tokens.SECRET: Row(2, "no await logic"),
    tokens.PRIORITY_CLASS: Row(2, "no await logic"),
    tokens.CRD: Row(5, "pulumi-kubernetes awaits Established"),
    tokens.RESOURCE_FLAVOR: Row(3, "custom resource: no await logic; Kueue's admission "
                                   "webhook on the write path"),
    tokens.CLUSTER_QUEUE: Row(3, "custom resource: no await logic; Kueue webhook"),
    tokens.LOCAL_QUEUE: Row(3, "custom resource: no await logic; Kueue webhook"),
    tokens.ADMISSION_CHECK: Row(3, "custom resource: no await logic; Kueue webhook"),
    tokens.KUEUE_TOPOLOGY: Row(3, "custom resource: no await logic; Kueue webhook (tpu7x dynamic slicing)"),
    tokens.GKE_NETWORK_PARAM_SET: Row(2, "custom resource (GKE's CRD): no await logic (cluster.additionalNetworks)"),
    tokens.GKE_NETWORK: Row(2, "custom resource (GKE's CRD): no await logic (cluster.additionalNetworks)"),
    tokens.PROVISIONING_REQUEST_CONFIG: Row(3, "custom resource: no await logic; "
                                               "Kueue webhook"),
    tokens.JOBSET: Row(5, "custom resource: no await logic (done when admitted, not when pods run); JobSet (and "
                          "Kueue) webhooks on the write path"),
    tokens.LEADER_WORKER_SET: Row(5, "custom resource: no await logic (done when "
                                     "admitted by the LWS webhooks; the groups' TPU "
                                     "scheduling and checkpoint loading come later)"),
    tokens.SERVICE: Row(5, "ClusterIP / internal LB Service: the serving one skips await (its endpoints "
                           "are ready only once the model is loaded); a proxy's waits for its pod"),
    tokens.DEPLOYMENT: Row(60, "pulumi-kubernetes awaits Available: a client proxy pod on the CPU pool, "
                               "image pulled, readiness probe passed"),
    tokens.JOB: Row(20, "the LWS webhook gate, awaited until it completes: one kubectl dry run when the "
                        "webhook already answers, retried with the Job's pod backoff until it does"),
    tokens.ROLE: Row(2, "no await logic"),
    tokens.ROLE_BINDING: Row(2, "no await logic"),
    READ_KEY: Row(2, "`read: true` (adopted cluster, StackReference): one GET, nothing is created"),
    DEFAULT_KEY: Row(30, "any type without a row (override it with --durations)"),
}


# --- which row applies (the one place that decides) ---------------------------------------------


def _cluster_variant(inputs: Mapping[str, Any]) -> str:
    location = inputs.get("location")
    return "zonal" if isinstance(location, str) and ZONE.match(location) else "regional"


def _node_pool_variant(inputs: Mapping[str, Any]) -> str:
    config = inputs.get("nodeConfig") or {}
    placement = inputs.get("placementPolicy") or {}
    node_count = inputs.get("nodeCount")
    if (value_at(inputs, "queuedProvisioning.enabled") is True or config.get("flexStart") is True
            or (inputs.get("initialNodeCount") == 0 and not node_count)):
        return "scale-from-zero"
    machine_type = config.get("machineType")
    machine = machine_type if isinstance(machine_type, str) else ""
    tpu = ("tpuTopology" in placement or machine.startswith(("ct", "tpu"))
           or any(t.get("key") == "google.com/tpu" for t in config.get("taints") or () if isinstance(t, dict)))
    if not tpu:
        return "cpu"
    hosts = node_count if isinstance(node_count, int) else inputs.get("initialNodeCount")
    multi_host = "tpuTopology" in placement or (isinstance(hosts, int) and hosts > 1)
    return "tpu-multi-host" if multi_host else "tpu-single-host"


def _install_variant(inputs: Mapping[str, Any]) -> str:
    return "skip-await" if inputs.get("skipAwait") is True else "awaited"


VARIANTS: Mapping[str, Callable[[Mapping[str, Any]], str]] = {
    tokens.GKE_CLUSTER: _cluster_variant, tokens.NODE_POOL: _node_pool_variant, tokens.CONFIG_FILE: _install_variant,
}


def is_local_component(resource: Mapping[str, Any]) -> bool:
    return not resource.get("custom") and not resource.get("remote")


def row_key(resource: Mapping[str, Any]) -> str:
    """The DURATIONS row of a resource, decided by plain inputs (a type, `type#variant`, `read`)."""
    if is_local_component(resource):
        return COMPONENT_KEY
    if resource.get("read"):
        return READ_KEY
    classify = VARIANTS.get(resource["type"])
    return f"{resource['type']}#{classify(resource.get('inputs') or {})}" if classify else resource["type"]


# --- durations: the table and user overrides ----------------------------------------------------


class DurationsError(ValueError):
    """A --durations file that is not a mapping of known keys to seconds; one line per problem."""

    def __init__(self, source: str, problems: list[str]):
        self.source, self.problems = source, problems
        super().__init__("\n".join(f"{source}: {p}" for p in problems))


def validate_durations(data: Any, source: str = "durations") -> dict[str, float]:
    """Overrides -> {key: seconds}. Keys: a resource type, a `type#variant` row, `default` or `read`."""
    if not isinstance(data, Mapping):
        raise DurationsError(source, ["expected a mapping of resource type -> seconds, e.g. "
                                      f"{{\"{tokens.NODE_POOL}\": 600}}"])
    problems, out = [], {}
    for key, value in data.items():
        if not isinstance(key, str) or not _known_key(key):
            problems.append(f"{key!r}: {_key_problem(key)}")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            problems.append(f"{key!r}: {value!r} is not a duration; give seconds as a number >= 0")
        else:
            out[key] = float(value)
    if problems:
        raise DurationsError(source, problems)
    return out


def _known_key(key: str) -> bool:
    if key in DURATIONS or is_image_key(key):
        return True
    return "#" not in key and tokens.TYPE_TOKEN.fullmatch(key) is not None


def _key_problem(key: Any) -> str:
    if isinstance(key, str) and "#" in key:
        type_ = key.split("#", 1)[0]
        variants = sorted(k for k in DURATIONS if k.startswith(type_ + "#"))
        if variants:
            return f"unknown variant; allowed: {', '.join(variants)}"
    return (f"not a resource type (pkg:module:Type), a `type#variant` row of the durations table, "
            f"{DEFAULT_KEY!r}, {READ_KEY!r}, or an image-pull row (image-size#<repository>, pull-rate#cpu|tpu, "
            "image-pull#streamed|preloaded, first-step)")


def load_durations(path: Path | str) -> dict[str, float]:
    """A JSON or YAML file {type or type#variant: seconds}; raises DurationsError (also when unreadable)."""
    import yaml

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text())  # JSON is YAML
    except OSError as exc:
        raise DurationsError(str(path), [f"cannot read: {exc.strerror or exc}"]) from None
    except yaml.YAMLError as exc:
        raise DurationsError(str(path), [f"not JSON or YAML: {exc}"]) from None
    return validate_durations(data, str(path))


def duration_table(overrides: Optional[Mapping[str, float]] = None) -> dict[str, float]:
    """DURATIONS with overrides; a bare type overrides every `type#variant` row not overridden itself."""
    table = {key: row.seconds for key, row in DURATIONS.items()}
    overrides = dict(overrides or {})
    for key, seconds in overrides.items():
        if "#" not in key:
            for row in [k for k in table if k.startswith(key + "#") and k not in overrides]:
                table[row] = seconds
        table[key] = seconds
    return table


def estimate(resource: Mapping[str, Any], table: Mapping[str, float]) -> tuple[float, str]:
    """(seconds, the row used) for one resource; local components take 0 s."""
    key = row_key(resource)
    if key == COMPONENT_KEY:
        return 0.0, key
    for candidate in (key, resource["type"]):
        if candidate in table:
            return table[candidate], candidate
    return table[DEFAULT_KEY], DEFAULT_KEY


# --- the create-order graph ---------------------------------------------------------------------


class PlanGraphError(ValueError):
    """The plan cannot be scheduled: a dependency cycle, or a dependency on a URN that is not in the plan."""


@dataclass
class CreateGraph:
    resources: dict[str, Mapping[str, Any]]   # schedulable nodes (children of remote components folded away)
    preds: dict[str, set[str]]                # urn -> urns it waits for (direct)
    folded: dict[str, str]                    # child of a remote component -> that remote component

    def node(self, urn: str) -> str:
        return self.folded.get(urn, urn)

    def waits_for(self, urn: str) -> set[str]:
        """Every node `urn` waits for, transitively (through dependencies, providers and parents)."""
        seen: set[str] = set()
        todo = list(self.preds[self.node(urn)])
        while todo:
            current = todo.pop()
            if current not in seen:
                seen.add(current)
                todo.extend(self.preds[current])
        return seen


def create_graph(plan: Mapping[str, Any]) -> CreateGraph:
    by_urn = {r["urn"]: r for r in plan["resources"]}
    children: dict[str, list[str]] = {}
    for r in plan["resources"]:
        if r.get("parent"):
            children.setdefault(r["parent"], []).append(r["urn"])

    def remote_owner(urn: str) -> Optional[str]:
        owner, parent = None, by_urn[urn].get("parent")
        while parent in by_urn:
            if by_urn[parent].get("remote"):
                owner = parent  # the outermost remote ancestor wins
            parent = by_urn[parent].get("parent")
        return owner

    folded = {urn: owner for urn in by_urn if (owner := remote_owner(urn))}
    nodes = {urn: r for urn, r in by_urn.items() if urn not in folded}

    def expand(urn: str, who: str, what: str) -> set[str]:
        if urn not in by_urn:
            raise PlanGraphError(f"{by_urn[who]['name']} ({by_urn[who]['type']}): {what} {urn} is not in the plan")
        urn = folded.get(urn, urn)
        if not is_local_component(by_urn[urn]):
            return {urn}
        out: set[str] = set()  # like the SDK: custom and remote children, recursing through local components
        todo = list(children.get(urn, ()))
        while todo:
            child = todo.pop()
            if is_local_component(by_urn[child]):
                todo.extend(children.get(child, ()))
            else:
                out.add(child)
        return out

    preds: dict[str, set[str]] = {}
    for urn, r in nodes.items():
        options = r.get("options") or {}
        waits: set[str] = set()
        for dep in r.get("dependsOn") or ():
            waits |= expand(dep, urn, "dependency")
        for provider in [options.get("provider"), *(options.get("providers") or {}).values()]:
            if provider:
                waits |= expand(provider, urn, "provider")
        if r.get("parent"):
            if r["parent"] not in by_urn:
                raise PlanGraphError(f"{r['name']} ({r['type']}): parent {r['parent']} is not in the plan")
            waits.add(r["parent"])  # its URN: registration for a local component, creation otherwise
        preds[urn] = waits
    return CreateGraph(resources=nodes, preds=preds, folded=folded)


def topological_order(graph: CreateGraph) -> list[str]:
    """Nodes in create order (ties by URN); raises PlanGraphError naming a cycle."""
    pending = {urn: set(p) for urn, p in graph.preds.items()}
    dependents: dict[str, list[str]] = {urn: [] for urn in pending}
    for urn, waits in pending.items():
        for p in waits:
            dependents[p].append(urn)
    ready = sorted(urn for urn, waits in pending.items() if not waits)
    order: list[str] = []
    while ready:
        urn = ready.pop(0)
        order.append(urn)
        for d in dependents[urn]:
            pending[d].discard(urn)
            if not pending[d]:
                ready.append(d)
        ready.sort()
    if len(order) < len(pending):
        raise PlanGraphError("dependency cycle: " + " -> ".join(
            graph.resources[u]["name"] for u in _a_cycle(graph, set(pending) - set(order))))
    return order


def _a_cycle(graph: CreateGraph, stuck: set[str]) -> list[str]:
    start = min(stuck)
    path, seen = [start], {start: 0}
    while True:
        nxt = min(p for p in graph.preds[path[-1]] if p in stuck)
        if nxt in seen:
            cycle = path[seen[nxt]:] + [nxt]
            return list(reversed(cycle))  # dependency -> dependent
        seen[nxt] = len(path)
        path.append(nxt)


# --- the schedule -------------------------------------------------------------------------------


@dataclass
class Step:
    urn: str
    type: str
    name: str
    start: float
    duration: float
    finish: float
    row: str
    slack: float = 0.0

    def to_json(self, *, slack: bool = False) -> dict[str, Any]:
        out = {"urn": self.urn, "type": self.type, "name": self.name, "start": _num(self.start),
               "duration": _num(self.duration), "finish": _num(self.finish), "estimate": self.row}
        if slack:
            out["slack"] = _num(self.slack)
        return out


@dataclass
class Schedule:
    stack: str
    total: float
    steps: dict[str, Step]            # every node, earliest start / finish
    chain: list[Step]                 # the critical path, first create first (local components left out)
    graph: CreateGraph
    defaulted: list[str] = field(default_factory=list)  # types that fell back to the default row
    first_steps: list[FirstStep] = field(default_factory=list)  # per JobSet: image pulls and start-up

    def node_pools(self) -> list[Step]:
        return [s for s in self.steps.values() if s.type == tokens.NODE_POOL]

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack, "totalSeconds": _num(self.total), "total": human(self.total),
            "chain": [s.to_json() for s in self.chain],
            "nodePools": [s.to_json(slack=True) for s in self.node_pools()],
            "defaulted": self.defaulted, "note": ESTIMATE_NOTE,
            "firstStep": [{
                "jobset": f.name, "created": _num(f.created), "imagePulls": _num(f.pulls), "pullModes": f.modes,
                "start": _num(f.start), "firstStepSeconds": _num(f.first_step), "firstStep": human(f.first_step),
                "preloadedSeconds": _num(f.first_step_preloaded), "coldSeconds": _num(f.first_step_cold),
            } for f in self.first_steps],
        }


def critical_path(plan: Mapping[str, Any], overrides: Optional[Mapping[str, float]] = None) -> Schedule:
    """Earliest-finish schedule of the plan's creates and its longest chain (unlimited parallelism)."""
    graph = create_graph(plan)
    table = duration_table(overrides)
    order = topological_order(graph)
    steps: dict[str, Step] = {}
    defaulted = set()
    for urn in order:
        r = graph.resources[urn]
        seconds, row = estimate(r, table)
        if row == DEFAULT_KEY:
            defaulted.add(r["type"])
        start = max((steps[p].finish for p in graph.preds[urn]), default=0.0)
        steps[urn] = Step(urn=urn, type=r["type"], name=r["name"], start=start, duration=seconds,
                          finish=start + seconds, row=row)
    total = max((s.finish for s in steps.values()), default=0.0)
    _slack(graph, order, steps, total)
    pools = {r["urn"]: r for r in plan["resources"] if r["type"] == tokens.NODE_POOL}
    jobsets = [r for r in graph.resources.values() if r["type"] == tokens.JOBSET]
    firsts = first_steps(jobsets, pools, {u: steps[u].finish for u in steps}, image_table(overrides))
    return Schedule(stack=str(plan.get("stack") or ""), total=total, steps=steps,
                    chain=_chain(graph, steps), graph=graph, defaulted=sorted(defaulted), first_steps=firsts)


def _slack(graph: CreateGraph, order: list[str], steps: dict[str, Step], total: float) -> None:
    latest_finish = {urn: total for urn in order}
    for urn in reversed(order):
        latest_start = latest_finish[urn] - steps[urn].duration
        steps[urn].slack = latest_finish[urn] - steps[urn].finish
        for p in graph.preds[urn]:
            latest_finish[p] = min(latest_finish[p], latest_start)


def _binding(graph: CreateGraph, steps: Mapping[str, Step], urns: Iterable[str]) -> str:
    """The latest-finishing of `urns`; ties prefer a resource that takes time over a component, then the URN."""
    return min(urns, key=lambda u: (-steps[u].finish, is_local_component(graph.resources[u]), u))


def _chain(graph: CreateGraph, steps: Mapping[str, Step]) -> list[Step]:
    if not steps:
        return []
    current, path = _binding(graph, steps, steps), []
    while True:
        path.append(current)
        if not graph.preds[current] or steps[current].start == 0:
            break
        current = _binding(graph, steps, graph.preds[current])
    return [steps[u] for u in reversed(path) if not is_local_component(graph.resources[u])]


# --- rendering ----------------------------------------------------------------------------------


def _num(value: float) -> float | int:
    return int(value) if float(value).is_integer() else round(value, 3)


def clock(seconds: float) -> str:
    """1265 -> '21:05'; 3725 -> '1:02:05'."""
    s = int(round(seconds))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


def human(seconds: float) -> str:
    """1265 -> '21m 05s'; 45 -> '45s'; 3725 -> '1h 02m 05s'."""
    s = int(round(seconds))
    if s >= 3600:
        return f"{s // 3600}h {s % 3600 // 60:02d}m {s % 60:02d}s"
    return f"{s // 60}m {s % 60:02d}s" if s >= 60 else f"{s}s"


def render_text(schedule: Schedule) -> str:
    seconds = f" ({_num(schedule.total)} s)" if schedule.total >= 60 else ""
    lines = [f"Expected `pulumi up` (first create) of stack {schedule.stack or '?'}: {human(schedule.total)}{seconds}"]
    if schedule.first_steps:
        last = max(schedule.first_steps, key=lambda f: f.first_step)
        lines.append(f"Expected time to the first training step: {human(last.first_step)} ({last.name}; "
                     f"{human(last.first_step_preloaded)} with preloaded images, {human(last.first_step_cold)} "
                     "without streaming or cache)")
    lines += [f"  {ESTIMATE_NOTE}", "", "Critical path:"]
    rows = [("start", "duration", "finish", "type", "name", "variant")]
    rows += [(clock(s.start), clock(s.duration), clock(s.finish), s.type, s.name, _variant(s.row))
             for s in schedule.chain]
    lines += _table(rows)
    pools = schedule.node_pools()
    if pools:
        lines += ["", "Node pools (slack: how much later a pool could finish without delaying the deploy):"]
        prows = [("start", "duration", "finish", "slack", "name", "variant")]
        prows += [(clock(s.start), clock(s.duration), clock(s.finish), clock(s.slack), s.name, _variant(s.row))
                  for s in sorted(pools, key=lambda s: s.name)]
        lines += _table(prows)
    if schedule.first_steps:
        lines += ["", "Time to the first training step (after `pulumi up` creates each JobSet: image pulls on the "
                      "nodes, then start-up):"]
        frows = [("jobset", "created", "image pulls", "start", "first step", "preloaded", "no streaming/cache")]
        frows += [(f.name, clock(f.created), f"{clock(f.pulls)} ({'+'.join(f.modes)})", clock(f.start),
                   clock(f.first_step), clock(f.first_step_preloaded), clock(f.first_step_cold))
                  for f in schedule.first_steps]
        lines += _table(frows)
        lines += ["  preloaded: with a container-image-cache disk on every pool the JobSet uses; no streaming/cache: "
                  "every image pulled in full"]
    if schedule.defaulted:
        lines += ["", f"no estimate for {', '.join(schedule.defaulted)}: used {DEFAULT_KEY!r} "
                      f"({_num(duration_table()[DEFAULT_KEY])} s unless overridden)"]
    return "\n".join(lines) + "\n"


def _variant(row: str) -> str:
    """The part of a row key worth a column: `regional`, `tpu-multi-host`, `read`, `default` (a bare type: -)."""
    if "#" in row:
        return row.partition("#")[2]
    return row if row in (READ_KEY, DEFAULT_KEY) else "-"


def _table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]


def durations_markdown() -> str:
    """The DURATIONS table as Markdown (docs/critical-path.md embeds it; a test keeps it current)."""
    lines = ["| key | seconds | why / basis |", "|---|---:|---|"]
    lines += [f"| `{key}` | {_num(row.seconds)} | {row.why} |" for key, row in DURATIONS.items()]
    return "\n".join(lines) + "\n"

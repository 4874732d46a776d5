"""Diff two offline plans: added / removed / changed resources, changed property paths, replacements.

Resources are matched by URN (an alias on the new resource that names an old URN makes it the same
resource, renamed). Property paths are Pulumi property paths (property_paths.py): `nodeConfig.machineType`,
`spec.replicatedJobs[1].replicas`, `metadata.labels["pathways-gke/tpu-group"]`. Inputs under the
new resource's `ignoreChanges` are not changes, as in `pulumi preview`.

Every change gets the verdict of the real `pulumi up` from the apply-outcome model (apply_rules.py):
- REPLACE when it touches a replace-forcing input of its type or a path under its own
  `options.replaceOnChanges`; replacement then cascades to every resource that lists a replaced one in
  `options.replaceWith`, to everything managed by a replaced provider, and (for a delete-first replacement)
  to every dependent whose force-new input reads it (the engine's re-diff with those inputs unknown). A
  replacement is delete-first with `deleteBeforeReplace` or for a Kubernetes object that keeps its name;
- REFUSED when GKE, a webhook or the engine refuses it: an update the server refuses (a cluster's DNS,
  Kueue's immutable fields), a protected resource replaced or deleted, a retained fixed name replaced
  delete-first. Each refusal names its rule, its source and the way out;
- otherwise an in-place UPDATE.

Works on plan.json dicts (the CLI contract) or engine `Plan` objects. Pure: no Pulumi import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from ..apply_rules import (Refusal, create_refusals, forces_replace, provider_deletes_first,
                           release_refusals, update_refusals)
from ..gke_rules import SERVER_FILLED_TPU_FIELDS, SERVER_FILLED_WORKLOAD_POLICY_FIELDS
from ..property_paths import Part, changed_paths, covers, format_path, parse_path, value_at
from ..tokens import NODE_POOL
from .replacements import NODES_RECREATED, fixed_name, replace_patterns

UPDATE = "update"
REPLACE = "replace"
REFUSED = "refused"
CREATE_FIRST = "create-first"
DELETE_FIRST = "delete-first"

# Options whose change is itself an update step (`pulumi preview` shows them); dependsOn,
# replaceWith and aliases are graph edges / bookkeeping and are not diffs.
DIFFED_OPTIONS = ("protect", "retainOnDelete", "deleteBeforeReplace", "ignoreChanges", "replaceOnChanges",
                  "provider", "customTimeouts", "deletedWith")


@dataclass(frozen=True)
class Change:
    urn: str
    type: str
    name: str
    properties: tuple[str, ...]
    replace: bool = False
    replace_reasons: tuple[str, ...] = ()      # property paths that force the replacement
    replaced_with: tuple[str, ...] = ()        # URNs in options.replaceWith that are replaced
    provider_replaced: Optional[str] = None    # the replaced provider that manages this resource
    options: tuple[str, ...] = ()              # changed resource options
    nodes_recreated: tuple[str, ...] = ()      # in-place paths that still roll every node of a pool
    renamed_from: Optional[str] = None
    delete_before_replace: bool = False
    name_clash: Optional[str] = None           # replaced create-before-delete under the same fixed name
    server_filled: tuple[str, ...] = ()        # replace reasons that are fields GKE fills in itself
    replaced_by: tuple[str, ...] = ()          # delete-first replacements whose re-diff replaces this one
    cascade: tuple[str, ...] = ()              # URNs replaced because this one is (transitively)
    refusals: tuple[Refusal, ...] = ()         # why the real `pulumi up` fails on this change

    @property
    def verdict(self) -> str:
        """update (in place) | replace | refused (GKE, a webhook or the engine refuses it on `pulumi up`)."""
        return REFUSED if self.refusals else REPLACE if self.replace else UPDATE

    @property
    def replace_mode(self) -> Optional[str]:
        return (DELETE_FIRST if self.delete_before_replace else CREATE_FIRST) if self.replace else None

    @property
    def disruptive_node_pool(self) -> bool:
        """A node-pool change that tears down its nodes: whatever runs there (a TPU slice's job) dies."""
        return self.type == NODE_POOL and (self.replace or bool(self.nodes_recreated))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"urn": self.urn, "replace": self.replace, "properties": list(self.properties),
                               "type": self.type, "name": self.name,
                               "replaceReasons": list(self.replace_reasons)}
        if self.replaced_with:
            out["replacedWith"] = list(self.replaced_with)
        if self.provider_replaced:
            out["providerReplaced"] = self.provider_replaced
        if self.options:
            out["options"] = list(self.options)
        if self.nodes_recreated:
            out["nodesRecreated"] = list(self.nodes_recreated)
        if self.renamed_from:
            out["renamedFrom"] = self.renamed_from
        if self.name_clash:
            out["nameClash"] = self.name_clash
        if self.server_filled:
            out["serverFilled"] = list(self.server_filled)
        out["verdict"] = self.verdict
        if self.replace:
            out["replaceMode"] = self.replace_mode
        if self.replaced_by:
            out["replacedBy"] = list(self.replaced_by)
        if self.cascade:
            out["cascade"] = list(self.cascade)
        if self.refusals:
            out["refusals"] = [refusal_json(r) for r in self.refusals]
        return out


def refusal_json(refusal: Refusal) -> dict[str, Any]:
    rule = refusal.world_rule
    return {"rule": rule.id, "by": rule.actor, "paths": list(refusal.paths), "what": rule.rule,
            "source": rule.source, "wayOut": rule.way_out}


@dataclass(frozen=True)
class PlanDiff:
    old_stack: str
    new_stack: str
    added: tuple[Mapping[str, Any], ...]
    removed: tuple[Mapping[str, Any], ...]
    changed: tuple[Change, ...]
    old_resources: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, repr=False)
    new_resources: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, repr=False)
    # URN -> refusals of an added (create) or removed (delete) resource
    create_refusals: Mapping[str, tuple[Refusal, ...]] = field(default_factory=dict)
    delete_refusals: Mapping[str, tuple[Refusal, ...]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

    @property
    def refused(self) -> list[tuple[str, str, Refusal]]:
        """(URN, action, refusal) of every step the real `pulumi up` refuses: the diff fails on any."""
        out = [(urn, "create", r) for urn, rs in self.create_refusals.items() for r in rs]
        out += [(c.urn, "replace" if c.replace else "update", r) for c in self.changed for r in c.refusals]
        out += [(urn, "delete", r) for urn, rs in self.delete_refusals.items() for r in rs]
        return out

    @property
    def replaced(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changed if c.replace)

    @property
    def disruptive_node_pools(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changed if c.disruptive_node_pool)

    @property
    def removed_node_pools(self) -> tuple[Mapping[str, Any], ...]:
        return tuple(r for r in self.removed if r["type"] == NODE_POOL)

    @property
    def renames_without_alias(self) -> tuple[tuple[str, str], ...]:
        """(old URN, new URN) pairs that are one resource under a new name with no alias to say so.

        A removed and an added resource of the same type with identical inputs and options is the same
        cloud object renamed in code; without an alias Pulumi deletes it and creates it again (for a node
        pool: its nodes and whatever runs there go). Child names are public API: add
        `aliases=[pulumi.Alias(name=<old name>)]`, or do not rename.
        """
        added: dict[str, list[str]] = {}
        for r in self.added:
            if r.get("custom", True):  # a component has no inputs to tell it apart; its children do
                added.setdefault(_identity(r), []).append(r["urn"])
        pairs = []
        for r in self.removed:
            candidates = added.get(_identity(r)) if r.get("custom", True) else None
            if candidates:
                pairs.append((r["urn"], candidates.pop(0)))
        return tuple(pairs)

    def status(self) -> dict[str, str]:
        """URN -> added | removed | replaced | changed, for every resource the diff touches."""
        out = {r["urn"]: "added" for r in self.added}
        out.update({r["urn"]: "removed" for r in self.removed})
        out.update({c.urn: "replaced" if c.replace else "changed" for c in self.changed})
        return out

    def verdicts(self) -> dict[str, str]:
        """URN -> create | delete | update | replace | refused: what the real `pulumi up` does with each."""
        out = {r["urn"]: REFUSED if self.create_refusals.get(r["urn"]) else "create" for r in self.added}
        out.update({r["urn"]: REFUSED if self.delete_refusals.get(r["urn"]) else "delete" for r in self.removed})
        out.update({c.urn: c.verdict for c in self.changed})
        return out

    def to_json(self) -> dict[str, Any]:
        """The CLI contract: {"added":[urn], "removed":[urn], "changed":[{"urn","replace","properties"}, ...]}
        (changed entries carry extra keys: type, name, replaceReasons, and when set replacedWith,
        providerReplaced, options, nodesRecreated, renamedFrom)."""
        out: dict[str, Any] = {
            "added": [r["urn"] for r in self.added],
            "removed": [r["urn"] for r in self.removed],
            "changed": [c.to_json() for c in self.changed],
        }
        renames = self.renames_without_alias
        if renames:
            out["renamesWithoutAlias"] = [{"from": old, "to": new} for old, new in renames]
        refused = self.refused
        if refused:
            out["refused"] = [{"urn": urn, "action": action, **refusal_json(r)} for urn, action, r in refused]
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n"


# --- loading ----------------------------------------------------------------------------------


def plan_dict(plan: Any) -> dict[str, Any]:
    """A plan.json mapping from a mapping, an engine Plan, or a path to plan.json."""
    if isinstance(plan, (str, Path)):
        return json.loads(Path(plan).read_text())
    if hasattr(plan, "to_json"):
        return plan.to_json()
    if isinstance(plan, Mapping):
        return dict(plan)
    raise TypeError(f"not a plan: {type(plan).__name__}")


def resources_by_urn(plan: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    resources = plan.get("resources")
    if not isinstance(resources, list):
        raise ValueError("not a plan: no 'resources' list")
    out: dict[str, Mapping[str, Any]] = {}
    for r in resources:
        if r["urn"] in out:
            raise ValueError(f"plan has the URN {r['urn']} twice")
        out[r["urn"]] = r
    return out


# --- diff -------------------------------------------------------------------------------------


def diff_plans(old: Any, new: Any) -> PlanDiff:
    old_plan, new_plan = plan_dict(old), plan_dict(new)
    olds, news = resources_by_urn(old_plan), resources_by_urn(new_plan)
    # Two different stacks (dev vs prod): match URNs as if the old one had the new stack's name, and read the
    # old resources' references (provider, replaceWith, dependencies) the same way.
    old_stack, new_stack = old_plan.get("stack"), new_plan.get("stack")
    if old_stack != new_stack:
        olds = {u: _restack_refs(r, new_stack) for u, r in olds.items()}
    as_new = {(_restack(u, new_stack) if old_stack != new_stack else u): u for u in olds}

    pairs: dict[str, tuple[str, Optional[str]]] = {urn: (as_new[urn], None) for urn in news if urn in as_new}
    for urn, resource in news.items():
        if urn in pairs:
            continue
        for alias in _alias_urns(urn, value_at(resource, "options.aliases") or ()):
            old_urn = as_new.get(alias)
            if old_urn is not None and alias not in news:
                pairs[urn] = (old_urn, old_urn)
                break
    matched_old = {old_urn for old_urn, _ in pairs.values()}
    added = [news[u] for u in sorted(news) if u not in pairs]
    removed = [olds[u] for u in sorted(olds) if u not in matched_old]

    changes: dict[str, dict[str, Any]] = {}
    for urn, (old_urn, renamed_from) in pairs.items():
        change = _compare(olds[old_urn], news[urn])
        change["renamed_from"] = renamed_from if renamed_from else None
        change["delete_first"] = bool(value_at(news[urn], "options.deleteBeforeReplace")) or provider_deletes_first(
            news[urn]["type"], olds[old_urn].get("inputs") or {}, news[urn].get("inputs") or {})
        changes[urn] = change

    old_to_new = {old_urn: urn for urn, (old_urn, _) in pairs.items()}
    _cascade(changes, news, {urn: olds[old_urn] for urn, (old_urn, _) in pairs.items()}, old_to_new)
    cascade = _cascade_lists(changes)

    changed = []
    for urn in sorted(changes):
        c = changes[urn]
        if not (c["properties"] or c["options"] or c["replace"] or c["renamed_from"]):
            continue
        resource = news[urn]
        old_resource = olds[pairs[urn][0]]
        dbr = c["delete_first"]
        name = fixed_name(resource)
        clash = name if (c["replace"] and not dbr and name is not None and name == fixed_name(old_resource)) else None
        changed.append(Change(
            urn=urn, type=resource["type"], name=resource["name"], properties=tuple(c["properties"]),
            replace=c["replace"], replace_reasons=tuple(c["reasons"]), replaced_with=tuple(c["with"]),
            provider_replaced=c["provider"],
            options=tuple(c["options"]), nodes_recreated=tuple(c["recreated"]), renamed_from=c["renamed_from"],
            delete_before_replace=dbr, name_clash=clash, server_filled=_server_filled(resource, c["reasons"]),
            replaced_by=tuple(c["by"]), cascade=tuple(cascade.get(urn, ())),
            refusals=tuple(_refusals(old_resource, resource, c, dbr, changes, news)),
        ))
    creating = {r["urn"]: tuple(create_refusals(r["type"], r.get("inputs") or {})) for r in added}
    deleting = {r["urn"]: (Refusal("protect-delete", ()),) for r in removed
                if r.get("custom", True) and value_at(r, "options.protect")}
    return PlanDiff(old_stack=str(old_plan.get("stack", "")), new_stack=str(new_plan.get("stack", "")),
                    added=tuple(added), removed=tuple(removed), changed=tuple(changed),
                    old_resources=olds, new_resources=news,
                    create_refusals={u: r for u, r in creating.items() if r}, delete_refusals=deleting)


def _server_filled(resource: Mapping[str, Any], reasons: list[str]) -> tuple[str, ...]:
    """Replace reasons on a TPU pool that are fields GKE fills in itself. The workload-policy fields count only on a
    pool that uses a workload policy: elsewhere `placementPolicy.type` is the slice's real shape (multi-host or
    not), and advice to ignore it would freeze a real change."""
    if resource["type"] != NODE_POOL:
        return ()
    fields = list(SERVER_FILLED_TPU_FIELDS)
    if value_at(resource, "inputs.placementPolicy.policyName"):
        fields += list(SERVER_FILLED_WORKLOAD_POLICY_FIELDS)
    return tuple(r for r in reasons if any(covers(parse_path(f), parse_path(r)) for f in fields))


def _refusals(old: Mapping[str, Any], new: Mapping[str, Any], c: Mapping[str, Any], delete_first: bool,
              changes: Mapping[str, Mapping[str, Any]], news: Mapping[str, Mapping[str, Any]]) -> list[Refusal]:
    """What refuses this change on the real `pulumi up` (the apply-outcome model, apply_rules.py)."""
    if not new.get("custom", True):
        return []
    if c.get("management") == "import":
        return [Refusal("read-to-managed", ())]
    if c.get("management") == "relinquish":
        return []
    out = release_refusals(new["type"], old.get("inputs") or {}, new.get("inputs") or {})
    if c["replace"]:
        # step_generator.go: `new.Protect && old.Protect` (unprotecting and replacing in one update is allowed)
        if value_at(old, "options.protect") and value_at(new, "options.protect"):
            out.append(Refusal("protect-replace", tuple(c["reasons"])))
        name = fixed_name(new)
        retained = value_at(old, "options.retainOnDelete") or value_at(new, "options.retainOnDelete")
        if retained and delete_first and name is not None and name == fixed_name(old):
            out.append(Refusal("retain-on-delete-409", tuple(c["reasons"])))
        return out
    return out + update_refusals(new["type"], old.get("inputs") or {}, new.get("inputs") or {}, c["properties"])


def _compare(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    if bool(old.get("read")) != bool(new.get("read")):
        # managed -> read: relinquished, nothing changes in the cloud; read -> managed: a create of what exists
        # (apply_rules `relinquish`, `read-to-managed`)
        return {"properties": [], "reasons": [], "recreated": [], "options": ["read"], "replace": False, "with": [],
                "provider": None, "by": [], "management": "relinquish" if new.get("read") else "import"}
    options = new.get("options") or {}
    ignored = [parse_path(p) for p in options.get("ignoreChanges") or ()]
    paths = [p for p in changed_paths(old.get("inputs") or {}, new.get("inputs") or {})
             if not any(_under(i, p) for i in ignored)]
    patterns = [parse_path(p) for p in _replace_patterns(new)]
    recreating = [parse_path(p) for p in NODES_RECREATED.get(new["type"], ())]
    # Only custom resources are replaced; a component has no state of its own to delete and re-create.
    reasons = [p for p in paths if any(covers(pattern, p) for pattern in patterns)] if new.get("custom", True) else []
    recreated = [p for p in paths if p not in reasons and any(covers(pattern, p) for pattern in recreating)]
    old_options = old.get("options") or {}
    changed_options = [k for k in DIFFED_OPTIONS if _norm_option(old_options.get(k)) != _norm_option(options.get(k))]
    return {
        "properties": [format_path(p) for p in paths],
        "reasons": [format_path(p) for p in reasons],
        "recreated": [format_path(p) for p in recreated],
        "options": changed_options,
        "replace": bool(reasons),
        "with": [],
        "provider": None,
        "by": [],
    }


def _replace_patterns(resource: Mapping[str, Any]) -> list[str]:
    """The provider's force-new patterns and the resource's own replaceOnChanges."""
    return [*replace_patterns(resource["type"], resource.get("inputs") or {}),
            *(value_at(resource, "options.replaceOnChanges") or ())]


def _cascade(changes: dict[str, dict[str, Any]], news: Mapping[str, Mapping[str, Any]],
             old_of: Mapping[str, Mapping[str, Any]], old_to_new: Mapping[str, str]) -> None:
    """replaceWith, provider replacement and the delete-before-replace re-diff, to a fixed point.

    The engine (calculateDependentReplacements, step_generator.go) re-diffs every dependent of a resource replaced
    delete-first with the inputs that read it unknown: a dependent is replaced when such an input is force-new for
    it (or under its replaceOnChanges). The property dependencies are the old state's (the engine walks the old
    dependency graph). The causes are recorded on every replaced resource, also on one its own inputs already
    replace.
    """
    while True:
        replaced = {urn for urn, c in changes.items() if c["replace"]}
        delete_first = {urn for urn in replaced if changes[urn]["delete_first"]}
        grew = False
        for urn, change in changes.items():
            if not news[urn].get("custom", True):
                continue
            options = news[urn].get("options") or {}
            with_ = sorted(u for u in options.get("replaceWith") or () if u in replaced)
            provider = options.get("provider") if options.get("provider") in replaced else None
            by = _delete_first_causes(news[urn], old_of[urn], old_to_new, delete_first)
            if (with_, provider, by) != (change["with"], change["provider"], change["by"]):
                change["with"], change["provider"], change["by"] = with_, provider, by
                grew = True
            if (with_ or provider or by) and not change["replace"]:
                change["replace"], grew = True, True
        if not grew:
            return


def _delete_first_causes(new: Mapping[str, Any], old: Mapping[str, Any], old_to_new: Mapping[str, str],
                         delete_first: set[str]) -> list[str]:
    """The delete-first replaced resources whose unknown outputs replace `new` (its force-new inputs read them)."""
    deps = old.get("propertyDependencies") or new.get("propertyDependencies") or {}
    patterns = _replace_patterns(new)
    causes: set[str] = set()
    for key, urns in deps.items():
        hit = {old_to_new.get(u, u) for u in urns} & delete_first
        if hit and forces_replace(patterns, key):
            causes |= hit
    causes.discard(new["urn"])
    return sorted(causes)


def _cascade_lists(changes: Mapping[str, Mapping[str, Any]]) -> dict[str, list[str]]:
    """URN -> every resource replaced because it is (following cascades of cascades)."""
    direct: dict[str, set[str]] = {}
    for urn, c in changes.items():
        for cause in [*c["with"], *([c["provider"]] if c["provider"] else []), *c["by"]]:
            direct.setdefault(cause, set()).add(urn)
    out: dict[str, list[str]] = {}
    for root in direct:
        seen: set[str] = set()
        todo = list(direct[root])
        while todo:
            u = todo.pop()
            if u in seen or u == root:
                continue
            seen.add(u)
            todo.extend(direct.get(u, ()))
        out[root] = sorted(seen)
    return out


def _restack_refs(resource: Mapping[str, Any], stack: Any) -> dict[str, Any]:
    """An old resource with the URNs it references (options, dependencies) under the new stack's name."""
    def walk(value: Any) -> Any:
        if isinstance(value, str) and value.startswith("urn:pulumi:"):
            return _restack(value, stack)
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: walk(v) for k, v in value.items()}
        return value

    out = dict(resource)
    for key in ("options", "dependsOn", "propertyDependencies", "parent"):
        if key in out:
            out[key] = walk(out[key])
    return out


def _identity(resource: Mapping[str, Any]) -> str:
    """What a resource is, apart from its name and parent chain: type, inputs and options (not graph edges)."""
    options = {k: _norm_option(v) for k, v in (resource.get("options") or {}).items() if k in DIFFED_OPTIONS}
    return json.dumps([resource["type"], resource.get("inputs") or {}, options], sort_keys=True)


def _restack(urn: str, stack: Any) -> str:
    parts = urn.split("::")
    if len(parts) >= 4 and parts[0].startswith("urn:pulumi:") and isinstance(stack, str):
        parts[0] = f"urn:pulumi:{stack}"
    return "::".join(parts)


def _under(pattern: tuple[Part, ...], path: tuple[Part, ...]) -> bool:
    """`path` lies at or below `pattern` (ignoreChanges semantics)."""
    return len(pattern) <= len(path) and covers(pattern, path)


def _norm_option(value: Any) -> Any:
    if value in (None, False, [], {}, ""):
        return None
    return value


def _alias_urns(urn: str, aliases: Iterable[str]) -> list[str]:
    """Old URNs an alias can name: a full URN, or `name=…,type=…` relative to the new URN."""
    out = []
    prefix, _, _ = urn.rpartition("::")
    head, _, types = prefix.rpartition("::")
    name = urn.rpartition("::")[2]
    for alias in aliases:
        if alias.startswith("urn:pulumi:"):
            out.append(alias)
            continue
        spec = dict(part.split("=", 1) for part in alias.split(",") if "=" in part)
        if "parentUrn" in spec or "stack" in spec or "project" in spec:
            continue  # re-parented / cross-stack: not reconstructible from the new URN alone
        chain = types.split("$")
        if "type" in spec:
            chain[-1] = spec["type"]
        out.append(f"{head}::{'$'.join(chain)}::{spec.get('name', name)}")
    return out


# --- text -------------------------------------------------------------------------------------


def render_text(diff: PlanDiff) -> str:
    """A terse terminal report (the markdown renderer is in markdown.py)."""
    lines = [f"diff {diff.old_stack or 'old'} -> {diff.new_stack or 'new'}: {summary(diff)}"]
    for r in diff.added:
        lines.append(f"  + {r['type']}  {r['name']}")
    for r in diff.removed:
        lines.append(f"  - {r['type']}  {r['name']}")
    for c in diff.changed:
        mark = "+-" if c.replace else "~ "
        extra = f"  (renamed from {c.renamed_from})" if c.renamed_from else ""
        lines.append(f"  {mark} {c.type}  {c.name}{extra}  [{verdict_text(c)}]")
        for path in c.properties:
            tag = "  [forces replacement]" if path in c.replace_reasons else (
                "  [re-creates every node]" if path in c.nodes_recreated else "")
            lines.append(f"        {path}{tag}")
        for option in c.options:
            lines.append(f"        options.{option}")
        for urn in c.replaced_with:
            lines.append(f"        replaced with {urn.rpartition('::')[2]} (options.replaceWith)")
        if c.provider_replaced:
            lines.append(f"        its provider {c.provider_replaced.rpartition('::')[2]} is replaced")
        for urn in c.replaced_by:
            lines.append(f"        replaced because {urn.rpartition('::')[2]} is replaced delete-first")
        if c.cascade:
            lines.append(f"        cascades to: {', '.join(u.rpartition('::')[2] for u in c.cascade)}")
    loud = refusal_lines(diff) + node_pool_warnings(diff) + trap_warnings(diff) + rename_warnings(diff)
    if loud:
        lines.append("")
        lines += [f"!! {w}" for w in loud]
    return "\n".join(lines) + "\n"


def summary(diff: PlanDiff) -> str:
    if diff.empty:
        return "no changes"
    replaced = len(diff.replaced)
    parts = [f"{len(diff.added)} to add", f"{len(diff.changed) - replaced} to change",
             f"{replaced} to replace", f"{len(diff.removed)} to delete"]
    refused = len({urn for urn, _, _ in diff.refused})
    if refused:
        parts.append(f"{refused} REFUSED")
    return ", ".join(parts)


def verdict_text(c: Change) -> str:
    """`update in place` / `replace, delete-first` / `REFUSED (rule, ...)`."""
    if c.refusals:
        return "REFUSED: " + ", ".join(sorted({r.rule for r in c.refusals}))
    if c.replace:
        return f"replace, {c.replace_mode}"
    return "update in place"


def refusal_lines(diff: PlanDiff) -> list[str]:
    """One line per step the real `pulumi up` refuses: what, by whom, the rule's source and the way out."""
    names = {urn: urn.rpartition("::")[2] for urn, _, _ in diff.refused}
    out = []
    for urn, action, refusal in diff.refused:
        rule = refusal.world_rule
        paths = f" ({', '.join(refusal.paths)})" if refusal.paths else ""
        out.append(f"REFUSED {action} of {names[urn]}{paths} by {rule.actor} [{rule.id}]: {rule.rule}. "
                   f"Way out: {rule.way_out}. Source: {rule.source}")
    return out


def node_pool_warnings(diff: PlanDiff) -> list[str]:
    """One loud line per node pool that loses its nodes (replacement, removal, in-place node roll)."""
    out = []
    for c in diff.changed:
        if c.type != NODE_POOL:
            continue
        if c.replace:
            causes = c.replaced_with + ((c.provider_replaced,) if c.provider_replaced else ())
            why = ", ".join(c.replace_reasons) or ", ".join(u.rpartition("::")[2] for u in causes)
            out.append(f"node pool {c.name} will be REPLACED (deleted and re-created) because of {why}: "
                       "every node goes away; a job running on this TPU slice is killed")
        elif c.nodes_recreated:
            out.append(f"node pool {c.name}: {', '.join(c.nodes_recreated)} changes in place but GKE re-creates "
                       "every node: a job running on this TPU slice is killed")
    for r in diff.removed_node_pools:
        out.append(f"node pool {r['name']} will be DELETED")
    return out


def trap_warnings(diff: PlanDiff) -> list[str]:
    """Replacements that fail or need not happen on the real `pulumi up`: a fixed name replaced create-before-delete
    (the successor gets 409 already exists), a TPU pool replaced over a field GKE fills in itself."""
    out = []
    for c in diff.changed:
        if c.name_clash:
            out.append(f"{c.name} ({c.type.rpartition(':')[2]} named '{c.name_clash}') is replaced create-before-delete: "
                       "the new one fails with 409 already exists while the old one holds the name; set "
                       "deleteBeforeReplace on it, or give the successor another name")
        if c.server_filled:
            out.append(f"node pool {c.name} is replaced because of {', '.join(c.server_filled)}, which GKE fills in "
                       "itself on TPU hosts and this pool does not ignore: after this change every later update "
                       "would replace the slice again unless the pool lists it in ignoreChanges")
    return out


def rename_warnings(diff: PlanDiff) -> list[str]:
    """One loud line per resource renamed in code without an alias (deleted and created again)."""
    out = []
    for old_urn, new_urn in diff.renames_without_alias:
        old, new = old_urn.rpartition("::")[2], new_urn.rpartition("::")[2]
        out.append(f"{new} looks like {old} renamed without an alias: Pulumi will delete {old} and create it "
                   f"again; add aliases=[pulumi.Alias(name=\"{old}\")] or keep the old name")
    return out


def load_source_plan(source: str, project_dir: Path = Path(".")) -> dict[str, Any]:
    """OLD/NEW of `pathways-gke diff`: a plan.json, a stack config file (YAML), or a stack name."""
    path = Path(source)
    if path.suffix == ".json" and path.exists():
        return plan_dict(path)
    from .engine import plan_file, plan_stack  # noqa: PLC0415 (runs the program)

    if path.suffix in (".yaml", ".yml") and path.exists():
        # the one reader of `plan --config` (stack file, Pulumi.yaml config, the project's program)
        return plan_file(path, project_dir).to_json()
    if path.suffix in (".json", ".yaml", ".yml"):
        raise FileNotFoundError(f"no such file: {source}")
    if path.is_dir() or "/" in source:
        raise FileNotFoundError(f"{source}: not a plan.json, a stack config file (.yaml) or a stack name")
    return plan_stack(source, project_dir).to_json()

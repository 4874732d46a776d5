"""Diff two offline plans: added / removed / changed resources, changed property paths, replacements.

Resources are matched by URN (an alias on the new resource that names an old URN makes it the same
resource, renamed). Property paths are Pulumi property paths (property_paths.py): `nodeConfig.machineType`,
`spec.replicatedJobs[1].replicas`, `metadata.labels["pathways-gke/tpu-group"]`. Inputs under the
new resource's `ignoreChanges` are not changes, as in `pulumi preview`.

A change REPLACES a resource when it touches a replace-forcing input of its type (replacements.py),
or a path under its own `options.replaceOnChanges`; replacement then cascades to every resource that
lists a replaced one in `options.replaceWith` and to everything managed by a replaced provider.

Works on plan.json dicts (the CLI contract) or engine `Plan` objects. Pure: no Pulumi import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from ..property_paths import Part, changed_paths, covers, format_path, parse_path, value_at
from ..naming import SERVICES_CONFIGMAP
from ..releases import RELEASES, release_change
from ..tokens import CONFIG_MAP, NODE_POOL
from .replacements import NODES_RECREATED, SERVER_FILLED_NODE_POOL_FIELDS, fixed_name, replace_patterns

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
        return out


@dataclass(frozen=True)
class PlanDiff:
    old_stack: str
    new_stack: str
    added: tuple[Mapping[str, Any], ...]
    removed: tuple[Mapping[str, Any], ...]
    changed: tuple[Change, ...]
    old_resources: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, repr=False)
    new_resources: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, repr=False)

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)

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
    # Two different stacks (dev vs prod): match URNs as if the old one had the new stack's name.
    old_stack, new_stack = old_plan.get("stack"), new_plan.get("stack")
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
        changes[urn] = change

    _cascade(changes, news)

    changed = []
    for urn in sorted(changes):
        c = changes[urn]
        if not (c["properties"] or c["options"] or c["replace"] or c["renamed_from"]):
            continue
        resource = news[urn]
        old_resource = olds[pairs[urn][0]]
        dbr = bool(value_at(resource, "options.deleteBeforeReplace"))
        name = fixed_name(resource)
        clash = name if (c["replace"] and not dbr and name is not None and name == fixed_name(old_resource)) else None
        filled = tuple(r for r in c["reasons"] if resource["type"] == NODE_POOL
                       and any(covers(parse_path(f), parse_path(r)) for f in SERVER_FILLED_NODE_POOL_FIELDS))
        changed.append(Change(
            urn=urn, type=resource["type"], name=resource["name"], properties=tuple(c["properties"]),
            replace=c["replace"], replace_reasons=tuple(c["reasons"]), replaced_with=tuple(c["with"]),
            provider_replaced=c["provider"],
            options=tuple(c["options"]), nodes_recreated=tuple(c["recreated"]), renamed_from=c["renamed_from"],
            delete_before_replace=dbr, name_clash=clash, server_filled=filled,
        ))
    return PlanDiff(old_stack=str(old_plan.get("stack", "")), new_stack=str(new_plan.get("stack", "")),
                    added=tuple(added), removed=tuple(removed), changed=tuple(changed),
                    old_resources=olds, new_resources=news)


def _compare(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    options = new.get("options") or {}
    ignored = [parse_path(p) for p in options.get("ignoreChanges") or ()]
    paths = [p for p in changed_paths(old.get("inputs") or {}, new.get("inputs") or {})
             if not any(_under(i, p) for i in ignored)]
    patterns = [parse_path(p) for p in replace_patterns(new["type"], new.get("inputs") or {})]
    patterns += [parse_path(p) for p in options.get("replaceOnChanges") or ()]
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
    }


def _cascade(changes: dict[str, dict[str, Any]], news: Mapping[str, Mapping[str, Any]]) -> None:
    """replaceWith and provider replacement, to a fixed point (a chain of cascades is followed).

    The causes are recorded on every replaced resource, also on one its own inputs already replace.
    """
    while True:
        replaced = {urn for urn, c in changes.items() if c["replace"]}
        grew = False
        for urn, change in changes.items():
            if not news[urn].get("custom", True):
                continue
            options = news[urn].get("options") or {}
            with_ = sorted(u for u in options.get("replaceWith") or () if u in replaced)
            provider = options.get("provider") if options.get("provider") in replaced else None
            if (with_, provider) != (change["with"], change["provider"]):
                change["with"], change["provider"] = with_, provider
                grew = True
            if (with_ or provider) and not change["replace"]:
                change["replace"], grew = True, True
        if not grew:
            return


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
        lines.append(f"  {mark} {c.type}  {c.name}{extra}")
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
    loud = node_pool_warnings(diff) + trap_warnings(diff) + rename_warnings(diff) + release_warnings(diff)
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
    return ", ".join(parts)


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
                       "itself on TPU hosts: add it to the pool's ignoreChanges (every later update would replace "
                       "the slice again)")
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
    from .engine import plan_config, plan_stack, program_for, project_name  # noqa: PLC0415 (runs the program)

    if path.suffix in (".yaml", ".yml") and path.exists():
        from ..config.stack import read_stack_file  # noqa: PLC0415

        name = path.name
        stack = name[len("Pulumi."):-len(".yaml")] if name.startswith("Pulumi.") and name.endswith(".yaml") \
            else path.stem
        return plan_config(read_stack_file(path), stack=stack, project=project_name(project_dir),
                           program=program_for(project_dir)).to_json()
    if path.suffix in (".json", ".yaml", ".yml"):
        raise FileNotFoundError(f"no such file: {source}")
    if path.is_dir() or "/" in source:
        raise FileNotFoundError(f"{source}: not a plan.json, a stack config file (.yaml) or a stack name")
    return plan_stack(source, project_dir).to_json()


def release_warnings(diff: PlanDiff) -> list[str]:
    """A controller pin moved backwards past a minor release (releases.release_change refuses it): read from the
    readiness ConfigMap (`pathways-gke-services`), which records each installed `<addon>.version`."""
    out = []
    for c in diff.changed:
        old, new = diff.old_resources.get(c.urn), diff.new_resources.get(c.urn)
        if c.type != CONFIG_MAP or old is None or new is None:
            continue
        if value_at(new.get("inputs") or {}, "metadata.name") != SERVICES_CONFIGMAP:
            continue
        before = value_at(old.get("inputs") or {}, "data") or {}
        after = value_at(new.get("inputs") or {}, "data") or {}
        for addon in RELEASES:
            key = f"{addon}.version"
            if before.get(key) and after.get(key) and before[key] != after[key]:
                refused = release_change(addon, before[key], after[key]).refused
                if refused:
                    out.append(f"{c.name}: {addon}.version {before[key]} -> {after[key]} {refused}")
    return out

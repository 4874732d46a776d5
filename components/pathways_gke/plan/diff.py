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
- RELINQUISH when a managed resource becomes a read with the same ID (adopted: `cluster.create: false`);
- otherwise an in-place UPDATE.

The algorithms are the engine's and the providers' own (each function names the one it follows): path matching as
`PropertyPath.Contains`, the bridge's ForceNew attributes vs blocks (bridge_schema.py), provider replacement only
through pulumi-kubernetes' `DiffConfig`, the delete-before-replace walk as `calculateDependentReplacements`,
reads as `GenerateReadSteps`.

Works on plan.json dicts (the CLI contract) or engine `Plan` objects. Pure: no Pulumi import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from ..apply_rules import (Refusal, create_refusals, provider_deletes_first, provider_replace_reasons,
                           release_notes, release_refusals, replace_refusals, update_refusals)
from ..bridge_schema import ignored
from ..gke_rules import SERVER_FILLED_TPU_FIELDS, SERVER_FILLED_WORKLOAD_POLICY_FIELDS
from ..property_paths import Part, changed_paths, contains, format_path, parse_path, reset_ignored, value_at
from ..tokens import CONFIG_FILE, GKE_CLUSTER, KUBERNETES_PROVIDER, NODE_POOL
from .replacements import NODES_RECREATED, fixed_name

UPDATE = "update"
REPLACE = "replace"
REFUSED = "refused"
RELINQUISH = "relinquish"  # a managed resource becomes a read with the same ID: nothing is deleted
READ_REPLACE = "read-replace"  # a read with another ID replaces a managed resource: the old one is deleted
ADOPT_CREATE = "adopt-create"  # a read resource is now created
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
    read: Optional[str] = None                 # relinquish | read-replace | adopt-create (a read step is involved)
    secret_changed: tuple[str, ...] = ()       # changed paths holding a secret (seen from its salted digest only)
    release_notes: tuple[str, ...] = ()        # what an allowed controller move does and asks for

    @property
    def verdict(self) -> str:
        """update (in place) | replace | relinquish (becomes a read: nothing deleted) | refused (GKE, a webhook or
        the engine refuses it on `pulumi up`, or it leaves objects behind)."""
        if self.refusals:
            return REFUSED
        if self.read == RELINQUISH:
            return RELINQUISH
        return REPLACE if self.replace else UPDATE

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
        if self.read:
            out["read"] = self.read
        if self.secret_changed:
            out["secretChanged"] = list(self.secret_changed)
        if self.release_notes:
            out["releaseNotes"] = list(self.release_notes)
        return out


def refusal_json(refusal: Refusal) -> dict[str, Any]:
    """`kind`: "world" (the real `pulumi up` fails) or "policy" (pathways-gke refuses what the world would apply)."""
    rule = refusal.world_rule
    return {"rule": rule.id, "by": rule.actor, "kind": "policy" if rule.is_policy else "world",
            "paths": list(refusal.paths), "what": rule.rule, "source": rule.source, "wayOut": rule.way_out}


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
        out += [(c.urn, "keep" if r.rule == "k8s-objects-left-behind" else "replace" if c.replace else "update", r)
                for c in self.changed for r in c.refusals]
        out += [(urn, "delete", r) for urn, rs in self.delete_refusals.items() for r in rs]
        return out

    @property
    def world_refused(self) -> list[tuple[str, str, Refusal]]:
        """The refused steps the real `pulumi up` fails on (GKE, a webhook, the engine)."""
        return [r for r in self.refused if not r[2].world_rule.is_policy]

    @property
    def policy_refused(self) -> list[tuple[str, str, Refusal]]:
        """The steps only pathways-gke's own policy refuses (the real `pulumi up` would apply them)."""
        return [r for r in self.refused if r[2].world_rule.is_policy]

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
        # the engine: goal.DeleteBeforeReplace overrides the provider's answer when set (a plan's `false` is read
        # as unset: the SDKs send false when the option is left out)
        change["delete_first"] = bool(value_at(news[urn], "options.deleteBeforeReplace")) or provider_deletes_first(
            news[urn]["type"], olds[old_urn].get("inputs") or {}, news[urn].get("inputs") or {})
        changes[urn] = change

    old_to_new = {old_urn: urn for urn, (old_urn, _) in pairs.items()}
    old_of = {urn: olds[old_urn] for urn, (old_urn, _) in pairs.items()}
    _cascade(changes, news, old_of, old_to_new)
    for c in changes.values():
        # the walk deletes every condemned dependent before the resource it reads (NewDeleteReplacementStep)
        c["delete_first"] = c["delete_first"] or bool(c["by"])
    cascade = _cascade_lists(changes)
    left_behind = _left_behind(changes, news, old_of)

    changed = []
    for urn in sorted(changes):
        c = changes[urn]
        resource = news[urn]
        old_resource = olds[pairs[urn][0]]
        dbr = c["delete_first"]
        refusals = _refusals(old_resource, resource, c, dbr, changes, news)
        if urn in left_behind:
            refusals.append(Refusal("k8s-objects-left-behind", (left_behind[urn],)))
        if not (c["properties"] or c["options"] or c["replace"] or c["renamed_from"] or c["read"] or refusals):
            continue
        name = fixed_name(resource)
        clash = name if (c["replace"] and not dbr and name is not None and name == fixed_name(old_resource)) else None
        changed.append(Change(
            urn=urn, type=resource["type"], name=resource["name"], properties=tuple(c["properties"]),
            replace=c["replace"], replace_reasons=tuple(c["reasons"]), replaced_with=tuple(c["with"]),
            provider_replaced=c["provider"],
            options=tuple(c["options"]), nodes_recreated=tuple(c["recreated"]), renamed_from=c["renamed_from"],
            delete_before_replace=dbr, name_clash=clash, server_filled=_server_filled(resource, c["reasons"]),
            replaced_by=tuple(c["by"]), cascade=tuple(cascade.get(urn, ())),
            refusals=tuple(refusals), read=c["read"],
            secret_changed=_secret_paths(old_resource, resource, c["properties"]),
            release_notes=tuple(release_notes(resource["type"], old_resource.get("inputs") or {},
                                              resource.get("inputs") or {})),
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
    return tuple(r for r in reasons if any(contains(parse_path(f), parse_path(r)) for f in fields))


def _refusals(old: Mapping[str, Any], new: Mapping[str, Any], c: Mapping[str, Any], delete_first: bool,
              changes: Mapping[str, Mapping[str, Any]], news: Mapping[str, Mapping[str, Any]]) -> list[Refusal]:
    """What refuses this change on the real `pulumi up` (the apply-outcome model, apply_rules.py)."""
    if not new.get("custom", True):
        return []
    if c["read"] == ADOPT_CREATE:
        # step_generator.go: a resource that was read (External) and is now registered is a create; the object exists
        return [Refusal("adopted-create-409", ())]
    if c["read"] == RELINQUISH:
        return []
    if c["read"] == READ_REPLACE:
        # the read-replacement marks the old managed resource pending deletion: protect refuses that delete
        return [Refusal("protect-delete", ("id",))] if value_at(old, "options.protect") else []
    out = release_refusals(new["type"], old.get("inputs") or {}, new.get("inputs") or {})
    if c["replace"]:
        if c["by"] and value_at(old, "options.protect"):
            # continueStepsFromDiff: a dependent the delete-before-replace walk condemns is refused on the OLD
            # state's protect (dependentResource.Protect), so unprotecting it in the same update does not help
            out.append(Refusal("protect-cascade", tuple(u.rpartition("::")[2] for u in c["by"])))
        elif value_at(old, "options.protect") and value_at(new, "options.protect"):
            # step_generator.go: `new.Protect && old.Protect` (unprotecting and replacing in one update is allowed)
            out.append(Refusal("protect-replace", tuple(c["reasons"])))
        name = fixed_name(new)
        retained = value_at(old, "options.retainOnDelete") or value_at(new, "options.retainOnDelete")
        if retained and delete_first and name is not None and name == fixed_name(old):
            out.append(Refusal("retain-on-delete-409", tuple(c["reasons"])))
        specific = replace_refusals(new["type"], old.get("inputs") or {}, new.get("inputs") or {}, c["reasons"])
        if any(r.rule == "gcs-bucket-name-409" for r in specific):
            # the bucket rule is the same 409 with the bucket's own way out (a new name, or relocate): said once
            out = [r for r in out if r.rule != "retain-on-delete-409"]
        return out + specific
    return out + update_refusals(new["type"], old.get("inputs") or {}, new.get("inputs") or {}, c["properties"])


def is_secret_marker(value: Any) -> bool:
    """`<secret>` or `<secret:DIGEST>` (plan/engine.py secret_marker)."""
    return isinstance(value, str) and value.startswith("<secret") and value.endswith(">")


def _secret_paths(old: Mapping[str, Any], new: Mapping[str, Any], paths: Iterable[str]) -> tuple[str, ...]:
    """The changed paths whose value is a secret on either side: shown as "changed (secret)", never the value."""
    return tuple(p for p in paths if is_secret_marker(value_at(new.get("inputs") or {}, p))
                 or is_secret_marker(value_at(old.get("inputs") or {}, p)))


def _compare(old: Mapping[str, Any], new: Mapping[str, Any]) -> dict[str, Any]:
    """One resource's own diff: the changed input paths (after ignoreChanges), and what replaces it.

    The engine resets every ignoreChanges path to the old value (`processIgnoreChanges`) and hands the paths to the
    provider; the provider's Diff says what replaces (`provider_replace_reasons`: the bridge's schema walk, the
    Kubernetes forceNew table); the engine then marks replace every detailed-diff path a replaceOnChanges pattern
    `contains` (`applyReplaceOnChanges`)."""
    options = new.get("options") or {}
    old_options = old.get("options") or {}
    changed_options = [k for k in DIFFED_OPTIONS if _norm_option(old_options.get(k)) != _norm_option(options.get(k))]
    out: dict[str, Any] = {"properties": [], "reasons": [], "recreated": [], "options": changed_options,
                           "replace": False, "with": [], "provider": None, "by": [], "read": None,
                           "diff_config": False}
    old_inputs, new_inputs = old.get("inputs") or {}, new.get("inputs") or {}
    if new.get("read") or old.get("read"):
        return _compare_read(old, new, out)
    ignore = [parse_path(p) for p in options.get("ignoreChanges") or ()]
    effective = reset_ignored(old_inputs, new_inputs, ignore)
    paths = list(changed_paths(old_inputs, effective))
    out["properties"] = [format_path(p) for p in paths]
    if not new.get("custom", True):
        return out  # a component has no state of its own to delete and re-create
    reasons = ignored(provider_replace_reasons(new["type"], old_inputs, effective), ignore) if paths else []
    roc = [parse_path(p) for p in options.get("replaceOnChanges") or ()]
    reasons += [p for p in paths if p not in reasons and any(contains(q, p) for q in roc)]
    recreating = [parse_path(p) for p in NODES_RECREATED.get(new["type"], ())]
    recreated = [p for p in paths if not any(_at_or_below(r, p) for r in reasons)
                 and any(contains(q, p) for q in recreating)]
    out.update(reasons=[format_path(p) for p in reasons], recreated=[format_path(p) for p in recreated],
               replace=bool(reasons), diff_config=new["type"] == KUBERNETES_PROVIDER and bool(reasons))
    return out


def _compare_read(old: Mapping[str, Any], new: Mapping[str, Any], out: dict[str, Any]) -> dict[str, Any]:
    """A read on either side (step_generator.go `GenerateReadSteps`): managed -> read with the same ID relinquishes
    it (nothing deleted), with another ID is a read-replacement (the old one deleted); read -> managed is a create
    (`wasExternal`); read -> read is a read, no change of ours."""
    if new.get("read") and old.get("read"):
        return out
    if new.get("read"):
        if _same_id(old, value_at(new, "options.id")):
            out["read"] = RELINQUISH
        else:
            out.update(read=READ_REPLACE, replace=True, reasons=["id"])
        return out
    out["read"] = ADOPT_CREATE
    out["properties"] = [format_path(p) for p in changed_paths({}, new.get("inputs") or {})]
    return out


def _same_id(old: Mapping[str, Any], read_id: Any) -> bool:
    """Is the managed resource `old` the object the read names? Its provider ID from its inputs (TFB v7.42.0
    containerClusterFullName: projects/P/locations/L/clusters/N; node pools: .../clusters/C/nodePools/N); without
    a project input (the provider's default project) the rest of the ID must match."""
    if not isinstance(read_id, str):
        return False
    inputs = old.get("inputs") or {}
    project, location, name = inputs.get("project"), inputs.get("location"), inputs.get("name")
    if old["type"] == GKE_CLUSTER:
        tail = f"/locations/{location}/clusters/{name}"
    elif old["type"] == NODE_POOL:
        tail = f"/locations/{location}/clusters/{inputs.get('cluster')}/nodePools/{name}"
    else:
        return False
    return read_id == f"projects/{project}{tail}" if project else (read_id.startswith("projects/")
                                                                    and read_id.endswith(tail))


def _at_or_below(reason: tuple[Part, ...], path: tuple[Part, ...]) -> bool:
    return len(path) >= len(reason) and tuple(path[:len(reason)]) == tuple(reason)


def _cascade(changes: dict[str, dict[str, Any]], news: Mapping[str, Mapping[str, Any]],
             old_of: Mapping[str, Mapping[str, Any]], old_to_new: Mapping[str, str]) -> None:
    """replaceWith, provider replacement and the delete-before-replace walk, to a fixed point.

    - replaceWith (engine >= 3.207.0): a resource is replaced with the resources it lists;
    - a Kubernetes provider is re-diffed with `DiffConfig` (apply_rules.k8s_diff_config_replaces), the inputs that
      read a replaced resource passed as unknown (a replaced resource's outputs are unknown in preview); its objects
      are replaced only when DiffConfig says replace (step_generator.go `providerChanged`), NOT when the provider is
      replaced by replaceWith alone;
    - the delete-before-replace walk (`calculateDependentReplacements`): every dependent of a resource replaced
      delete-first is re-diffed from the OLD state (its old inputs, property dependencies, ignoreChanges and
      replaceOnChanges) with the inputs that read a condemned resource unknown, and replaced when its provider says
      so; a resource whose provider is condemned is condemned too.
    The causes are recorded on every replaced resource, also on one its own inputs already replace.
    """
    own = {urn: (c["replace"], list(c["reasons"]), c["diff_config"]) for urn, c in changes.items()}
    while True:
        replaced = {urn for urn, c in changes.items() if c["replace"]}
        delete_first = {urn for urn in replaced if changes[urn]["delete_first"]}
        condemned = _condemned(changes, news, old_of, old_to_new, delete_first)
        replacing_providers = {urn for urn, c in changes.items() if c["diff_config"]} | {
            u for u in condemned if news[u]["type"] == KUBERNETES_PROVIDER}
        grew = False
        for urn, change in changes.items():
            if not news[urn].get("custom", True) or change["read"]:
                continue
            options = news[urn].get("options") or {}
            if news[urn]["type"] == KUBERNETES_PROVIDER:
                _diff_config(change, news[urn], old_of[urn], replaced, own[urn])
            with_ = sorted(u for u in options.get("replaceWith") or () if u in replaced)
            provider = options.get("provider") if options.get("provider") in replacing_providers else None
            if provider is not None and _moved_to_aliased_provider(old_of[urn], provider, changes):
                provider = None
            by = sorted(condemned.get(urn, ()))
            if (with_, provider, by) != (change["with"], change["provider"], change["by"]):
                change["with"], change["provider"], change["by"] = with_, provider, by
                grew = True
            replace = own[urn][0] or change["diff_config"] or bool(with_ or provider or by)
            if replace != change["replace"]:
                change["replace"], grew = replace, True
        if not grew:
            return


def _diff_config(change: dict[str, Any], new: Mapping[str, Any], old: Mapping[str, Any], replaced: set[str],
                 own: tuple[bool, list[str], bool]) -> None:
    """A Kubernetes provider's DiffConfig with the inputs that read a replaced resource unknown."""
    unknown = _reading(new.get("propertyDependencies") or {}, replaced)
    reasons = provider_replace_reasons(KUBERNETES_PROVIDER, old.get("inputs") or {}, new.get("inputs") or {}, unknown)
    change["diff_config"] = bool(reasons)
    change["reasons"] = sorted(set(own[1]) | {format_path(r) for r in reasons})


def _reading(deps: Mapping[str, Iterable[str]], replaced: set[str]) -> list[str]:
    """The inputs whose property dependencies include a replaced resource (passed to the provider as unknown)."""
    return sorted(key for key, urns in deps.items() if set(urns) & replaced)


def _condemned(changes: Mapping[str, Mapping[str, Any]], news: Mapping[str, Mapping[str, Any]],
               old_of: Mapping[str, Mapping[str, Any]], old_to_new: Mapping[str, str],
               roots: set[str]) -> dict[str, set[str]]:
    """URN -> the delete-first roots whose walk condemns it (step_generator.go `calculateDependentReplacements`).

    From each root, in dependency order, a dependent is condemned when its provider is in the replace set, or when
    its provider's Diff of its OLD inputs against the same inputs with every input that reads the replace set
    unknown asks for replacement (its old ignoreChanges applied, then its old replaceOnChanges). The walk reads the
    old state's property dependencies."""
    def old_deps(urn: str) -> dict[str, set[str]]:
        deps = old_of[urn].get("propertyDependencies") or news[urn].get("propertyDependencies") or {}
        return {k: {old_to_new.get(u, u) for u in v} for k, v in deps.items()}

    out: dict[str, set[str]] = {}
    for root in sorted(roots):
        replace_set = {root}
        grew = True
        while grew:
            grew = False
            for urn in sorted(changes):
                if urn in replace_set or not news[urn].get("custom", True) or changes[urn]["read"]:
                    continue
                old = old_of[urn]
                # the old state's provider reference, as the new URN it maps to (an aliased provider is the same)
                old_provider = value_at(old, "options.provider")
                provider = old_to_new.get(old_provider, old_provider) or value_at(news[urn], "options.provider")
                unknown = _reading(old_deps(urn), replace_set)
                if provider in replace_set or (unknown and _redif_replaces(old, news[urn]["type"], unknown)):
                    replace_set.add(urn)
                    out.setdefault(urn, set()).add(root)
                    grew = True
    return out


def _redif_replaces(old: Mapping[str, Any], resource_type: str, unknown: list[str]) -> bool:
    """`requiresReplacement` of calculateDependentReplacements: Diff(old inputs, old inputs with `unknown` unknown,
    old ignoreChanges), then applyReplaceOnChanges with the old replaceOnChanges."""
    inputs = old.get("inputs") or {}
    ignore = [parse_path(p) for p in value_at(old, "options.ignoreChanges") or ()]
    keys = [k for k in unknown if not any(contains(i, (k,)) for i in ignore)]
    if not keys:
        return False
    if ignored(provider_replace_reasons(resource_type, inputs, inputs, keys), ignore):
        return True
    roc = [parse_path(p) for p in value_at(old, "options.replaceOnChanges") or ()]
    return any(contains(q, (k,)) for q in roc for k in keys)


def _left_behind(changes: Mapping[str, Mapping[str, Any]], news: Mapping[str, Mapping[str, Any]],
                 old_of: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """URN -> the replaced resource its Kubernetes provider connects to, for every object that stays `same` while
    the cluster under it is replaced: the provider reads a replaced resource, but the object is not replaced —
    its provider's DiffConfig does not replace it (an unchanged clusterIdentifier clears every replace), or the
    object's provider reference moves to it under its alias (providerChanged keeps the object)."""
    replaced = {urn for urn, c in changes.items() if c["replace"]}
    stranded: dict[str, str] = {}
    for urn in changes:
        if news[urn]["type"] != KUBERNETES_PROVIDER:
            continue
        gone = sorted({u for urns in (news[urn].get("propertyDependencies") or {}).values() for u in urns} & replaced)
        if gone:
            stranded[urn] = gone[0]
    out = {}
    for urn, c in changes.items():
        resource = news[urn]
        provider = value_at(resource, "options.provider")
        if provider not in stranded:
            continue
        if resource.get("custom", True):
            stays = not c["replace"]
        else:  # a ConfigFile component: its objects (not in the plan) follow the provider
            stays = resource["type"] == CONFIG_FILE and (
                not changes[provider]["diff_config"] or _moved_to_aliased_provider(old_of[urn], provider, changes))
        if stays:
            out[urn] = stranded[provider].rpartition("::")[2]
    return out


def _moved_to_aliased_provider(old: Mapping[str, Any], provider: str, changes: Mapping[str, Mapping[str, Any]]) -> bool:
    """The resource's old provider is the new `provider` under its alias: the engine keeps the resource whatever
    DiffConfig says (step_generator.go providerChanged: `sg.aliased[oldRef.URN()] == newRef.URN()`)."""
    old_provider = value_at(old, "options.provider")
    return (isinstance(old_provider, str) and old_provider != provider
            and changes[provider].get("renamed_from") == old_provider)


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
            tag = "  [forces replacement]" if forces(c, path) else (
                "  [re-creates every node]" if path in c.nodes_recreated else "")
            secret = "  changed (secret)" if path in c.secret_changed else ""
            lines.append(f"        {path}{secret}{tag}")
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
        for note in c.release_notes:
            lines.append(f"        note: {note}")
    loud = refusal_lines(diff) + refusal_lines(diff, policy=True) + node_pool_warnings(diff) + trap_warnings(diff) + rename_warnings(diff)
    if loud:
        lines.append("")
        lines += [f"!! {w}" for w in loud]
    return "\n".join(lines) + "\n"


def forces(change: Change, path: str) -> bool:
    """Is `path` a replace reason or below one (a ForceNew block's count change covers the elements that went)?"""
    parts = parse_path(path)
    return any(_at_or_below(parse_path(r), parts) for r in change.replace_reasons if r != "id")


def summary(diff: PlanDiff) -> str:
    if diff.empty:
        return "no changes"
    replaced = len(diff.replaced)
    # an object left behind in a replaced cluster is no step of `pulumi up` (it stays `same`): counted as refused only
    changing = [c for c in diff.changed if not c.replace and (c.properties or c.options or c.renamed_from or c.read)]
    parts = [f"{len(diff.added)} to add", f"{len(changing)} to change",
             f"{replaced} to replace", f"{len(diff.removed)} to delete"]
    refused = len({urn for urn, _, _ in diff.world_refused})
    if refused:
        parts.append(f"{refused} REFUSED")
    by_policy = len({urn for urn, _, _ in diff.policy_refused})
    if by_policy:
        parts.append(f"{by_policy} refused by pathways-gke POLICY")
    return ", ".join(parts)


def verdict_text(c: Change) -> str:
    """`update in place` / `replace, delete-first` / `REFUSED (rule, ...)`."""
    if c.refusals:
        world = sorted({r.rule for r in c.refusals if not r.world_rule.is_policy})
        policy = sorted({r.rule for r in c.refusals if r.world_rule.is_policy})
        return "; ".join([*(["REFUSED: " + ", ".join(world)] if world else []),
                          *(["refused by POLICY: " + ", ".join(policy)] if policy else [])])
    if c.read == RELINQUISH:
        return "relinquish: becomes a read of the same object, nothing is deleted"
    if c.read == READ_REPLACE:
        return "read-replacement: the object read has another ID, the old one is deleted"
    if c.replace:
        return f"replace, {c.replace_mode}"
    return "update in place"


def refusal_lines(diff: PlanDiff, policy: bool = False) -> list[str]:
    """One line per step the real `pulumi up` refuses (policy=False) or only pathways-gke's policy refuses
    (policy=True): what, by whom, the rule's source and the way out."""
    out = []
    for urn, action, refusal in (diff.policy_refused if policy else diff.world_refused):
        rule = refusal.world_rule
        name = urn.rpartition("::")[2]
        paths = f" ({', '.join(refusal.paths)})" if refusal.paths else ""
        head = (f"REFUSED BY POLICY {action} of {name}{paths} [{rule.id}] (the real `pulumi up` would apply it)"
                if policy else f"REFUSED {action} of {name}{paths} by {rule.actor} [{rule.id}]")
        out.append(f"{head}: {rule.rule}. Way out: {rule.way_out}. Source: {rule.source}")
    return out


def node_pool_warnings(diff: PlanDiff) -> list[str]:
    """One loud line per node pool that loses its nodes (replacement, removal, in-place node roll)."""
    out = []
    for c in diff.changed:
        if c.type != NODE_POOL:
            continue
        if c.replace:
            causes = c.replaced_with + ((c.provider_replaced,) if c.provider_replaced else ()) + c.replaced_by
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


def is_pipe(path: Path) -> bool:
    """A stack file handed over as a pipe (`<(sops -d Pulumi.prod.yaml)`: /dev/fd/N, a FIFO): read as a stack file."""
    try:
        return path.is_fifo() or (path.exists() and not path.is_dir() and str(path).startswith(("/dev/fd/",
                                                                                                 "/proc/self/fd/")))
    except OSError:
        return False


def load_source_plan(source: str, project_dir: Path = Path(".")) -> dict[str, Any]:
    """OLD/NEW of `pathways-gke diff`: a plan.json, a stack config file (YAML), or a stack name."""
    path = Path(source)
    if path.suffix == ".json" and path.exists():
        return plan_dict(path)
    from .engine import plan_file, plan_stack  # noqa: PLC0415 (runs the program)

    if (path.suffix in (".yaml", ".yml") and path.exists()) or is_pipe(path):
        # the one reader of `plan --config` (stack file, Pulumi.yaml config, the project's program)
        return plan_file(path, project_dir).to_json()
    if path.suffix in (".json", ".yaml", ".yml"):
        raise FileNotFoundError(f"no such file: {source}")
    if path.is_dir() or "/" in source:
        raise FileNotFoundError(f"{source}: not a plan.json, a stack config file (.yaml) or a stack name")
    return plan_stack(source, project_dir).to_json()

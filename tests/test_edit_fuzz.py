"""Property test: (stack, edit) pairs drawn from the fuzz generator; the diff's verdicts follow the apply-outcome
model (apply_rules.py) and no plan contains a pod that cannot be placed (fit.py)."""

from __future__ import annotations

import copy
import os
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from pathways_gke import apply_rules as A
from pathways_gke import policies, tokens
from pathways_gke.errors import ConfigError
from pathways_gke.fit import lws_version_of, place
from pathways_gke.plan import plan_config
from pathways_gke.plan.diff import diff_plans
from pathways_gke.plan.markdown import render_markdown
from pathways_gke.property_paths import contains, parse_path, reset_ignored
from tests.support.fuzz_configs import P, valid_configs

pytestmark = pytest.mark.slow  # each example plans a stack twice under the mock engine

EXAMPLES = int(os.environ.get("PATHWAYS_GKE_EDIT_FUZZ_EXAMPLES", "12"))  # a modest count for a quick local run


def _image(cfg: dict[str, Any]) -> None:
    workloads = cfg.get(P + "workloads") or []
    images = [w for w in workloads if w.get("image")]
    if not images:
        reject()
    images[0]["image"] = images[0]["image"].rsplit(":", 1)[0] + ":edited-2026-12-01"


def _cpu_max_nodes(cfg: dict[str, Any]) -> None:
    cpu = cfg.setdefault(P + "cpuPool", {})
    cpu["maxNodes"] = int(cpu.get("maxNodes", 3)) + 1


def _kueue(cfg: dict[str, Any]) -> None:
    kueue = cfg.setdefault(P + "kueue", {})
    kueue["enabled"] = not kueue.get("enabled", False)


def _slices(cfg: dict[str, Any]) -> None:
    pools = cfg.get(P + "tpuPools") or []
    if not pools:
        reject()
    pools[0]["slices"] = int(pools[0].get("slices", 1)) + 1


def _protect(cfg: dict[str, Any]) -> None:
    cluster = cfg[P + "cluster"]
    cluster["protect"] = not cluster.get("protect", False)


def _labels(cfg: dict[str, Any]) -> None:
    cfg[P + "cluster"]["labels"] = {**(cfg[P + "cluster"].get("labels") or {}), "edited": "yes"}


def _private_nodes(cfg: dict[str, Any]) -> None:
    cluster = cfg[P + "cluster"]
    if cluster.get("create") is False or cluster.get("privateNodes"):
        reject()
    cluster["privateNodes"] = True  # enablePrivateNodes is updatable: never a cluster replacement


EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "image": _image, "cpuPool.maxNodes": _cpu_max_nodes, "kueue.enabled": _kueue, "tpuPools[0].slices": _slices,
    "cluster.protect": _protect, "cluster.labels": _labels, "cluster.privateNodes": _private_nodes,
}


def _plan(config: dict[str, Any]) -> dict[str, Any]:
    try:
        return plan_config(config, stack="fuzz").to_json()
    except ConfigError:
        reject()
        raise  # unreachable


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])
@given(valid_configs(), st.sampled_from(sorted(EDITS)))
def test_the_diff_of_a_drawn_edit_follows_the_model_and_every_pod_fits(draw, edit):
    old = _plan(draw.config)
    config = copy.deepcopy(draw.config)
    EDITS[edit](config)
    new = _plan(config)
    diff = diff_plans(old, new)

    # the product never sends an update GKE, a provider or a webhook refuses, and none of these edits replaces the
    # cluster (no object left behind): only protect can refuse them
    for _, _, refusal in diff.refused:
        assert refusal.rule in ("protect-replace", "protect-cascade", "protect-delete"), (edit, refusal)
    for change in diff.changed:
        resource = diff.new_resources[change.urn]
        old_resource = diff.old_resources[change.renamed_from or change.urn]
        # what the provider's own Diff replaces on (the bridge's schema walk, pulumi-kubernetes' table, DiffConfig),
        # or a detailed-diff path under the resource's replaceOnChanges (PropertyPath.Contains), replaces
        options = resource.get("options") or {}
        old_inputs = old_resource.get("inputs") or {}
        effective = reset_ignored(old_inputs, resource.get("inputs") or {},
                                  [parse_path(p) for p in options.get("ignoreChanges") or ()])
        roc = [parse_path(p) for p in options.get("replaceOnChanges") or ()]
        forced = A.provider_replace_reasons(change.type, old_inputs, effective) + [
            parse_path(p) for p in change.properties if any(contains(q, parse_path(p)) for q in roc)]
        if forced and resource.get("custom", True) and not resource.get("read") and not old_resource.get("read"):
            assert change.replace, (edit, change.name, forced)
        # protect refuses a replacement when the state and the program both protect it, and a dependent the
        # delete-first walk condemns when the state protects it (the engine reads its old protect)
        protected = bool(old_resource["options"].get("protect") and resource["options"].get("protect"))
        condemned = bool(change.replaced_by and old_resource["options"].get("protect"))
        assert any(r.rule in ("protect-replace", "protect-cascade") for r in change.refusals) == (
            change.replace and (protected or condemned)), (edit, change.name)
        # a JobSet is replaced with the pools it lists in replaceWith
        with_ = set((resource.get("options") or {}).get("replaceWith") or ())
        if with_ & {c.urn for c in diff.replaced}:
            assert change.replace
    for change in diff.changed:
        if change.type == tokens.NODE_POOL and change.replace:
            jobsets = [r for r in new["resources"] if change.urn in ((r.get("options") or {}).get("replaceWith") or ())]
            assert all(r["urn"] in {c.urn for c in diff.replaced} for r in jobsets)
    if edit == "image":
        assert not diff.refused and all(c.type in (tokens.JOBSET, tokens.LEADER_WORKER_SET, tokens.DEPLOYMENT,
                                                   tokens.JOB) for c in diff.changed if c.replace)

    # JSON and Markdown carry the same verdicts
    out = diff.to_json()
    markdown = render_markdown(diff, graph=False)
    for entry in out["changed"]:
        assert entry["verdict"] in ("update", "replace", "refused", "relinquish")
        if entry["verdict"] == "refused":
            assert f"| **REFUSED** | `{entry['name']}`" in markdown

    # no plan the product accepts contains a pod that cannot be placed (waiting for a turn is allowed): a stack whose
    # pods cannot all run (e.g. an edit that grows the cluster until the controllers sized for it outgrow a CPU
    # node) is refused by the mandatory pods-fit policy, which `pathways-gke plan` and the policy pack enforce
    resources = new["resources"]
    unplaced = [s.message() for s in place(resources, lws_version_of(resources)) if not s.queued]
    refused = [v.message for v in policies.check_resources(resources)
               if v.policy == "pathways-gke-pods-fit" and v.level == policies.MANDATORY]
    assert sorted(refused) == sorted(unplaced)

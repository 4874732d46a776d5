"""`pathways-gke diff` semantics on hand-written plans: what is added, removed, changed and REPLACED."""

import json

import pytest

from pathways_gke.plan.diff import diff_plans, node_pool_warnings, render_text, summary
from pathways_gke.plan.markdown import render_markdown
from pathways_gke.property_paths import parse_path
from pathways_gke.plan.replacements import REPLACE_PATHS
from pathways_gke.tokens import NODE_POOL
from tests.support.plans import JOBSET_T, POOL_T, edited, mini_plan, named

# --- the contract ---------------------------------------------------------------------------------


def test_json_has_exactly_the_contract_keys():
    old = mini_plan()
    new = edited(old, "pw-dev-cpu", inputs__nodeConfig__machineType="n2-standard-32")
    out = json.loads(diff_plans(old, new).dumps())
    assert set(out) == {"added", "removed", "changed"}
    [change] = out["changed"]
    assert {"urn", "replace", "properties"} <= set(change)
    assert change["urn"] == named(new, "pw-dev-cpu")["urn"]
    assert change["replace"] is False
    assert change["properties"] == ["nodeConfig.machineType"]


def test_identical_plans_have_no_changes():
    diff = diff_plans(mini_plan(), mini_plan())
    assert diff.empty and diff.to_json() == {"added": [], "removed": [], "changed": []}
    assert summary(diff) == "no changes"


def test_engine_plan_objects_and_paths_are_accepted(tmp_path):
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(mini_plan()))
    assert diff_plans(str(path), mini_plan()).empty


def test_a_duplicate_urn_is_an_error():
    plan = mini_plan()
    plan["resources"].append(plan["resources"][0])
    with pytest.raises(ValueError, match="twice"):
        diff_plans(plan, mini_plan())


# --- acceptance shapes on the miniature stack -----------------------------------------------------


def test_new_workload_image_changes_exactly_the_jobset_and_replaces_it():
    old, new = mini_plan(), mini_plan(image="us-docker.pkg.dev/acme/train:2026-12")
    diff = diff_plans(old, new)
    assert not diff.added and not diff.removed
    [change] = diff.changed
    assert change.type == JOBSET_T
    assert change.properties == ("spec.replicatedJobs[0].template.spec.template.spec.containers[0].image",)
    assert change.replace and change.replace_reasons == change.properties  # replaceOnChanges: ["spec"]
    assert not node_pool_warnings(diff)  # a workload change never touches infrastructure


def test_adding_a_slice_adds_one_pool_and_replaces_the_jobset():
    diff = diff_plans(mini_plan(slices=1), mini_plan(slices=2))
    assert [(r["type"], r["name"]) for r in diff.added] == [(POOL_T, "pw-dev-main-1")]
    assert not diff.removed
    [change] = diff.changed
    assert change.type == JOBSET_T and change.replace
    assert "spec.replicatedJobs[1].replicas" in change.replace_reasons


def _with_replace_on_placement(plan):
    for r in plan["resources"]:
        if r["type"] == NODE_POOL and "placementPolicy" in r["inputs"]:
            r["options"]["replaceOnChanges"] = ["placementPolicy"]
    return plan


def test_changing_the_topology_of_a_pool_that_does_not_list_it_is_an_update_never_applied():
    """placementPolicy is a ForceNew block, tpuTopology is not ForceNew: the bridge updates (TestBlockCollectionForceNew)
    and the node-pool update never sends placement_policy, so the diff refuses it instead of promising a replace."""
    diff = diff_plans(mini_plan(slices=2), mini_plan(slices=2, topology="4x4"))
    pools = [c for c in diff.changed if c.type == NODE_POOL]
    assert [c.name for c in pools] == ["pw-dev-main-0", "pw-dev-main-1"]
    assert all(not c.replace and [r.rule for r in c.refusals] == ["tpu-placement-not-applied"] for c in pools)


def test_changing_the_topology_replaces_every_slice_loudly_when_the_pools_list_it():
    diff = diff_plans(_with_replace_on_placement(mini_plan(slices=2)),
                      _with_replace_on_placement(mini_plan(slices=2, topology="4x4")))
    pools = [c for c in diff.changed if c.type == NODE_POOL]
    assert [c.name for c in pools] == ["pw-dev-main-0", "pw-dev-main-1"]
    assert all(c.replace and c.replace_reasons == ("placementPolicy.tpuTopology",) and not c.refusals for c in pools)
    jobset = next(c for c in diff.changed if c.type == JOBSET_T)
    assert jobset.replace and jobset.properties == () and set(jobset.replaced_with) == {c.urn for c in pools}
    warnings = node_pool_warnings(diff)
    assert len(warnings) == 2 and all("REPLACED" in w and "TPU slice" in w for w in warnings)
    assert "!! node pool pw-dev-main-0 will be REPLACED" in render_text(diff)


# --- replace rules --------------------------------------------------------------------------------


@pytest.mark.parametrize("field, value", [
    ("inputs__nodeConfig__spot", False),
    ("inputs__nodeConfig__serviceAccount", "other@acme.iam.gserviceaccount.com"),
    ("inputs__nodeConfig__reservationAffinity", {"consumeReservationType": "SPECIFIC_RESERVATION"}),
    ("inputs__placementPolicy__policyName", "other-policy"),  # a ForceNew attribute inside the block
    ("inputs__placementPolicy", None),  # the ForceNew block removed: its count changes
    ("inputs__maxPodsPerNode", 32),
    ("inputs__queuedProvisioning", {"enabled": True}),
    ("inputs__initialNodeCount", 3),
    ("inputs__name", "renamed-0"),
])
def test_force_new_node_pool_fields_replace(field, value):
    old = mini_plan()
    diff = diff_plans(old, edited(old, "pw-dev-main-0", **{field: value}))
    pool = next(c for c in diff.changed if c.name == "pw-dev-main-0")
    assert pool.replace, f"{field} must force a new node pool"
    jobset = next(c for c in diff.changed if c.type == JOBSET_T)
    assert jobset.replace and jobset.replaced_with == (pool.urn,)  # replaceWith cascades


@pytest.mark.parametrize("field, value", [
    ("inputs__nodeCount", 4),
    ("inputs__nodeLocations", ["us-east5-c"]),
    ("inputs__nodeConfig__labels", {"pathways-gke/tpu-group": "main", "team": "ml"}),
    ("inputs__nodeConfig__taints", []),
])
def test_in_place_node_pool_fields_update(field, value):
    old = mini_plan()
    diff = diff_plans(old, edited(old, "pw-dev-main-0", **{field: value}))
    [pool] = diff.changed
    assert pool.name == "pw-dev-main-0" and not pool.replace and not pool.nodes_recreated


def test_machine_type_updates_in_place_but_is_called_out_as_a_node_roll():
    old = mini_plan()
    diff = diff_plans(old, edited(old, "pw-dev-main-0", inputs__nodeConfig__machineType="ct6e-standard-8t"))
    [pool] = diff.changed
    assert not pool.replace and pool.nodes_recreated == ("nodeConfig.machineType",)
    assert pool.disruptive_node_pool
    assert "re-creates every node" in node_pool_warnings(diff)[0]


def test_ignore_changes_paths_are_not_changes():
    old = mini_plan()
    diff = diff_plans(old, edited(old, "pw-dev-cpu", inputs__nodeCount=3, inputs__initialNodeCount=2))
    assert diff.empty


def test_a_new_cluster_identifier_replaces_the_provider_and_everything_it_manages():
    old = mini_plan()
    new = edited(old, "pw-dev-k8s", inputs__clusterIdentifier="acme-ml-dev/us-east5/pw-dev2")
    diff = diff_plans(old, new)
    replaced = {c.name: c for c in diff.changed if c.replace}
    assert set(replaced) == {"pw-dev-k8s", "jobsets.jobset.x-k8s.io", "pw-dev-hf-token", "train"}
    assert replaced["pw-dev-hf-token"].provider_replaced == named(new, "pw-dev-k8s")["urn"]


def test_a_kubernetes_object_is_replaced_when_renamed_and_updated_otherwise():
    old = mini_plan()
    renamed = diff_plans(old, edited(old, "pw-dev-hf-token", inputs__metadata={"name": "x", "namespace": "default"}))
    assert renamed.changed[0].replace and renamed.changed[0].replace_reasons == ("metadata.name",)
    labels = diff_plans(old, edited(old, "pw-dev-hf-token", inputs__metadata={
        "name": "hf-token", "namespace": "default", "labels": {"team": "a"}}))
    assert not labels.changed[0].replace and labels.changed[0].verdict == "update"
    # a Secret's data is in pulumi-kubernetes' forceNew table (provider/pkg/provider/diff.go): replaced, and
    # delete-first, since the object keeps its name (provider.go)
    data = diff_plans(old, edited(old, "pw-dev-hf-token", inputs__stringData={"HF_TOKEN": "<secret>", "B": "1"}))
    assert data.changed[0].replace and data.changed[0].replace_mode == "delete-first"


def test_changed_options_are_reported_without_property_changes():
    old = mini_plan()
    diff = diff_plans(old, edited(old, "pw-dev-cluster", options__protect=True))
    [change] = diff.changed
    assert change.properties == () and change.options == ("protect",) and not change.replace
    assert change.to_json()["options"] == ["protect"]


def test_an_alias_turns_remove_plus_add_into_a_rename():
    old = mini_plan()
    new = json.loads(json.dumps(old).replace("pw-dev-cpu", "pw-dev-head"))
    named(new, "pw-dev-head")["options"]["aliases"] = ["name=pw-dev-cpu"]
    diff = diff_plans(old, new)
    assert not diff.added and not diff.removed
    [change] = diff.changed
    assert change.renamed_from == named(old, "pw-dev-cpu")["urn"] and change.properties == ()


def test_a_rename_without_an_alias_is_reported_as_delete_plus_create():
    old = mini_plan()
    new = json.loads(json.dumps(old).replace("::pw-dev-cpu", "::pw-dev-head"))
    named(new, "pw-dev-cpu")["name"] = "pw-dev-head"
    diff = diff_plans(old, new)
    assert [r["name"] for r in diff.added] == ["pw-dev-head"] and [r["name"] for r in diff.removed] == ["pw-dev-cpu"]
    assert diff.renames_without_alias == ((named(old, "pw-dev-cpu")["urn"], named(new, "pw-dev-head")["urn"]),)
    assert "!! pw-dev-head looks like pw-dev-cpu renamed without an alias" in render_text(diff)
    assert "Renamed without an alias" in render_markdown(diff)
    assert diff.to_json()["renamesWithoutAlias"] == [{"from": named(old, "pw-dev-cpu")["urn"],
                                                      "to": named(new, "pw-dev-head")["urn"]}]


def test_a_removed_and_an_added_resource_that_differ_are_not_a_rename():
    old = mini_plan()
    new = json.loads(json.dumps(old).replace("::pw-dev-cpu", "::pw-dev-head"))
    named(new, "pw-dev-cpu")["inputs"]["name"] = "head-np"
    diff = diff_plans(old, new)
    assert diff.renames_without_alias == () and "renamesWithoutAlias" not in diff.to_json()
    assert "renamed" not in render_text(diff)


def test_removing_a_slice_is_a_loud_deletion():
    diff = diff_plans(mini_plan(slices=2), mini_plan(slices=1))
    assert [r["name"] for r in diff.removed] == ["pw-dev-main-1"]
    assert "node pool pw-dev-main-1 will be DELETED" in node_pool_warnings(diff)


def test_every_replace_table_entry_is_a_valid_path():
    for type_, paths in REPLACE_PATHS.items():
        for path in paths:
            assert parse_path(path), (type_, path)

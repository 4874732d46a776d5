"""The rulebook (gke_rules.py): what GKE, Compute Engine and the Pulumi engine enforce is checked before anything
is created, and every plan applies cleanly on a real `pulumi up` and on the next one after a change."""

import copy
import re

import pytest
import yaml

from pathways_gke import gke_rules as R
from pathways_gke.catalog import GENERATIONS, is_tpu_machine_type
from pathways_gke.cli import main as cli_main
from pathways_gke.config import parse_stack
from pathways_gke.errors import ConfigError
from pathways_gke.gke.adopt import adopted_cluster_problems
from pathways_gke.naming import (MANAGED_GCE_LABELS, MANAGED_NODE_LABELS, TPU_RESOURCE, node_service_account_id,
                                 webhook_firewall_name)
from pathways_gke.plan.diff import diff_plans, render_text
from pathways_gke.plan.engine import plan_config
from pathways_gke.plan.markdown import render_markdown
from pathways_gke.plan.replacements import NAME_INPUT, fixed_name, name_clash_on_replace
from tests.conftest import ROOT, STACKS
from tests.support.offline import Cloud, run
from tests.support.stacks import P, merged, parsed, stack
from tests.support.plans import edited
from tests.support.variants import every_optional_child_config

NODE_POOL = "gcp:container/nodePool:NodePool"
CLUSTER = "gcp:container/cluster:Cluster"


ADOPT = {"name": "pw-dev", "location": "us-east5", "create": False}


def dev(**sections) -> dict:
    """The dev stack with these sections merged (`tpuPools=[{...}]` changes its one pool group)."""
    return merged("dev", **sections)


def test_the_rules_table_in_the_docs_is_generated_from_the_rulebook():
    from pathways_gke import docgen

    document = (ROOT / docgen.RULES_DOC).read_text()
    assert docgen.splice(document, docgen.render_rules()) == document, "run: python -m pathways_gke.docgen --write"
    for rule in R.RULES:
        assert f"`{rule.id}`" in document and rule.source


@pytest.mark.slow
def test_docgen_check_fails_on_a_stale_rules_table(tmp_path, capsys, monkeypatch):
    from pathways_gke import docgen

    rules = tmp_path / "rules.md"
    rules.write_text((ROOT / docgen.RULES_DOC).read_text().replace("409 already exists", "conflict"))
    monkeypatch.setattr(docgen, "DOC", ROOT / docgen.DOC)
    monkeypatch.setattr(docgen, "RULES_DOC", rules)
    assert docgen.main(["--check"]) == 1
    assert "rules.md is out of date" in capsys.readouterr().err


# --- versions ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version, floor, below", [
    ("1.33", "1.34.0-gke.2201000", True),
    ("1.33.9-gke.9999999", "1.34.0-gke.2201000", True),
    ("1.34", "1.34.0-gke.2201000", False),  # a prefix GKE resolves to a current patch
    ("1.34.0", "1.34.0-gke.2201000", False),
    ("1.34.0-gke.2200999", "1.34.0-gke.2201000", True),
    ("1.34.0-gke.999", "1.34.0-gke.2201000", True),  # -gke.N compares as a number, not as text
    ("1.34.0-gke.2201000", "1.34.0-gke.2201000", False),
    ("1.34.1-gke.1", "1.34.0-gke.2201000", False),
    ("1.34.0-gke.3000000", "1.34.1-gke.1829001", True),
    ("1.35", "1.34.1-gke.1829001", False),
    ("1.9", "1.33.0-gke.1712000", True),  # 9 < 33 numerically
])
def test_gke_versions_compare_part_by_part_including_the_gke_build(version, floor, below):
    assert R.below_floor(version, floor) is below


def test_the_catalog_is_the_one_place_of_the_tpu7x_floor():
    floors = dict((what, floor) for floor, what in R.version_floors("tpu7x", "on-demand", False))
    assert floors == {"tpu7x node pools": GENERATIONS["tpu7x"].min_gke_version == "1.34.0-gke.2201000" and
                      GENERATIONS["tpu7x"].min_gke_version}


def test_an_unpinned_cluster_is_assumed_to_meet_every_floor():
    """docs/gke-rules.md: with no pinned version the channel's current versions are above the floors."""
    assert R.version_floor_problems(None, R.version_floors("tpu7x", "queued", True)) == []


# --- the acceptance cases: exit 2 naming the path and the fix, nothing registered ----------------------------

ACCEPTANCE = [
    # 400 Auto_upgrade cannot be false when release_channel REGULAR is set (TGKE PR #682; release-channels doc)
    ("auto-upgrade-on-regular", dev(tpuPools=[{"autoUpgrade": False}]), "tpuPools[0].autoUpgrade",
     ["Auto_upgrade cannot be false when release_channel REGULAR", "cluster.maintenance", "NO_MINOR_OR_NODE_UPGRADES",
      "UNSPECIFIED"]),
    # GKE TPU Ironwood page: tpu7x needs 1.34.0-gke.2201000
    ("tpu7x-on-1.33", dev(tpuPools=[{"type": "tpu7x", "topology": "2x2x2", "capacity": "on-demand"}],
                          cluster={"version": "1.33"}),
     "cluster.version", ["'1.33' is below GKE 1.34.0-gke.2201000", "tpu7x", "pin cluster.version", "tpuPools[0]"]),
    # Hyperdisk machine-series table: N4 has no Persistent Disk
    ("n4-with-pd-balanced", dev(cpuPool={"machineType": "n4-standard-64", "diskType": "pd-balanced"}),
     "cpuPool.diskType", ["'pd-balanced'", "Hyperdisk only", "use hyperdisk-balanced"]),
    # GKE node-labels doc: cloud.google.com/ is GKE's
    ("cloud-google-label", dev(tpuPools=[{"labels": {"cloud.google.com/gke-nodepool": "x"}}]), "tpuPools[0].labels",
     ["cloud.google.com/", "use your own prefix"]),
    # a user label replacing the one the workers select on: the pods stay Pending
    ("override-tpu-group", dev(tpuPools=[{"labels": {"pathways-gke/tpu-group": "other"}}]), "tpuPools[0].labels",
     ["pathways-gke/tpu-group", "set by pathways-gke", "choose another key"]),
]


@pytest.mark.parametrize("case_id, config, path, fragments", ACCEPTANCE, ids=[c[0] for c in ACCEPTANCE])
def test_each_rule_exits_2_naming_the_path_and_the_fix_with_nothing_registered(
        case_id, config, path, fragments, tmp_path, capsys, recording_runs):
    stack_file = tmp_path / "Pulumi.bad.yaml"
    stack_file.write_text(yaml.safe_dump({"config": config}))
    code = cli_main(["plan", "--config", str(stack_file), "--project-dir", str(ROOT)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    line = next((ln for ln in err.splitlines() if ln.startswith(f"  - {path}:")), None)
    assert line is not None, f"no problem at {path}: {err}"
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} missing from {line!r}"
    assert recording_runs == [], "the program ran although the config is invalid"


MORE_RULES = [
    # CTK gke-node-pool preconditions: the accelerator network profile needs 1.34.1-gke.1829001
    ("network-profile-below-floor", dev(cluster={"version": "1.34.0-gke.3000000"}), "cluster.version",
     ["1.34.1-gke.1829001", "accelerator network profile", "networkProfile: false"]),
    # GKE flex-start doc: TPUs need 1.33.0-gke.1712000
    ("flex-start-below-floor", dev(tpuPools=[{"capacity": "flex-start", "networkProfile": False}],
                                   cluster={"version": "1.33.0-gke.1000"}),
     "cluster.version", ["1.33.0-gke.1712000", "flex-start"]),
    # GKE flex-start doc: not on v3/v4; queued pools are flex-start pools (provisioningrequest doc)
    ("queued-on-v4", dev(tpuPools=[{"type": "v4", "topology": "2x2x2", "capacity": "queued"}], kueue={"enabled": True}),
     "tpuPools[0].capacity", ["not available for v4"]),
    # Compute Engine Hyperdisk machine-type support table
    ("c4d-pd-ssd", dev(cpuPool={"machineType": "c4d-standard-32", "diskType": "pd-ssd"}), "cpuPool.diskType",
     ["Hyperdisk only"]),
    # GKE node-labels doc / Kubernetes NodeRestriction: kubernetes.io and its subdomains are reserved
    ("kubernetes-io-subdomain", dev(cpuPool={"labels": {"node.kubernetes.io/instance-type": "x"}}),
     "cpuPool.labels", ["node.kubernetes.io/"]),
    ("k8s-io", dev(tpuPools=[{"labels": {"k8s.io/foo": "x"}}]), "tpuPools[0].labels", ["k8s.io/"]),
    # Compute Engine labels doc: <= 64 labels, [a-z0-9_-] keys and values (400 invalid label)
    ("gce-label-managed-key", dev(cluster={"labels": {"managed-by": "me"}}), "cluster.labels",
     ["'managed-by' is set by pathways-gke"]),
    ("gce-label-count", dev(cluster={"labels": {f"k{i}": "v" for i in range(62)}}), "cluster.labels",
     ["62 labels", "at most 61"]),
    ("gce-label-value", dev(cluster={"labels": {"team": "ML"}}), "cluster.labels", ["value 'ML'"]),
    # GKE maintenance-exclusions doc: NO_UPGRADES lasts at most 30 days
    ("no-upgrades-without-end", dev(cluster={"maintenance": {"exclusions": [
        {"name": "freeze", "startTime": "2026-12-01T00:00:00Z", "scope": "NO_UPGRADES"}]}}),
     "cluster.maintenance.exclusions[0].endTime", ["NO_UPGRADES needs an endTime"]),
    ("maintenance-bad-time", dev(cluster={"maintenance": {"window": {
        "startTime": "saturday", "endTime": "2026-12-05T10:00:00Z"}}}), "cluster.maintenance.window.startTime",
     ["RFC 3339"]),
    # create-only fields would be silently ignored on an adopted cluster
    ("adopted-with-version", dev(cluster={"create": False, "version": "1.34"}), "cluster.version",
     ["cluster.create: false", "refused rather than ignored"]),
    ("adopted-with-channel", dev(cluster={"create": False}), "cluster.releaseChannel",
     ["cluster.create: false"]),
    ("existing-head-pool-on-a-new-cluster", dev(cpuPool={"create": False}), "cpuPool.create",
     ["cluster.create: false"]),
    ("existing-head-pool-with-size", merged(stack("dev", cluster=ADOPT), cpuPool={"create": False}),
     "cpuPool.minNodes", ["existing pool is used as it is"]),
]


@pytest.mark.parametrize("case_id, config, path, fragments", MORE_RULES, ids=[c[0] for c in MORE_RULES])
def test_more_rules_name_the_path_and_the_fix(case_id, config, path, fragments):
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    matching = [str(p) for p in caught.value.problems if p.path == path]
    assert matching, f"no problem at {path}: {caught.value.render()}"
    for fragment in fragments:
        assert fragment in matching[0], f"{fragment!r} missing from {matching[0]!r}"


@pytest.mark.parametrize("key", MANAGED_NODE_LABELS)
@pytest.mark.parametrize("section", ["cpuPool", "tpuPools"])
def test_every_label_pathways_gke_manages_is_refused_from_one_list(key, section):
    config = dev(cpuPool={"labels": {key: "x"}}) if section == "cpuPool" else dev(tpuPools=[{"labels": {key: "x"}}])
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    assert any(key in str(p) for p in caught.value.problems)


def test_our_label_prefix_is_reserved_and_every_key_we_define_uses_it():
    from pathways_gke import naming

    ours = [v for k, v in vars(naming).items() if k.endswith("_LABEL") and not k.endswith("_GCE_LABEL")
            and isinstance(v, str)
            and not v.startswith(("cloud.google.com/", "kubernetes.io/", "jobset.sigs.k8s.io/", "kueue.x-k8s.io/"))]
    assert ours and all(v.startswith(naming.LABEL_PREFIX) for v in ours), ours
    for key in ours + [naming.LABEL_PREFIX + "anything"]:
        assert R.node_label_problem(key), key


def test_every_node_label_the_plans_set_is_a_managed_or_gke_one(all_plans):
    """The list the validation refuses is the list the builders write (nothing we set can be overridden)."""
    for _, plan in all_plans:
        for r in plan.of_type(NODE_POOL):
            if r.read:
                continue
            for key in r.inputs["nodeConfig"]["labels"]:
                assert key in MANAGED_NODE_LABELS, key


TPU7X = {"type": "tpu7x", "topology": "2x2x2", "capacity": "on-demand"}


@pytest.mark.parametrize("config", [
    dev(tpuPools=[{"autoUpgrade": False}], cluster={"releaseChannel": "UNSPECIFIED"}),
    dev(tpuPools=[TPU7X], cluster={"version": "1.34.0-gke.2201000"}),
    dev(tpuPools=[TPU7X], cluster={"version": "1.34"}),
    dev(cpuPool={"machineType": "n4-standard-64", "diskType": "hyperdisk-balanced"}),
    dev(tpuPools=[{"labels": {"example.com/team": "ml", "mykubernetes.io/x": "y"}}]),
    dev(cluster={"labels": {f"k{i}": "v" for i in range(61)}}),
], ids=["no-channel", "tpu7x-at-floor", "tpu7x-prefix", "n4-hyperdisk", "own-prefixes", "61-labels"])
def test_what_gke_accepts_is_accepted(config):
    parse_stack(config)


@pytest.mark.slow
def test_the_n4_head_pool_of_cluster_toolkit_boots_from_hyperdisk_by_default():
    plan = plan_config(dev(cpuPool={"machineType": "n4-standard-64"}), stack="n4")
    assert plan.named("pw-dev-cpu").inputs["nodeConfig"]["diskType"] == "hyperdisk-balanced"
    assert plan_config(stack("dev"), stack="dev").named("pw-dev-cpu").inputs["nodeConfig"]["diskType"] == "pd-balanced"


@pytest.mark.slow
def test_maintenance_is_sent_as_exclusions_until_end_of_support_and_a_window():
    plan = plan_config(dev(cluster={"maintenance": {
        "window": {"startTime": "2026-12-05T02:00:00Z", "endTime": "2026-12-05T10:00:00Z"},
        "exclusions": [{"name": "hold-slices", "startTime": "2026-12-01T00:00:00Z"},
                       {"name": "freeze", "startTime": "2026-12-20T00:00:00Z", "endTime": "2027-01-05T00:00:00Z",
                        "scope": "NO_UPGRADES"}]}}), stack="m")
    policy = plan.named("pw-dev-cluster").inputs["maintenancePolicy"]
    assert policy["recurringWindow"] == {"startTime": "2026-12-05T02:00:00Z", "endTime": "2026-12-05T10:00:00Z",
                                         "recurrence": "FREQ=WEEKLY;BYDAY=SA,SU"}
    hold, freeze = policy["maintenanceExclusions"]
    assert hold == {"exclusionName": "hold-slices", "startTime": "2026-12-01T00:00:00Z", "exclusionOptions": {
        "scope": "NO_MINOR_OR_NODE_UPGRADES", "endTimeBehavior": "UNTIL_END_OF_SUPPORT"}}
    assert freeze["endTime"] == "2027-01-05T00:00:00Z" and "endTimeBehavior" not in freeze["exclusionOptions"]


# --- every plan of every stack and variant ----------------------------------------------------------------------


def _variants() -> dict[str, dict]:
    out = {name: stack(name) for name in STACKS}
    out["every-optional-child"] = every_optional_child_config()
    tpu7x = every_optional_child_config()
    tpu7x[P + "tpuPools"].append({"name": "iron", "type": "tpu7x", "topology": "4x4x4", "slices": 2,
                                  "zone": "us-east5-b", "capacity": "on-demand", "networkProfile": True})
    tpu7x[P + "cluster"]["version"] = "1.34.1-gke.1829001"
    out["tpu7x-pinned"] = tpu7x
    out["big-slices"] = dev(tpuPools=[{"type": "v5p", "topology": "8x16x16", "capacity": "flex-start"}])
    out["n4-head"] = dev(cpuPool={"machineType": "n4-standard-64"})
    out["adopted"] = stack("dev", cluster=ADOPT, cpuPool={"create": False})
    return out


@pytest.fixture(scope="module")
def all_plans(stack_plans):
    """The shipped stacks' plans (the session's) and the variants'."""
    return [(name, stack_plans(name) if name in STACKS else plan_config(cfg, stack=name))
            for name, cfg in _variants().items()]


def test_no_tpu7x_pool_sends_a_compact_group_placement(all_plans):
    seen = 0
    for _, plan in all_plans:
        for r in plan.of_type(NODE_POOL):
            if not r.inputs.get("nodeConfig", {}).get("machineType", "").startswith("tpu7x"):
                continue
            placement = r.inputs.get("placementPolicy")
            if placement is None:
                continue  # single host
            seen += 1
            assert placement.get("type") != "COMPACT", r.name
            assert placement["policyName"] and "tpuTopology" not in placement, r.name
            assert {"placementPolicy.type", "placementPolicy.tpuTopology"} <= set(r.options["ignoreChanges"])
    assert seen >= 3, "the variants must include tpu7x multi-host pools"


def test_every_replaceable_fixed_name_resource_is_deleted_first(all_plans):
    """Pulumi replaces create-before-delete unless told otherwise
    (https://www.pulumi.com/docs/iac/concepts/options/deletebeforereplace/): a fixed name then answers 409
    already exists."""
    kinds = set()
    for name, plan in all_plans:
        for r in plan.to_json()["resources"]:
            if r.get("read") or (r.get("options") or {}).get("id"):
                continue
            if fixed_name(r) is not None:
                kinds.add(r["type"])
            assert not name_clash_on_replace(r), f"{name}: {r['name']} ({r['type']}) keeps its name when replaced"
    assert set(NAME_INPUT) <= kinds, "every fixed-name cloud type must appear in some variant"


def test_tpu_pools_ignore_the_force_new_fields_gke_fills_in(all_plans):
    seen = 0
    for _, plan in all_plans:
        for r in plan.of_type(NODE_POOL):
            if r.read or not is_tpu_machine_type(r.inputs["nodeConfig"]["machineType"]):
                continue
            seen += 1
            assert "nodeConfig.advancedMachineFeatures" in r.options["ignoreChanges"], r.name
            assert set(R.SERVER_FILLED_TPU_FIELDS) <= set(r.options["ignoreChanges"]), r.name
    assert seen


def test_no_custom_timeout_is_below_the_provider_default(all_plans):
    seen = 0
    for _, plan in all_plans:
        for r in plan.to_json()["resources"]:
            timeouts = (r.get("options") or {}).get("customTimeouts")
            if not timeouts:
                continue
            floor = R.PROVIDER_DEFAULT_TIMEOUT_MINUTES.get(r["type"], 0)
            seen += 1
            for op, value in timeouts.items():
                assert R.duration_minutes(value) >= floor, f"{r['name']}: {op} {value} < {floor}m"
    assert seen


def test_large_slices_get_more_time_than_the_default():
    plan = plan_config(_variants()["big-slices"], stack="big")
    # 8x16x16 on 4-chip hosts: 512 VMs -> 2 h + 7 x 30 min
    assert plan.named("pw-dev-main-0").options["customTimeouts"] == {"create": "330m", "update": "330m",
                                                                     "delete": "330m"}


def test_node_pools_wait_for_the_node_service_accounts_role_grants(all_plans):
    checked = 0
    for name, plan in all_plans:
        (account,) = plan.of_type("gcp:serviceaccount/account:Account")
        grants = {g.urn for g in plan.of_type("gcp:projects/iAMMember:IAMMember") if account.urn in g.depends_on}
        assert grants, name
        for pool in plan.of_type(NODE_POOL):
            if pool.read:
                continue
            assert grants <= set(pool.depends_on), f"{name}: {pool.name}"
            checked += 1
    assert checked


def test_the_clusters_transient_default_pool_runs_as_the_node_service_account(stack_plans):
    plan = stack_plans("prod")
    cluster = plan.named("pw-prod-cluster")
    account = plan.named("pw-prod-node-sa")
    assert account.urn in cluster.depends_on
    assert cluster.inputs["nodeConfig"]["oauthScopes"] == ["https://www.googleapis.com/auth/cloud-platform"]
    assert "nodeConfig" in cluster.options["ignoreChanges"]


@pytest.mark.parametrize("cluster", ["a", "pw-dev", "x" * 40, "a-b-c-d-e-f-g-h-i-j-k-l-m"])
def test_node_service_account_ids_are_valid_and_differ_between_regions(cluster):
    east, west = node_service_account_id(cluster, "us-east5"), node_service_account_id(cluster, "us-west4")
    for account_id in (east, west):
        assert 6 <= len(account_id) <= 30 and re.fullmatch(r"[a-z]([-a-z0-9]*[a-z0-9])", account_id), account_id
    assert east != west
    assert east == node_service_account_id(cluster, "us-east5")  # stable


# --- adoption ---------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def adopted_plan():
    return plan_config(_variants()["adopted"], stack="adopted")


def test_an_adopted_cluster_upserts_only_the_jobset_and_kueue_installs(adopted_plan):
    upsert = adopted_plan.named("pw-dev-kubernetes-installs")
    assert upsert.inputs["upsertExistingObjects"] == "true"  # provider config travels as strings
    strict = adopted_plan.named("pw-dev-kubernetes")
    assert not strict.inputs.get("upsertExistingObjects")
    installs = adopted_plan.of_type("kubernetes:yaml/v2:ConfigFile")
    assert installs and all(i.options["providers"]["kubernetes"] == upsert.urn for i in installs)
    for r in adopted_plan.to_json()["resources"]:
        # XPK's PriorityClasses are the one other thing taken over (tests/test_gke_rules_round2.py)
        if r["type"].startswith("kubernetes:") and r["custom"] and not r["type"].endswith(":PriorityClass"):
            assert r["options"]["provider"] != upsert.urn, f"{r['name']} must keep strict creation"


def test_a_created_cluster_has_no_upserting_provider(stack_plans):
    assert [p.name for p in stack_plans("prod").of_type("pulumi:providers:kubernetes")] == ["pw-prod-kubernetes"]


def test_an_adopted_cluster_reuses_its_existing_head_pool(adopted_plan):
    pools = adopted_plan.of_type(NODE_POOL)
    head = adopted_plan.named("pw-dev-cpu")
    assert head.read and head.options["id"].endswith("/clusters/pw-dev/nodePools/cpu-np")
    assert [p.name for p in pools if not p.read] == ["pw-dev-main-0"]
    (jobset_install,) = [i for i in adopted_plan.of_type("kubernetes:yaml/v2:ConfigFile") if i.name.endswith("jobset")]
    assert head.urn in jobset_install.depends_on


FULL_CLUSTER = {
    "workloadIdentityConfig": {"workloadPool": "acme-ml-dev.svc.id.goog"},
    "datapathProvider": "ADVANCED_DATAPATH",
    "addonsConfig": {"gcsFuseCsiDriverConfig": {"enabled": True}},
    "releaseChannel": {"channel": "REGULAR"},
    "masterVersion": "1.34.1-gke.1829001",
}
def adopted_stack(**pool):
    return parsed(merged(stack("dev", cluster=ADOPT), tpuPools=[pool],
                         workloads=[{"gcsFuse": [{"name": "data", "bucket": "acme-data", "mountPath": "/data"}]}]))


@pytest.mark.parametrize("change, fragment", [
    ({"workloadIdentityConfig": {}}, "no Workload Identity pool"),
    ({"workloadIdentityConfig": None}, "no Workload Identity pool"),
    ({"datapathProvider": "LEGACY_DATAPATH"}, "does not run Dataplane V2"),
    ({"addonsConfig": {"gcsFuseCsiDriverConfig": {"enabled": False}}}, "GCS FUSE CSI driver"),
    ({"masterVersion": "1.34.0-gke.1000"}, "1.34.1-gke.1829001"),
], ids=["no-wi", "wi-null", "legacy-datapath", "no-gcs-fuse", "old-version"])
def test_an_adopted_clusters_missing_prerequisites_are_named_in_plain_words(change, fragment):
    props = {**FULL_CLUSTER, **change}
    problems = adopted_cluster_problems(props, adopted_stack())
    assert any(fragment in p for p in problems), problems


def test_an_adopted_cluster_on_a_channel_refuses_pools_without_auto_upgrade():
    problems = adopted_cluster_problems(FULL_CLUSTER, adopted_stack(autoUpgrade=False))
    assert any("Auto_upgrade cannot be false" in p for p in problems)


def test_a_complete_or_unknown_adopted_cluster_passes():
    assert adopted_cluster_problems(FULL_CLUSTER, adopted_stack()) == []
    assert adopted_cluster_problems({}, adopted_stack()) == []  # offline: nothing read, nothing claimed


def test_the_preview_stops_on_an_adopted_cluster_without_workload_identity():
    """The check runs on the read cluster (here: mocks answering the read as the cloud would)."""
    import pulumi

    from pathways_gke.program import main as program

    cloud = Cloud(reads={CLUSTER: lambda args: {**FULL_CLUSTER, "workloadIdentityConfig": {"workloadPool": ""},
                                                "name": "pw-dev", "endpoint": "10.0.0.2",
                                                "masterAuth": {"clusterCaCertificate": "Q0E="}}})
    with pytest.raises(pulumi.RunError, match="no Workload Identity pool"):
        run(program, stack="adopt", config=stack("dev", cluster=ADOPT), mocks=cloud)


# --- queued provisioning: one PodSet --------------------------------------------------------------------------


@pytest.mark.slow
def test_queued_provisioning_manages_only_the_tpu_pod_set_of_a_pathways_jobset():
    """GKE accepts one PodSet per ProvisioningRequest (ray-project/ray#59070): the head (CPU) must not be managed."""
    cfg = every_optional_child_config()
    cfg[P + "workloads"].append({"name": "burst-train", "runtime": "pathways", "tpuPool": "burst",
                                 "image": "us-docker.pkg.dev/acme-ml-prod/train/trainer:2026-11-20",
                                 "command": "python3 train.py",
                                 "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}})
    plan = plan_config(cfg, stack="queued")
    (config,) = [r for r in plan.to_json()["resources"] if r["inputs"].get("kind") == "ProvisioningRequestConfig"]
    assert config["inputs"]["spec"]["managedResources"] == [TPU_RESOURCE]
    jobset = plan.named("pw-prod-burst-train-jobset").inputs
    by_job = {j["name"]: j["template"]["spec"]["template"]["spec"] for j in jobset["spec"]["replicatedJobs"]}
    requests = {name: any(TPU_RESOURCE in (c.get("resources") or {}).get("limits", {})
                          for c in spec["containers"] + spec.get("initContainers", []))
                for name, spec in by_job.items()}
    assert requests == {"pathways-head": False, "worker": True}
    (pool,) = [r for r in plan.of_type(NODE_POOL) if r.name == "pw-prod-burst-0"]
    assert pool.inputs["management"]["autoRepair"] is False and pool.inputs["nodeConfig"]["flexStart"] is True


# --- the diff knows the traps ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def variant_json(variant_plan_json):
    return variant_plan_json


def test_the_bridge_replaces_an_explicitly_named_resource_delete_first(variant_json):
    """pulumi-terraform-bridge Diff: an explicit value of an autonamed field (pulumi-gcp SetAutonaming: `name`)
    makes the bridge ask for delete-before-replace itself, so a fixed name is never replaced create-first into a
    409, with or without the option."""
    old = edited(variant_json, "pw-prod-webhooks", options__deleteBeforeReplace=False)
    new = edited(old, "pw-prod-webhooks", inputs__direction="EGRESS")  # ForceNew in google_compute_firewall
    diff = diff_plans(old, new)
    (change,) = [c for c in diff.changed if c.name == "pw-prod-webhooks"]
    assert webhook_firewall_name("pw-prod", "us-east5") == change_name(new, "pw-prod-webhooks")
    assert change.replace and change.replace_mode == "delete-first" and change.name_clash is None
    assert "409 already exists" not in render_text(diff) and "409 already exists" not in render_markdown(diff)
    # the firewall's network is not ForceNew in TFB v7.42.0: an update, not a replacement
    network = diff_plans(variant_json, edited(variant_json, "pw-prod-webhooks", inputs__network="other-vpc"))
    assert [c.verdict for c in network.changed if c.name == "pw-prod-webhooks"] == ["update"]


def change_name(plan, name):
    return next(r for r in plan["resources"] if r["name"] == name)["inputs"]["name"]


def test_the_diff_flags_a_tpu_pool_replaced_over_a_field_gke_fills_in(variant_json):
    old = edited(variant_json, "pw-prod-train-0", options__ignoreChanges=[],
                 inputs__nodeConfig__advancedMachineFeatures={"threadsPerCore": 1})
    new = edited(variant_json, "pw-prod-train-0", options__ignoreChanges=[])
    diff = diff_plans(old, new)
    (change,) = [c for c in diff.changed if c.name == "pw-prod-train-0"]
    assert change.replace and change.server_filled == ("nodeConfig.advancedMachineFeatures",)
    text = render_text(diff)
    assert "fills in itself" in text and "ignoreChanges" in text
    assert "fills in itself" in render_markdown(diff)
    # with the pools' own ignoreChanges the same drift is no change at all
    ours = diff_plans(edited(variant_json, "pw-prod-train-0",
                             inputs__nodeConfig__advancedMachineFeatures={"threadsPerCore": 1}), variant_json)
    assert not [c for c in ours.changed if c.name == "pw-prod-train-0"]


def test_moving_tpu7x_pools_off_compact_replaces_nothing(variant_json):
    """Pools created with the old COMPACT + topology form plan no replacement: GKE's stored fields are ignored."""
    old = copy.deepcopy(variant_json)
    for r in old["resources"]:
        if r["type"] == NODE_POOL and r["inputs"]["nodeConfig"]["machineType"].startswith("tpu7x"):
            r["inputs"]["placementPolicy"] = {**r["inputs"]["placementPolicy"], "type": "COMPACT",
                                              "tpuTopology": "2x2x2"}
    assert not [c for c in diff_plans(old, variant_json).changed if c.replace]


def test_every_managed_gce_label_key_is_refused_and_the_list_is_what_the_plans_send(stack_plans):
    sent = set()
    for name in STACKS:
        for r in stack_plans(name).to_json()["resources"]:
            labels = r["inputs"].get("resourceLabels") or (r["inputs"].get("nodeConfig") or {}).get("resourceLabels")
            if labels:
                sent |= set(labels)
    user = set(stack("prod")[P + "cluster"].get("labels", {}))
    assert sent - user == set(MANAGED_GCE_LABELS)


def test_the_diff_and_the_pools_read_one_list_of_server_filled_fields(variant_json):
    from pathways_gke.plan import replacements

    assert replacements.SERVER_FILLED_NODE_POOL_FIELDS == (*R.SERVER_FILLED_TPU_FIELDS,
                                                           *R.SERVER_FILLED_WORKLOAD_POLICY_FIELDS)
    tpu7x = [r for r in variant_json["resources"] if r["type"] == NODE_POOL
             and r["inputs"]["nodeConfig"]["machineType"].startswith("tpu7x")]
    assert tpu7x and all(set(replacements.SERVER_FILLED_NODE_POOL_FIELDS) <= set(r["options"]["ignoreChanges"])
                         for r in tpu7x)

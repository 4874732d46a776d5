"""Acceptance: real plans of dev-stack variants through `pathways-gke diff` (the CLI, in process)."""

import json

import pytest
import yaml

from pathways_gke.cli import main
from pathways_gke.plan.diff import diff_plans, load_source_plan
from pathways_gke.tokens import NODE_POOL
from tests.conftest import ROOT
from tests.support.stacks import merged

JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
DEV = ROOT / "stacks" / "Pulumi.dev.yaml"


def variant(tmp_path, edit, name="Pulumi.dev.yaml"):
    """A copy of the dev stack file with `edit(config)` applied, in its own directory."""
    data = yaml.safe_load(DEV.read_text())
    edit(data["config"])
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def run_cli(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def dev_plan():
    return load_source_plan(str(DEV), ROOT)


def jobsets(plan):
    return [r for r in plan["resources"] if r["type"] == JOBSET]


def need_jobsets(plan):
    if not jobsets(plan):
        pytest.skip("the dev plan has no workload JobSet yet (the workload component, issues 4/5, is not merged)")


def set_image(config):
    config["pathways-gke:workloads"][0]["image"] = "us-docker.pkg.dev/acme-ml-dev/train/trainer:2026-12-01"


def add_slice(config):
    config["pathways-gke:tpuPools"][0]["slices"] += 1


def set_topology(config):
    config["pathways-gke:tpuPools"][0]["topology"] = "4x4"


@pytest.mark.slow
def test_changing_the_workload_image_changes_exactly_one_resource(tmp_path, capsys, dev_plan):
    need_jobsets(dev_plan)
    code, out, _ = run_cli(capsys, "diff", str(DEV), str(variant(tmp_path, set_image)), "--json",
                           "--project-dir", str(ROOT))
    result = json.loads(out)
    assert code == 0 and result["added"] == [] and result["removed"] == []
    [change] = result["changed"]
    assert change["type"] == JOBSET
    assert all(p.endswith(".image") for p in change["properties"]), change["properties"]


@pytest.mark.slow
def test_adding_a_slice_adds_one_node_pool_and_replaces_the_jobset(tmp_path, capsys, dev_plan):
    code, out, _ = run_cli(capsys, "diff", str(DEV), str(variant(tmp_path, add_slice)), "--json",
                           "--project-dir", str(ROOT))
    result = json.loads(out)
    new = load_source_plan(str(tmp_path / "Pulumi.dev.yaml"), ROOT)
    types = {r["urn"]: r["type"] for r in new["resources"]}
    assert code == 0 and result["removed"] == []
    assert [types[u] for u in result["added"]] == [NODE_POOL]
    assert result["added"][0].endswith("::pw-dev-main-1")
    assert not [c for c in result["changed"] if c["type"] == NODE_POOL], "existing slices must not change"
    need_jobsets(dev_plan)
    replaced = [c for c in result["changed"] if c["type"] == JOBSET]
    assert replaced and all(c["replace"] for c in replaced)


def _lists_placement(plan, urn):
    resource = next(r for r in plan["resources"] if r["urn"] == urn)
    return any(p in ("placementPolicy", "placementPolicy.tpuTopology") for p in resource["options"]["replaceOnChanges"])


@pytest.mark.slow
def test_changing_a_tpu_topology_replaces_the_pool_only_when_it_lists_its_placement(tmp_path, capsys, dev_plan):
    """placementPolicy is a ForceNew block whose tpuTopology is not ForceNew: the bridge updates, and the node-pool
    update never sends placement_policy (TestBlockCollectionForceNew; TFB nodePoolUpdate). A pool that lists its
    placement in replaceOnChanges is replaced; one that does not is an update never applied: refused, exit 4.
    Text, JSON and Markdown say the same."""
    new = variant(tmp_path, set_topology)
    code, out, _ = run_cli(capsys, "diff", str(DEV), str(new), "--json", "--project-dir", str(ROOT))
    result = json.loads(out)
    [pool] = [c for c in result["changed"] if c["type"] == NODE_POOL]
    assert pool["urn"].endswith("::pw-dev-main-0")
    code_text, text, _ = run_cli(capsys, "diff", str(DEV), str(new), "--project-dir", str(ROOT),
                                 "--fail-on-node-pool-disruption")
    code_md, md, _ = run_cli(capsys, "diff", str(DEV), str(new), "--markdown", "--project-dir", str(ROOT))
    if _lists_placement(dev_plan, pool["urn"]):
        assert code == 0 and pool["verdict"] == "replace" and "placementPolicy.tpuTopology" in pool["replaceReasons"]
        workloads = [c for c in result["changed"] if c["type"] == JOBSET]
        assert all(c["replace"] and pool["urn"] in c["replacedWith"] for c in workloads)
        assert code_text == 3 and "!! node pool pw-dev-main-0 will be REPLACED" in text
        assert code_md == 0 and "> [!CAUTION]" in md and "```mermaid" in md
    else:
        assert code == 4 and pool["verdict"] == "refused" and not pool["replace"]
        assert [r["rule"] for r in pool["refusals"]] == ["tpu-placement-not-applied"]
        assert code_text == 4 and "[tpu-placement-not-applied]" in text
        assert code_md == 4 and "| **REFUSED** | `pw-dev-main-0`" in md


def _set(path, value):
    def edit(config):
        section, *rest = path.split(".")
        target = config.setdefault(f"pathways-gke:{section}", {})
        for key in rest[:-1]:
            target = target.setdefault(key, {})
        target[rest[-1]] = value
    return edit


def _adopt(config):
    cluster = config["pathways-gke:cluster"]
    cluster["create"] = False
    for key in ("releaseChannel", "deletionProtection"):
        cluster.pop(key, None)


# (edit, the verdict of the named resource, the exit code): every verdict as its source gives it, in the CLI's JSON
CATALOGUE = [
    # privateNodes adds privateClusterConfig.enablePrivateNodes (updatable): an in-place cluster update, no cascade
    ("privateNodes", _set("cluster.privateNodes", True), "pw-dev-cluster", "update", 0),
    # created -> adopted: a relinquish (same ID, nothing deleted), never "delete the user's cluster"
    ("adopt", _adopt, "pw-dev-cluster", "relinquish", 0),
    # a new network re-creates the cluster: the provider's clusterIdentifier reads the new cluster's CA (unknown),
    # so DiffConfig replaces the provider, and with it every object: nothing is left behind, nothing refused
    ("network", _set("cluster.network", "other-vpc"), "pw-dev-kubernetes", "replace", 0),
    # kube-dns -> Cloud DNS is allowed in place on a Standard cluster (only an existing scope cannot change)
    ("dns auto -> cloud-dns", _set("cluster.dns", "cloud-dns"), "pw-dev-cluster", "update", 0),
    # nodeConfig.serviceAccount is ForceNew inside the ForceNew nodeConfig block: the pools are replaced
    ("node service account", _set("cluster.nodeServiceAccount",
                                  {"create": False, "email": "tpu-nodes@acme-ml-dev.iam.gserviceaccount.com"}),
     "pw-dev-main-0", "replace", 0),
]


@pytest.mark.slow
@pytest.mark.parametrize("label, edit, name, verdict, code", CATALOGUE, ids=[c[0] for c in CATALOGUE])
def test_the_edit_catalogue_on_the_dev_stack(tmp_path, capsys, label, edit, name, verdict, code):
    new = variant(tmp_path, edit)
    got, out, _ = run_cli(capsys, "diff", str(DEV), str(new), "--json", "--project-dir", str(ROOT))
    result = json.loads(out)
    verdicts = {c["name"]: c["verdict"] for c in result["changed"]}
    assert verdicts.get(name) == verdict, (label, verdicts)
    assert got == code, (label, result.get("refused"))
    # text and Markdown say the same, with the same exit code
    text_code, text, _ = run_cli(capsys, "diff", str(DEV), str(new), "--project-dir", str(ROOT))
    md_code, md, _ = run_cli(capsys, "diff", str(DEV), str(new), "--markdown", "--project-dir", str(ROOT))
    assert text_code == md_code == code
    row = {"update": "update", "relinquish": "relinquish", "replace": "**REPLACE**", "refused": "**REFUSED**"}[verdict]
    assert f"| {row} | `{name}`" in md
    tag = {"update": "[update in place]", "relinquish": "[relinquish", "replace": "[replace",
           "refused": "[REFUSED"}[verdict]
    assert any(f"  {name}  {tag}" in line for line in text.splitlines()), text
    if label == "network":
        objects = [c for c in result["changed"] if c["type"].startswith("kubernetes:")]
        assert objects and all(c["replace"] for c in objects) and not result.get("refused")
    if label == "privateNodes":
        assert [c["name"] for c in result["changed"] if c["replace"]] == []
    if label == "adopt":
        assert not [u for u in result["removed"] if "container/cluster" in u]
        # and back: adopted -> created is a create that GKE refuses with 409 (exit 4)
        back_code, back, _ = run_cli(capsys, "diff", str(new), str(DEV), "--json", "--project-dir", str(ROOT))
        refused = json.loads(back)["refused"]
        assert back_code == 4 and {r["rule"] for r in refused} >= {"adopted-create-409"}


@pytest.mark.slow
def test_a_master_cidr_change_replaces_the_cluster_and_says_what_happens_to_the_objects(tmp_path, capsys):
    """A new master CIDR is a ForceNew attribute: the cluster is replaced. pulumi-kubernetes replaces the objects
    only if its DiffConfig says so (a clusterIdentifier that changes with the cluster instance); otherwise they
    stay `same` in the state and are absent from the new cluster: the diff refuses that (exit 4)."""
    base = variant(tmp_path, _set("cluster.privateNodes", True), "Pulumi.base.yaml")
    new = variant(tmp_path, lambda c: (_set("cluster.privateNodes", True)(c),
                                       _set("cluster.masterIpv4CidrBlock", "172.16.8.0/28")(c)))
    code, out, _ = run_cli(capsys, "diff", str(base), str(new), "--json", "--project-dir", str(ROOT))
    result = json.loads(out)
    changes = {c["name"]: c for c in result["changed"]}
    assert changes["pw-dev-cluster"]["verdict"] == "replace"
    assert all(changes[n]["replace"] for n in changes if n.startswith("pw-dev-main") or n == "pw-dev-cpu")
    objects = [c for c in result["changed"] if c["type"].startswith("kubernetes:") and c.get("providerReplaced")]
    left = [c for c in result["changed"] if any(r["rule"] == "k8s-objects-left-behind" for r in c.get("refusals", []))]
    assert objects or left  # every Kubernetes object is either replaced with the cluster or reported left behind
    assert code == (4 if left else 0)
    code_md, md, _ = run_cli(capsys, "diff", str(base), str(new), "--markdown", "--project-dir", str(ROOT))
    assert code_md == code and (("k8s-objects-left-behind" in md) == bool(left))


@pytest.mark.slow
def test_plan_json_files_diff_like_stack_files(tmp_path, capsys, dev_plan):
    old_json = tmp_path / "old.json"
    old_json.write_text(json.dumps(dev_plan))
    new_yaml = variant(tmp_path, add_slice)
    code, out, _ = run_cli(capsys, "plan", "--config", str(new_yaml), "--json", "--project-dir", str(ROOT))
    new_json = tmp_path / "new.json"
    new_json.write_text(out)
    code_a, by_files, _ = run_cli(capsys, "diff", str(old_json), str(new_json), "--json")
    code_b, by_configs, _ = run_cli(capsys, "diff", str(DEV), str(new_yaml), "--json", "--project-dir", str(ROOT))
    assert code == code_a == code_b == 0 and by_files == by_configs


@pytest.mark.slow
def test_diff_exit_codes(tmp_path, capsys, dev_plan):
    same = tmp_path / "same.json"
    same.write_text(json.dumps(dev_plan))
    assert run_cli(capsys, "diff", str(same), str(same), "--exit-code")[0] == 0
    changed = variant(tmp_path, add_slice)
    assert run_cli(capsys, "diff", str(DEV), str(changed), "--exit-code", "--project-dir", str(ROOT))[0] == 1
    not_a_plan = tmp_path / "x.json"
    not_a_plan.write_text("{}")
    code, _, err = run_cli(capsys, "diff", str(not_a_plan), str(same))
    assert code == 2 and "not a plan" in err
    bad = variant(tmp_path, lambda c: c["pathways-gke:tpuPools"][0].update(topology="3x3"), "Pulumi.bad.yaml")
    code, _, err = run_cli(capsys, "diff", str(DEV), str(bad), "--project-dir", str(ROOT))
    assert code == 2 and "tpuPools[0]" in err


@pytest.mark.slow
def test_graph_command_prints_mermaid_and_dot(capsys, tmp_path, dev_plan):
    from tests.support.mermaid import grammar_errors

    code, mermaid, _ = run_cli(capsys, "graph", "--stack", "dev", "--project-dir", str(ROOT))
    assert code == 0 and mermaid.startswith("flowchart LR\n") and grammar_errors(mermaid) == []
    plan_file = tmp_path / "plan.json"
    plan_file.write_text(json.dumps(dev_plan))
    code, dot, _ = run_cli(capsys, "graph", "--plan", str(plan_file), "--format", "dot")
    assert code == 0 and dot.startswith('digraph "dev" {')


@pytest.mark.slow
def test_plan_runs_the_policies_and_refuses_an_unprotected_production_cluster(tmp_path, capsys):
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(yaml.safe_dump({"config": merged("prod", cluster={"protect": False})}))
    code, out, err = run_cli(capsys, "plan", "--config", str(path), "--json", "--project-dir", str(ROOT))
    assert code == 3
    assert json.loads(out)["stack"] == "prod"  # stdout stays the plan
    assert "[mandatory] pathways-gke-protect-production: pw-prod-cluster: production cluster is not protected" in err

    config = tmp_path / "policy.json"
    config.write_text(json.dumps({"pathways-gke-protect-production": "advisory"}))
    code, _, err = run_cli(capsys, "plan", "--config", str(path), "--policy-config", str(config),
                           "--project-dir", str(ROOT))
    assert code == 0 and "[advisory]" in err
    assert run_cli(capsys, "plan", "--config", str(path), "--skip-policy", "--project-dir", str(ROOT))[0] == 0

    config.write_text(json.dumps({"pathways-gke-no-such-rule": "advisory"}))
    code, _, err = run_cli(capsys, "plan", "--config", str(path), "--policy-config", str(config),
                           "--project-dir", str(ROOT))
    assert code == 2 and "pathways-gke-no-such-rule" in err


@pytest.mark.slow
def test_the_shipped_stacks_plan_without_violations(capsys):
    for stack in ("dev", "prod"):
        code, _, err = run_cli(capsys, "plan", "--stack", stack, "--json", "--project-dir", str(ROOT))
        assert code == 0 and "violation" not in err


def test_same_stack_diff_against_itself_is_empty(dev_plan):
    assert diff_plans(dev_plan, dev_plan).empty


# --- the edit catalogue through the CLI (text, JSON and Markdown alike) -----------------------------------------

SERVE = ROOT / "stacks" / "Pulumi.serve.yaml"
LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"


def stack_variant(tmp_path, source, edit, name):
    data = yaml.safe_load(source.read_text())
    edit(data["config"])
    path = tmp_path / name / source.name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def kueue_on(config):
    config["pathways-gke:kueue"] = {"enabled": True}


def serving_edit(change):
    def edit(config):
        kueue_on(config)
        change(config["pathways-gke:workloads"][0])
    return edit


# (case, edit of the Kueue-managed serving workload, the LeaderWorkerSet's verdict). Kueue v0.19 freezes the pod
# shape (container count, requests, ports, ...) and the group size; pathways-gke replaces the LWS on those, and
# everything else rolls in place. No case is refused: the product never sends what Kueue refuses.
KUEUE_SERVING_EDITS = [
    ("a new image rolls", lambda w: w.update(image=w["image"].replace("2026-11-20", "2026-12-01")), "update"),
    ("a new env value rolls", lambda w: w["env"].update(EXTRA="1"), "update"),
    ("fewer replicas scale", lambda w: w["serving"].update(replicas=1), "update"),
    ("new limits roll (Kueue freezes requests only)",
     lambda w: w.update(resources={"limits": {"cpu": "30", "memory": "120G"}}), "update"),
    ("new requests replace", lambda w: w.update(resources={"requests": {"cpu": "4", "memory": "16Gi"}}), "replace"),
    ("an appended sidecar replaces (the container count)",
     lambda w: w.update(sidecars=[{"name": "tb", "image": "us-docker.pkg.dev/acme-ml-prod/serve/tb:1",
                                   "command": ["tensorboard"]}]), "replace"),
]


@pytest.mark.slow
@pytest.mark.parametrize("case,change,verdict", KUEUE_SERVING_EDITS, ids=[c[0] for c in KUEUE_SERVING_EDITS])
def test_kueue_managed_serving_edits_get_the_verdict_kueue_v019_gives(tmp_path, capsys, case, change, verdict):
    old = stack_variant(tmp_path, SERVE, kueue_on, "old")
    new = stack_variant(tmp_path, SERVE, serving_edit(change), "new")
    code, out, err = run_cli(capsys, "diff", str(old), str(new), "--json", "--project-dir", str(ROOT))
    assert code == 0, err
    result = json.loads(out)
    lws = [c for c in result["changed"] if c["type"] == LWS and "llama-serve" in c["name"]]
    assert lws and {c["verdict"] for c in lws} == {verdict}, [(c["name"], c["verdict"], c["properties"]) for c in lws]
    assert not result.get("refused")
    code, text, _ = run_cli(capsys, "diff", str(old), str(new), "--project-dir", str(ROOT))
    assert code == 0 and ("[replace, delete-first]" if verdict == "replace" else "[update in place]") in text
    code, md, _ = run_cli(capsys, "diff", str(old), str(new), "--markdown", "--no-graph", "--project-dir", str(ROOT))
    (row,) = [line for line in md.splitlines() if line.startswith("|") and "pw-serve-llama-serve-lws" in line]
    assert code == 0 and row.startswith("| **REPLACE**" if verdict == "replace" else "| update") and "REFUSED" not in md


def set_dns(value):
    def edit(config):
        config["pathways-gke:cluster"]["dns"] = value
    return edit


# (from, to, exit code, the cluster's verdict): GKE's Cloud DNS docs (Standard: kube-dns -> Cloud DNS in place;
# a set scope is fixed).
DNS_EDITS = [
    ("gke-default", "cloud-dns", 0, "update"),
    ("cloud-dns", "gke-default", 4, "refused"),
]


@pytest.mark.slow
@pytest.mark.parametrize("old_dns,new_dns,exit_code,verdict", DNS_EDITS, ids=[f"{c[0]}->{c[1]}" for c in DNS_EDITS])
def test_cluster_dns_edits_through_the_cli(tmp_path, capsys, old_dns, new_dns, exit_code, verdict):
    old = stack_variant(tmp_path, DEV, set_dns(old_dns), "old")
    new = stack_variant(tmp_path, DEV, set_dns(new_dns), "new")
    code, out, _ = run_cli(capsys, "diff", str(old), str(new), "--json", "--project-dir", str(ROOT))
    assert code == exit_code
    (cluster,) = [c for c in json.loads(out)["changed"] if c["type"] == "gcp:container/cluster:Cluster"]
    assert cluster["verdict"] == verdict
    code, text, _ = run_cli(capsys, "diff", str(old), str(new), "--project-dir", str(ROOT))
    assert code == exit_code and ("gke-dns-scope" in text) == (verdict == "refused")
    code, md, _ = run_cli(capsys, "diff", str(old), str(new), "--markdown", "--no-graph", "--project-dir", str(ROOT))
    assert code == exit_code and ("gke-dns-scope" in md) == (verdict == "refused")

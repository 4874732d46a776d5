"""The apply-outcome model (apply_rules.py) against its sources, and `pathways-gke diff`'s verdicts on real edits.

The edit catalogue plans a shipped stack before and after one realistic config change and checks, per resource,
what the real `pulumi up` does: update in place, replace (create- or delete-first, with its cascade) or refused.
"""

from __future__ import annotations

import copy
import json

import pytest

from pathways_gke import apply_rules as A
from pathways_gke import tokens
from pathways_gke.cli import main
from pathways_gke.plan.diff import diff_plans
from pathways_gke.plan.engine import plan_config
from pathways_gke.protection import CHILD_PROTECTION, REPLACEABLE, child_options, retain_child
from tests.support.stacks import merged, shipped
from tests.support.variants import every_optional_child_config

P = "pathways-gke:"


# --- the rules, against the cases their sources give ---------------------------------------------------------


def test_every_rule_names_its_source_and_every_refusal_its_way_out():
    assert len(A.RULES_BY_ID) == len(A.RULES)
    for rule in A.RULES:
        assert rule.source and rule.actor in (A.PROVIDER, A.GKE, A.KUBERNETES, A.WEBHOOK, A.CONTROLLER, A.ENGINE,
                                             A.POLICY, A.STORAGE)
        if rule.effect == A.REFUSE:
            assert rule.way_out, rule.id


def test_pulumi_kubernetes_replaces_a_service_only_on_cluster_ip():
    """provider/pkg/provider/diff.go: core/v1 Service forceNew is `.spec.clusterIP` alone."""
    patterns = A.replace_patterns(tokens.SERVICE, {"apiVersion": "v1"})
    assert A.forces_replace(patterns, "metadata")  # name / namespace
    assert "spec.clusterIP" in patterns and "spec.type" not in patterns
    assert set(A.K8S_FORCE_NEW[tokens.JOB]) >= {"spec.template", "spec.selector", "spec.completions"}
    assert A.K8S_FORCE_NEW[tokens.DEPLOYMENT] == ("spec.selector",)
    # custom resources: only identity
    assert A.replace_patterns(tokens.JOBSET, {"apiVersion": "jobset.x-k8s.io/v1alpha2"}) == A.K8S_IDENTITY


def test_pulumi_kubernetes_deletes_a_named_object_first_only_when_it_keeps_its_name():
    old = {"apiVersion": "v1", "metadata": {"name": "a", "namespace": "ns"}}
    assert A.provider_deletes_first(tokens.SERVICE, old, copy.deepcopy(old))
    assert not A.provider_deletes_first(tokens.SERVICE, old, {"apiVersion": "v1", "metadata": {"name": "b",
                                                                                               "namespace": "ns"}})
    # the bridge deletes first for an explicit name of an autonamed field (nameRequiresDeleteBeforeReplace) ...
    assert A.provider_deletes_first(tokens.NODE_POOL, {"name": "a"}, {"name": "a"})
    assert not A.provider_deletes_first(tokens.NODE_POOL, {}, {"namePrefix": "a"})
    # ... and for the resources pulumi-gcp marks DeleteBeforeReplace (projects IAMMember, no name at all)
    assert A.provider_deletes_first(tokens.PROJECT_IAM_MEMBER, {}, {"role": "r", "member": "m", "project": "p"})
    assert not A.provider_deletes_first(tokens.BUCKET_IAM_MEMBER, {}, {"role": "r", "member": "m", "bucket": "b"})


def _lws(queue=None, cpu="4", image="img"):
    labels = {A.QUEUE_NAME_PATH.split('"')[1]: queue} if queue else {}
    pod = {"spec": {"containers": [{"name": "c", "image": image, "resources": {"requests": {"cpu": cpu}}}]}}
    return {"apiVersion": "leaderworkerset.x-k8s.io/v1", "metadata": {"name": "s", "labels": labels},
            "spec": {"leaderWorkerTemplate": {"leaderTemplate": copy.deepcopy(pod), "workerTemplate": pod}}}


def _refused(type_, old, new):
    from pathways_gke.property_paths import changed_paths, format_path
    paths = [format_path(p) for p in changed_paths(old, new)]
    return sorted({r.rule for r in A.update_refusals(type_, old, new, paths)})


def test_kueue_refuses_the_queue_name_label_on_a_leader_worker_set_and_freezes_its_pod_templates():
    """kueue pkg/controller/jobs/leaderworkerset/leaderworkerset_webhook.go ValidateUpdate."""
    assert _refused(tokens.LEADER_WORKER_SET, _lws(), _lws(queue="q")) == ["kueue-lws-queue-name"]
    assert _refused(tokens.LEADER_WORKER_SET, _lws(queue="q"), _lws()) == ["kueue-lws-queue-name"]
    assert _refused(tokens.LEADER_WORKER_SET, _lws(queue="q"), _lws(queue="q", cpu="8")) == ["kueue-lws-pod-template"]
    # the image is not among the fields Kueue freezes; without Kueue requests change freely (the LWS rolls)
    assert _refused(tokens.LEADER_WORKER_SET, _lws(queue="q"), _lws(queue="q", image="img2")) == []
    assert _refused(tokens.LEADER_WORKER_SET, _lws(), _lws(cpu="8")) == []
    no_leader = _lws(queue="q")
    del no_leader["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
    assert "kueue-lws-pod-template" in _refused(tokens.LEADER_WORKER_SET, _lws(queue="q"), no_leader)


def test_kueue_refuses_a_queue_name_change_on_a_jobset():
    old = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "metadata": {"name": "j", "labels": {}}, "spec": {}}
    new = copy.deepcopy(old)
    new["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] = "q"
    assert _refused(tokens.JOBSET, old, new) == ["kueue-jobset-queue-name"]


def _cluster(dns=None, scope=None):
    out = {"name": "c", "minMasterVersion": "1.34"}
    if dns:
        out["dnsConfig"] = {"clusterDns": dns, **({"clusterDnsScope": scope} if scope else {})}
    return out


# GKE Cloud DNS docs: a Standard cluster may switch kube-dns -> Cloud DNS in place; a scope, once set, is fixed.
DNS_CASES = [
    ("kube-dns -> Cloud DNS, cluster scope", _cluster(), _cluster("CLOUD_DNS", "CLUSTER_SCOPE"), []),
    ("kube-dns -> Cloud DNS, VPC scope", _cluster(), _cluster("CLOUD_DNS", "VPC_SCOPE"), []),
    ("explicit default provider -> Cloud DNS", _cluster("PLATFORM_DEFAULT"), _cluster("CLOUD_DNS", "CLUSTER_SCOPE"),
     []),
    ("cluster scope -> VPC scope", _cluster("CLOUD_DNS", "CLUSTER_SCOPE"), _cluster("CLOUD_DNS", "VPC_SCOPE"),
     ["gke-dns-scope"]),
    ("VPC scope -> cluster scope", _cluster("CLOUD_DNS", "VPC_SCOPE"), _cluster("CLOUD_DNS", "CLUSTER_SCOPE"),
     ["gke-dns-scope"]),
    ("Cloud DNS -> kube-dns (the scope goes)", _cluster("CLOUD_DNS", "CLUSTER_SCOPE"), _cluster(), ["gke-dns-scope"]),
    ("unchanged scope, another field", _cluster("CLOUD_DNS", "CLUSTER_SCOPE"),
     {**_cluster("CLOUD_DNS", "CLUSTER_SCOPE"), "minMasterVersion": "1.35"}, []),
    ("no DNS involved", _cluster(), {**_cluster(), "minMasterVersion": "1.35"}, []),
]


@pytest.mark.parametrize("case,old,new,expected", DNS_CASES, ids=[c[0] for c in DNS_CASES])
def test_gke_refuses_only_a_change_of_an_existing_cloud_dns_scope(case, old, new, expected):
    assert _refused(tokens.GKE_CLUSTER, old, new) == expected


def _with(lws, path, value):
    """`lws` with the value at a dotted path (list indexes as ints) set."""
    out = copy.deepcopy(lws)
    parts = [int(p) if p.isdigit() else p for p in path.split(".")]
    node = out
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value
    return out


W = "spec.leaderWorkerTemplate.workerTemplate.spec"
L = "spec.leaderWorkerTemplate.leaderTemplate.spec"


def _append_container(lws, template=W):
    out = copy.deepcopy(lws)
    node = out
    for part in template.split("."):
        node = node[part]
    node["containers"].append({"name": "sidecar", "image": "side"})
    return out


# Kueue v0.19.2 leaderworkerset_webhook.go ValidateUpdate + pkg/util/pod/pod.go SpecShape: (case, edit of a managed
# LeaderWorkerSet, the rules that refuse it).
KUEUE_LWS_CASES = [
    ("image rolls", lambda s: _with(s, f"{W}.containers.0.image", "img2"), []),
    ("env rolls", lambda s: _with(s, f"{W}.containers.0.env", [{"name": "A", "value": "1"}]), []),
    ("container limits are not frozen", lambda s: _with(s, f"{W}.containers.0.resources.limits", {"cpu": "9"}), []),
    ("pod-level limits are not frozen",
     lambda s: _with(_with(s, f"{W}.resources", {"requests": {"cpu": "1"}}), f"{W}.resources.limits", {"cpu": "9"}),
     "same as before"),
    # SpecShape adds a `resources` key whenever the pod-level block is set: a limits-only block is a new key
    ("a pod-level block with limits only", lambda s: _with(s, f"{W}.resources", {"limits": {"cpu": "9"}}),
     ["kueue-lws-pod-template"]),
    ("replicas scale", lambda s: _with(s, "spec.replicas", 3), []),
    ("priorityClassName is not in the shape", lambda s: _with(s, f"{W}.priorityClassName", "high"), []),
    ("an empty nodeSelector is no nodeSelector", lambda s: _with(s, f"{W}.nodeSelector", {}), []),
    ("container requests", lambda s: _with(s, f"{W}.containers.0.resources.requests.cpu", "8"),
     ["kueue-lws-pod-template"]),
    ("leader container requests", lambda s: _with(s, f"{L}.containers.0.resources.requests.cpu", "8"),
     ["kueue-lws-pod-template"]),
    ("container ports", lambda s: _with(s, f"{W}.containers.0.ports", [{"containerPort": 80}]),
     ["kueue-lws-pod-template"]),
    ("an appended container", _append_container, ["kueue-lws-pod-template"]),
    ("an appended leader container", lambda s: _append_container(s, L), ["kueue-lws-pod-template"]),
    ("an init container", lambda s: _with(s, f"{W}.initContainers", [{"name": "i", "image": "x"}]),
     ["kueue-lws-pod-template"]),
    ("nodeSelector", lambda s: _with(s, f"{W}.nodeSelector", {"a": "b"}), ["kueue-lws-pod-template"]),
    ("affinity", lambda s: _with(s, f"{W}.affinity", {"nodeAffinity": {"x": 1}}), ["kueue-lws-pod-template"]),
    ("tolerations", lambda s: _with(s, f"{W}.tolerations", [{"key": "k", "operator": "Exists"}]),
     ["kueue-lws-pod-template"]),
    ("runtimeClassName", lambda s: _with(s, f"{W}.runtimeClassName", "gvisor"), ["kueue-lws-pod-template"]),
    ("priority", lambda s: _with(s, f"{W}.priority", 1000), ["kueue-lws-pod-template"]),
    ("topologySpreadConstraints", lambda s: _with(s, f"{W}.topologySpreadConstraints", [{"maxSkew": 1}]),
     ["kueue-lws-pod-template"]),
    ("overhead", lambda s: _with(s, f"{W}.overhead", {"cpu": "250m"}), ["kueue-lws-pod-template"]),
    ("resourceClaims", lambda s: _with(s, f"{W}.resourceClaims", [{"name": "gpu"}]), ["kueue-lws-pod-template"]),
    ("pod-level requests", lambda s: _with(s, f"{W}.resources", {"requests": {"cpu": "9"}}),
     ["kueue-lws-pod-template"]),
    ("group size (LWSImmutableGroupSize)", lambda s: _with(s, "spec.leaderWorkerTemplate.size", 5),
     ["kueue-lws-group-size"]),
]


@pytest.mark.parametrize("case,edit,expected", KUEUE_LWS_CASES, ids=[c[0] for c in KUEUE_LWS_CASES])
def test_kueue_freezes_exactly_the_pod_shape_and_group_size_of_a_managed_leader_worker_set(case, edit, expected):
    old = _with(_lws(queue="q"), "spec.leaderWorkerTemplate.size", 4)
    new = edit(old)
    if expected == "same as before":  # the edit changes only what Kueue leaves free, on top of a frozen field
        old, expected = _with(old, f"{W}.resources", {"requests": {"cpu": "1"}}), []
    assert _refused(tokens.LEADER_WORKER_SET, old, new) == expected
    # the product's frozen-shape digest (in replaceOnChanges) changes exactly when Kueue refuses the update
    assert (A.kueue_frozen_shape_digest(old) != A.kueue_frozen_shape_digest(new)) == bool(expected)
    # without Kueue the same edit meets none of Kueue's rules
    plain_old, plain_new = copy.deepcopy(old), copy.deepcopy(new)
    for o in (plain_old, plain_new):
        o["metadata"]["labels"] = {}
    assert [r for r in _refused(tokens.LEADER_WORKER_SET, plain_old, plain_new) if r.startswith("kueue")] == []


def test_kueue_accepts_every_startup_policy_on_create():
    """Kueue has no startup-policy check (LeaderReady supported since v0.11, kueue#4023): a legal create."""
    for policy in ("LeaderReady", "LeaderCreated"):
        lws = _lws(queue="q")
        lws["spec"]["startupPolicy"] = policy
        assert A.create_refusals(tokens.LEADER_WORKER_SET, lws) == []
    assert "kueue-lws-startup-policy" not in A.RULES_BY_ID


def test_the_kueue_replace_paths_cover_every_path_kueue_refuses():
    from pathways_gke.property_paths import covers, parse_path
    for path in ("metadata.labels[\"kueue.x-k8s.io/queue-name\"]",
                 "spec.leaderWorkerTemplate.workerTemplate.spec.containers[0].resources.requests.cpu",
                 "spec.leaderWorkerTemplate.leaderTemplate.spec.tolerations[1]",
                 "spec.leaderWorkerTemplate.workerTemplate.spec.nodeSelector",
                 "spec.leaderWorkerTemplate.size",
                 "spec.leaderWorkerTemplate.workerTemplate.spec.runtimeClassName",
                 'metadata.annotations["pathways-gke/kueue-frozen-shape"]'):
        assert any(covers(parse_path(p), parse_path(path)) for p in A.lws_kueue_replace_on_changes(_lws(queue="q")))
    assert A.lws_kueue_replace_on_changes(_lws()) == (A.QUEUE_NAME_PATH,)


def test_replaceable_children_are_never_retained_and_infrastructure_inherits():
    """inheritFromParent (source_eval.go): a retained component must not retain what is replaced delete-first."""
    for kind, rule in CHILD_PROTECTION.items():
        retain = retain_child(kind)
        if kind == "bucket":
            assert retain is True
        elif rule == REPLACEABLE:
            assert retain is False, kind
        else:
            assert retain is None, kind
    assert child_options("jobset", True) == {"protect": False, "retain_on_delete": False}


# --- the edit catalogue: real plans, real edits ----------------------------------------------------------------


def _plan(config, stack="dev"):
    return plan_config(config, stack=stack).to_json()


@pytest.fixture(scope="module")
def dev():
    return _plan(shipped("dev"))


def _by_name(diff):
    out = {c.name: c for c in diff.changed}
    return out


@pytest.mark.slow
def test_a_new_image_replaces_only_the_jobset_delete_first(dev):
    cfg = shipped("dev")
    cfg[P + "workloads"][0]["image"] = "us-docker.pkg.dev/acme-ml-dev/train/trainer:2026-12-01"
    diff = diff_plans(dev, _plan(cfg))
    replaced = [c for c in diff.changed if c.replace]
    assert [c.type for c in replaced] == [tokens.JOBSET]
    assert replaced[0].replace_mode == "delete-first" and not diff.refused


@pytest.mark.slow
def test_a_cpu_pool_resize_is_an_update_in_place(dev):
    diff = diff_plans(dev, _plan(merged("dev", cpuPool={"maxNodes": 3})))
    (change,) = diff.changed
    assert change.type == tokens.NODE_POOL and change.verdict == "update" and not diff.refused


@pytest.mark.slow
def test_a_new_cluster_location_replaces_every_pool_the_provider_and_every_object(dev, capsys, tmp_path):
    """The cluster is replaced delete-first: the engine's re-diff replaces every pool (`cluster` is force-new) and
    the Kubernetes provider, whose clusterIdentifier reads the cluster's CA certificate (unknown while it is
    replaced: pulumi-kubernetes DiffConfig replaces on a changed identifier), and with it every object."""
    new = _plan(merged("dev", cluster={"location": "us-central1"},
                       cpuPool={"zone": "us-central1-a"}, tpuPools=[{"zone": "us-central1-b"}]))
    diff = diff_plans(dev, new)
    changes = _by_name(diff)
    cluster = changes["pw-dev-cluster"]
    assert cluster.replace_mode == "delete-first"
    pools = [c for c in diff.changed if c.type == tokens.NODE_POOL]
    assert pools and all(c.replace for c in pools)
    provider = changes["pw-dev-kubernetes"]
    assert provider.replace and cluster.urn in provider.replaced_by and "clusterIdentifier" in \
        diff.new_resources[provider.urn]["propertyDependencies"]
    objects = [c for c in diff.changed if tokens.is_kubernetes_type(c.type) and c.type != tokens.CONFIG_FILE
               and "apiVersion" in diff.new_resources[c.urn]["inputs"]]
    assert objects and all(c.replace for c in objects)
    assert set(cluster.cascade) >= {provider.urn, *(c.urn for c in objects)}
    # the guard counts the pools; exit 3
    old_path, new_path = tmp_path / "old.json", tmp_path / "new.json"
    old_path.write_text(json.dumps(dev))
    new_path.write_text(json.dumps(new))
    assert main(["diff", str(old_path), str(new_path), "--fail-on-node-pool-disruption"]) == 3
    capsys.readouterr()


@pytest.mark.slow
def test_a_protected_pool_cannot_be_replaced_and_the_diff_fails_with_exit_4(capsys, tmp_path):
    base = merged("dev", cluster={"protect": True})
    old = _plan(base)
    new = _plan(merged(base, tpuPools=[{"capacity": "on-demand"}]))  # nodeConfig.spot: a ForceNew attribute
    diff = diff_plans(old, new)
    pools = [c for c in diff.changed if c.type == tokens.NODE_POOL and c.replace]
    assert pools and all(c.verdict == "refused" and c.refusals[0].rule == "protect-replace" for c in pools)
    # the JobSet is replaced with its pools, and is never protected
    assert all(c.verdict == "replace" for c in diff.changed if c.type == tokens.JOBSET)
    old_path, new_path = tmp_path / "old.json", tmp_path / "new.json"
    old_path.write_text(json.dumps(old))
    new_path.write_text(json.dumps(new))
    assert main(["diff", str(old_path), str(new_path), "--json"]) == 4
    out = json.loads(capsys.readouterr().out)
    refused = [c for c in out["changed"] if c["verdict"] == "refused"]
    assert refused and refused[0]["refusals"][0]["wayOut"].startswith("unprotect first")
    assert out["refused"] and all(c["replace"] for c in refused)
    # unprotecting in the same update is allowed (step_generator.go: new.Protect && old.Protect)
    unprotected = diff_plans(old, _plan(merged(base, cluster={"protect": False}, tpuPools=[{"capacity": "on-demand"}])))
    assert not unprotected.refused


@pytest.mark.slow
def test_removing_a_protected_pool_is_refused():
    """step.go DeleteStep: a resource protected in the state cannot be deleted."""
    base = every_optional_child_config()
    new = copy.deepcopy(base)
    new[P + "tpuPools"] = [p for p in new[P + "tpuPools"] if p["name"] != "burst"]
    diff = diff_plans(_plan(base, "prod"), _plan(new, "prod"))
    deleted = [urn for urn, action, r in diff.refused if action == "delete" and r.rule == "protect-delete"]
    assert deleted and all("burst" in urn for urn in deleted)


@pytest.mark.slow
def test_kueue_on_replaces_the_jobset_and_the_leader_worker_sets():
    for name in ("dev", "serve"):
        old = _plan(shipped(name), name)
        new = _plan(merged(name, kueue={"enabled": True}), name)
        diff = diff_plans(old, new)
        kinds = {c.type: c.verdict for c in diff.changed if c.type in (tokens.JOBSET, tokens.LEADER_WORKER_SET)}
        assert kinds and set(kinds.values()) == {"replace"}, (name, kinds)
        assert not [r for r in diff.refused if r[2].rule.startswith("kueue")]


@pytest.mark.slow
def test_dns_auto_is_decided_at_creation_and_only_an_existing_cloud_dns_scope_is_refused():
    old = _plan(shipped("dev"))
    multi = _plan(_multi_host("dev"))
    diff = diff_plans(old, multi)
    cluster = [c for c in diff.changed if c.type == tokens.GKE_CLUSTER]
    assert not cluster or "dnsConfig" not in " ".join(cluster[0].properties)
    assert not [r for r in diff.refused if r[2].rule == "gke-dns-scope"]
    kube_dns = _plan(merged("dev", cluster={"dns": "gke-default"}))
    cloud_dns = _plan(merged("dev", cluster={"dns": "cloud-dns"}))
    to_cloud = diff_plans(kube_dns, cloud_dns)  # Standard: kube-dns -> Cloud DNS updates in place
    assert not to_cloud.refused
    assert [c.verdict for c in to_cloud.changed if c.type == tokens.GKE_CLUSTER] == ["update"]
    refused = diff_plans(cloud_dns, kube_dns).refused  # the cluster-scope Cloud DNS would go
    assert [r.rule for _, _, r in refused] == ["gke-dns-scope"]
    assert "new cluster" in refused[0][2].world_rule.way_out


def _multi_host(name):
    cfg = shipped(name)
    pool = cfg[P + "tpuPools"][0]
    pool["topology"] = "4x4"
    return cfg


@pytest.mark.slow
def test_a_tpu7x_topology_change_replaces_the_policy_and_by_cascade_its_pool():
    """The workload policy is replaced delete-first; the pool's placementPolicy.policyName reads it, so the engine's
    re-diff replaces the pool too, even though the pool ignores the topology GKE derives."""
    base = every_optional_child_config()
    new = copy.deepcopy(base)
    burst = next(p for p in new[P + "tpuPools"] if p["name"] == "burst")
    burst["topology"] = "2x2x4"
    diff = diff_plans(_plan(base, "prod"), _plan(new, "prod"))
    policies = [c for c in diff.changed if c.type == tokens.RESOURCE_POLICY]
    assert policies and policies[0].replace_mode == "delete-first"
    pools = [c for c in diff.changed if c.type == tokens.NODE_POOL and "burst" in c.name]
    assert pools and all(policies[0].urn in c.replaced_by for c in pools)
    assert set(policies[0].cascade) >= {c.urn for c in pools}


def test_a_cross_stack_diff_does_not_report_provider_references(dev):
    other = _plan(shipped("dev"), "dev2")
    diff = diff_plans(dev, other)
    assert not [c for c in diff.changed if "provider" in c.options or "replaceWith" in c.options]


@pytest.mark.slow
def test_a_serving_service_type_change_updates_in_place():
    """pulumi-kubernetes replaces a Service only on spec.clusterIP (provider/pkg/provider/diff.go)."""
    old = _plan(shipped("serve"), "serve")
    cfg = shipped("serve")
    del cfg[P + "workloads"][0]["serving"]["loadBalancer"]
    diff = diff_plans(old, _plan(cfg, "serve"))
    services = [c for c in diff.changed if c.type == tokens.SERVICE]
    assert services and all(c.verdict == "update" for c in services)
    assert any(p.startswith("spec.type") for c in services for p in c.properties)


@pytest.mark.slow
def test_under_kueue_a_serving_resource_change_replaces_the_leader_worker_set():
    """Kueue freezes the pod templates' resources while the queue-name label is set: the LWS is replaced, not
    updated (kueue leaderworkerset_webhook.go); an image change still rolls it in place."""
    base = merged("serve", kueue={"enabled": True})
    old = _plan(base, "serve")
    cfg = copy.deepcopy(base)
    cfg[P + "workloads"][0]["resources"] = {"requests": {"cpu": "4", "memory": "16Gi"}}
    lws = [c for c in diff_plans(old, _plan(cfg, "serve")).changed if c.type == tokens.LEADER_WORKER_SET]
    assert lws and all(c.verdict == "replace" and c.replace_mode == "delete-first" for c in lws)
    image = copy.deepcopy(base)
    image[P + "workloads"][0]["image"] = "us-docker.pkg.dev/acme-ml-prod/serve/vllm-tpu:2026-12-01"
    rolled = [c for c in diff_plans(old, _plan(image, "serve")).changed if c.type == tokens.LEADER_WORKER_SET]
    assert rolled and all(c.verdict == "update" for c in rolled)


# --- the Terraform bridge's replace decision, read from its source ----------------------------------------------
# (pulumi-terraform-bridge TestBlockCollectionForceNew / TestBlockCollectionElementForceNew over the TFB v7.42.0
# schemas in bridge_schema.py): ForceNew attributes replace when they get another value, ForceNew blocks only
# when their element count changes; an Optional+Computed field left out keeps the state.

from pathways_gke import bridge_schema as B  # noqa: E402
from pathways_gke.property_paths import format_path  # noqa: E402

_POOL = {"name": "p", "cluster": "c", "location": "us-east5",
         "placementPolicy": {"type": "COMPACT", "tpuTopology": "4x4", "policyName": "wp"},
         "nodeConfig": {"machineType": "ct6e-standard-4t", "spot": True, "serviceAccount": "sa@x",
                        "reservationAffinity": {"consumeReservationType": "SPECIFIC_RESERVATION",
                                                "key": "compute.googleapis.com/reservation-name", "values": ["r1"]}},
         "networkConfig": {"additionalNodeNetworkConfigs": [{"network": "n1", "subnetwork": "s1"}]}}
_CLUSTER = {"name": "c", "location": "us-east5", "ipAllocationPolicy": {"stackType": "IPV4"},
            "addonsConfig": {"gcsFuseCsiDriverConfig": {"enabled": True}}}


def _edit(base, path, value):
    out = copy.deepcopy(base)
    *parents, last = path.split(".")
    target = out
    for key in parents:
        target = target.setdefault(key, {})
    if value is _DROP:
        target.pop(last, None)
    else:
        target[last] = value
    return out


_DROP = object()


@pytest.mark.parametrize("type_, base, path, value, expected", [
    # a TPU pool's slice shape: the block is ForceNew, its type and topology are not (an update)
    (tokens.NODE_POOL, _POOL, "placementPolicy.tpuTopology", "4x8", []),
    (tokens.NODE_POOL, _POOL, "placementPolicy.type", "OTHER", []),
    (tokens.NODE_POOL, _POOL, "placementPolicy.policyName", "wp2", ["placementPolicy.policyName"]),
    (tokens.NODE_POOL, _POOL, "placementPolicy", _DROP, ["placementPolicy"]),                # count 1 -> 0
    (tokens.NODE_POOL, {k: v for k, v in _POOL.items() if k != "placementPolicy"}, "placementPolicy",
     {"type": "COMPACT"}, ["placementPolicy"]),                                                # count 0 -> 1
    # node_config: a ForceNew block (Optional+Computed) with ForceNew and updatable fields
    (tokens.NODE_POOL, _POOL, "nodeConfig.spot", False, ["nodeConfig.spot"]),
    (tokens.NODE_POOL, _POOL, "nodeConfig.machineType", "ct6e-standard-8t", []),
    (tokens.NODE_POOL, _POOL, "nodeConfig.kubeletConfig", {"cpuManagerPolicy": "static"}, []),
    (tokens.NODE_POOL, _POOL, "nodeConfig.serviceAccount", _DROP, []),                        # Computed: kept
    (tokens.NODE_POOL, _POOL, "nodeConfig.spot", _DROP, ["nodeConfig.spot"]),                 # not Computed
    (tokens.NODE_POOL, _POOL, "nodeConfig", _DROP, []),                                       # Computed block
    (tokens.NODE_POOL, _POOL, "nodeConfig.reservationAffinity.values", ["r2"],
     ["nodeConfig.reservationAffinity.values"]),
    (tokens.NODE_POOL, _POOL, "nodeConfig.reservationAffinity", _DROP, ["nodeConfig.reservationAffinity"]),
    (tokens.NODE_POOL, _POOL, "nodeConfig.guestAccelerators", [{"type": "nvidia-l4", "count": 1}],
     ["nodeConfig.guestAccelerators"]),
    # a list block that is ForceNew: an appended element changes the count; a field of an element replaces on its own
    (tokens.NODE_POOL, _POOL, "networkConfig.additionalNodeNetworkConfigs",
     [{"network": "n1", "subnetwork": "s1"}, {"network": "n2", "subnetwork": "s2"}],
     ["networkConfig.additionalNodeNetworkConfigs"]),
    (tokens.NODE_POOL, _POOL, "networkConfig.additionalNodeNetworkConfigs", [{"network": "n9", "subnetwork": "s1"}],
     ["networkConfig.additionalNodeNetworkConfigs[0].network"]),
    (tokens.NODE_POOL, _POOL, "networkConfig.acceleratorNetworkProfile", "auto",
     ["networkConfig.acceleratorNetworkProfile"]),
    (tokens.NODE_POOL, _POOL, "nodeCount", 4, []),
    (tokens.NODE_POOL, _POOL, "name", "p2", ["name"]),
    # the cluster: privateNodes is an in-place update; the master CIDR is a ForceNew attribute that gets a value
    (tokens.GKE_CLUSTER, _CLUSTER, "privateClusterConfig", {"enablePrivateNodes": True}, []),
    (tokens.GKE_CLUSTER, _CLUSTER, "privateClusterConfig",
     {"enablePrivateNodes": True, "masterIpv4CidrBlock": "172.16.0.0/28"}, ["privateClusterConfig.masterIpv4CidrBlock"]),
    (tokens.GKE_CLUSTER, _CLUSTER, "ipAllocationPolicy.stackType", "IPV4_IPV6", []),
    (tokens.GKE_CLUSTER, _CLUSTER, "ipAllocationPolicy.clusterSecondaryRangeName", "pods",
     ["ipAllocationPolicy.clusterSecondaryRangeName"]),
    (tokens.GKE_CLUSTER, _CLUSTER, "addonsConfig.sliceControllerConfig", {"enabled": True}, []),
    (tokens.GKE_CLUSTER, _CLUSTER, "clusterAutoscaling",
     {"enabled": True, "autoProvisioningDefaults": {"serviceAccount": "sa@x"}}, []),
    (tokens.GKE_CLUSTER, _CLUSTER, "clusterAutoscaling",
     {"enabled": True, "autoProvisioningDefaults": {"bootDiskKmsKey": "k"}},
     ["clusterAutoscaling.autoProvisioningDefaults.bootDiskKmsKey"]),
    (tokens.GKE_CLUSTER, _CLUSTER, "network", "other", ["network"]),
    (tokens.GKE_CLUSTER, _CLUSTER, "location", "us-central1", ["location"]),
    (tokens.GKE_CLUSTER, _CLUSTER, "dnsConfig", {"clusterDns": "CLOUD_DNS"}, []),
    # a tpu7x workload policy: its topology is ForceNew; its name updates (v7.42.0 has an Update)
    (tokens.RESOURCE_POLICY, {"name": "wp", "region": "r", "workloadPolicy": {"type": "HIGH_THROUGHPUT",
                                                                              "acceleratorTopology": "2x2x2"}},
     "workloadPolicy.acceleratorTopology", "2x2x4", ["workloadPolicy.acceleratorTopology"]),
    (tokens.RESOURCE_POLICY, {"name": "wp", "region": "r"}, "name", "wp2", []),
    (tokens.BUCKET, {"name": "b", "location": "US"}, "location", "EU", ["location"]),
    (tokens.BUCKET, {"name": "b", "location": "US"}, "labels", {"a": "b"}, []),
    (tokens.PROJECT_IAM_MEMBER, {"project": "p", "role": "r", "member": "m"}, "member", "m2", ["member"]),
])
def test_the_bridge_replaces_on_force_new_attributes_and_on_block_counts(type_, base, path, value, expected):
    new = _edit(base, path, value)
    assert [format_path(p) for p in B.replace_paths(type_, base, new)] == expected


@pytest.mark.parametrize("type_, old, unknown, expected", [
    # an unknown input (it reads a resource replaced delete-first) is a block of one element holding unknowns for
    # its Required fields only (makeTerraformUnknown): what the old state held elsewhere in it is then removed
    (tokens.NODE_POOL, _POOL, ["cluster"], ["cluster"]),
    (tokens.NODE_POOL, _POOL, ["nodeConfig"], ["nodeConfig.reservationAffinity", "nodeConfig.spot"]),
    (tokens.NODE_POOL, {"nodeConfig": {"serviceAccount": "sa@x", "oauthScopes": ["x"]}}, ["nodeConfig"], []),
    (tokens.NODE_POOL, _POOL, ["placementPolicy"], ["placementPolicy.policyName"]),
    (tokens.NODE_POOL, {"placementPolicy": {"type": "COMPACT"}}, ["placementPolicy"], []),
    (tokens.PROJECT_IAM_MEMBER, {"project": "p", "role": "r", "member": "m"}, ["member"], ["member"]),
])
def test_the_bridge_re_diff_with_unknown_inputs(type_, old, unknown, expected):
    reasons = A.provider_replace_reasons(type_, old, old, unknown)
    assert sorted(format_path(p) for p in reasons) == expected


def test_the_bridge_tables_use_pulumi_gcp_input_names():
    """Every segment of the node-pool and cluster tables is an input property name of the installed pulumi-gcp SDK
    (its `@pulumi.getter` names: the bridge's Pulumi names, plural for list blocks)."""
    import re
    from pathlib import Path

    import pulumi_gcp

    root = Path(pulumi_gcp.__file__).parent / "container"
    text = "\n".join(f.read_text() for f in (root / "_inputs.py", root / "node_pool.py", root / "cluster.py"))
    names = set(re.findall(r'@pulumi\.getter\(name="(\w+)"\)', text))
    names |= {n for n in re.findall(r"@pulumi\.getter\n\s+def (\w+)\(", text) if "_" not in n}
    missing = sorted({seg for type_ in (tokens.NODE_POOL, tokens.GKE_CLUSTER)
                      for path in B.SCHEMAS[type_] for seg in path.split(".") if seg not in names})
    assert missing == []


def test_the_bridge_deletes_first_for_explicit_names_and_pulumi_gcp_dbr_resources():
    assert B.deletes_first(tokens.SERVICE_ACCOUNT, {"accountId": "pw-dev-nodes"})
    assert not B.deletes_first(tokens.SERVICE_ACCOUNT, {})
    assert B.deletes_first(tokens.PROJECT_IAM_MEMBER, {"member": "m"})
    assert B.deletes_first(tokens.BUCKET, {"name": "acme-pw"})
    assert not B.deletes_first(tokens.BUCKET_IAM_MEMBER, {"bucket": "acme-pw"})


# --- pulumi-kubernetes DiffConfig (provider/pkg/provider/provider.go) ----------------------------------------------

_K8S = {"clusterIdentifier": "p/us-east5/pw", "kubeconfig": "<secret>"}


@pytest.mark.parametrize("old, new, unknown, expected", [
    (_K8S, _K8S, ["kubeconfig"], ()),                               # same identifier: Replaces cleared
    (_K8S, {**_K8S, "clusterIdentifier": "p/us-central1/pw"}, [], ("clusterIdentifier",)),
    (_K8S, _K8S, ["clusterIdentifier", "kubeconfig"], ("clusterIdentifier", "kubeconfig")),  # unknown identifier
    ({"kubeconfig": "<secret>"}, _K8S, [], ()),                       # adding the identifier never replaces
    (_K8S, {"kubeconfig": "<secret>"}, [], ()),                       # nor does removing it
    ({"kubeconfig": "a"}, {"kubeconfig": "a"}, ["kubeconfig"], ("kubeconfig",)),   # no identifier: unknown
    ({"kubeconfig": "a", "context": "x"}, {"kubeconfig": "a", "context": "y"}, [], ("context",)),
    ({"kubeconfig": "a"}, {"kubeconfig": "a"}, [], ()),               # no diff
    (_K8S, {**_K8S, "enableServerSideApply": "false"}, [], ()),       # an update of the provider
])
def test_diff_config_replaces_a_kubernetes_provider_only_as_its_source_says(old, new, unknown, expected):
    assert A.k8s_diff_config_replaces(old, new, unknown) == expected


# --- plan-level: the engine's walks on a miniature stack ------------------------------------------------------------

from tests.support.plans import CLUSTER_T, PROVIDER_T, mini_plan, named  # noqa: E402


def _wired(plan, identifier_reads_cluster=False):
    """The miniature stack with the property dependencies a real registration records: pools read the cluster
    (`cluster`), the Kubernetes provider's kubeconfig reads it (and its clusterIdentifier, after issue 30's
    product change, an output of the cluster instance)."""
    out = copy.deepcopy(plan)
    cluster = named(out, "pw-dev-cluster")["urn"]
    for r in out["resources"]:
        if r["type"] == tokens.NODE_POOL:
            r["propertyDependencies"] = {"cluster": [cluster]}
        if r["type"] == PROVIDER_T:
            r["propertyDependencies"] = {"kubeconfig": [cluster],
                                         **({"clusterIdentifier": [cluster]} if identifier_reads_cluster else {})}
    named(out, "pw-dev-cluster")["options"]["deleteBeforeReplace"] = True
    return out


def _with_resource(plan, name, **changes):
    out = copy.deepcopy(plan)
    r = named(out, name)
    for dotted, value in changes.items():
        section, *path = dotted.split("__")
        target = r[section]
        for key in path[:-1]:
            target = target.setdefault(key, {})
        target[path[-1]] = value
    return out


_CIDR = {"enablePrivateNodes": True, "masterIpv4CidrBlock": "172.16.0.0/28"}


def test_a_replaced_cluster_with_an_unchanged_identifier_leaves_every_object_behind():
    """DiffConfig clears replaces while clusterIdentifier is unchanged, and replaceWith replaces the provider alone:
    the objects stay `same` in the state and are absent from the new cluster. The diff refuses that (exit 4)."""
    old = _wired(mini_plan())
    old = _with_resource(old, "pw-dev-cluster", inputs__privateClusterConfig={"enablePrivateNodes": True,
                                                                     "masterIpv4CidrBlock": "172.16.0.16/28"})
    new = _with_resource(old, "pw-dev-cluster", inputs__privateClusterConfig=_CIDR)
    named(new, "pw-dev-k8s")["options"]["replaceWith"] = [named(new, "pw-dev-cluster")["urn"]]
    diff = diff_plans(old, new)
    verdicts = {c.name: c.verdict for c in diff.changed}
    assert verdicts["pw-dev-cluster"] == "replace"
    assert verdicts["pw-dev-main-0"] == "replace" and verdicts["pw-dev-cpu"] == "replace"  # the walk: `cluster`
    provider = next(c for c in diff.changed if c.name == "pw-dev-k8s")
    assert provider.replace and provider.replaced_with  # by replaceWith, not by DiffConfig
    assert verdicts["train"] == "replace"  # replaced with its pools (replaceWith): created in the new cluster
    for name in ("pw-dev-hf-token", "jobsets.jobset.x-k8s.io", "pw-dev-jobset"):
        assert verdicts[name] == "refused", name
        change = next(c for c in diff.changed if c.name == name)
        assert [r.rule for r in change.refusals] == ["k8s-objects-left-behind"]


def test_a_cluster_identifier_that_follows_the_cluster_replaces_every_object_with_it():
    old = _wired(mini_plan(), identifier_reads_cluster=True)
    new = _with_resource(old, "pw-dev-cluster", inputs__network="other-vpc")
    diff = diff_plans(old, new)
    provider = next(c for c in diff.changed if c.name == "pw-dev-k8s")
    assert provider.replace and "clusterIdentifier" in provider.replace_reasons
    for name in ("train", "pw-dev-hf-token", "jobsets.jobset.x-k8s.io"):
        change = next(c for c in diff.changed if c.name == name)
        assert change.replace and change.provider_replaced == provider.urn, name
    # the cluster is replaced delete-first: the walk condemns the provider (DiffConfig with the identifier unknown)
    # and with it every object; the protected CRD is refused on its old protect
    crd = next(c for c in diff.changed if c.name == "jobsets.jobset.x-k8s.io")
    assert crd.replaced_by == (named(new, "pw-dev-cluster")["urn"],)
    assert [r.rule for r in crd.refusals] == ["protect-cascade"]
    assert {r.rule for _, _, r in diff.refused} == {"protect-cascade"}


def test_private_nodes_is_an_in_place_cluster_update_that_cascades_nowhere():
    old = _wired(mini_plan())
    diff = diff_plans(old, _with_resource(old, "pw-dev-cluster", inputs__privateClusterConfig={"enablePrivateNodes": True}))
    [cluster] = diff.changed
    assert cluster.verdict == "update" and not diff.refused


def test_the_delete_first_walk_reads_the_dependents_old_ignore_changes_and_old_protect():
    """calculateDependentReplacements re-diffs each dependent from its OLD state: its ignoreChanges is passed to the
    provider (a pool that ignores `cluster` is not condemned), and a condemned dependent is refused on its OLD
    protect even when the program unprotects it in the same update."""
    old = _wired(mini_plan())
    named(old, "pw-dev-cpu")["options"]["ignoreChanges"] = ["cluster", "initialNodeCount", "nodeCount"]
    named(old, "pw-dev-main-0")["options"]["protect"] = True
    new = _with_resource(old, "pw-dev-cluster", inputs__location="us-central1")
    named(new, "pw-dev-main-0")["options"]["protect"] = False
    diff = diff_plans(old, new)
    changes = {c.name: c for c in diff.changed}
    assert "pw-dev-cpu" not in changes or not changes["pw-dev-cpu"].replace
    pool = changes["pw-dev-main-0"]
    assert pool.replace and pool.replaced_by and [r.rule for r in pool.refusals] == ["protect-cascade"]


def test_a_replaced_service_account_replaces_its_project_grants_delete_first():
    """An explicit accountId (autonamed field) makes the bridge delete first; the grants' `member` reads the
    account, so the walk condemns them, and pulumi-gcp replaces projects IAMMember delete-first."""
    sa = {"urn": "urn:pulumi:dev::p::gcp:serviceaccount/account:Account::sa", "type": tokens.SERVICE_ACCOUNT,
          "name": "sa", "custom": True, "inputs": {"accountId": "pw-dev-nodes", "project": "p"}, "options": {}}
    grant = {"urn": "urn:pulumi:dev::p::gcp:projects/iAMMember:IAMMember::g", "type": tokens.PROJECT_IAM_MEMBER,
             "name": "g", "custom": True, "inputs": {"member": "<computed>", "project": "p", "role": "roles/x"},
             "options": {}, "propertyDependencies": {"member": [sa["urn"]]}}
    old = {"stack": "dev", "resources": [sa, grant]}
    new = copy.deepcopy(old)
    new["resources"][0]["inputs"]["accountId"] = "pw-dev-nodes-2"
    changes = {c.name: c for c in diff_plans(old, new).changed}
    assert changes["sa"].replace_mode == "delete-first"
    assert changes["g"].replace_mode == "delete-first" and changes["g"].replaced_by == (sa["urn"],)


def test_an_appended_container_under_kueue_is_an_update_kueue_refuses():
    """replaceOnChanges `…containers[*].resources` does not contain the added `containers[1]` (PropertyPath.Contains):
    the engine updates, and Kueue's webhook refuses the new pod shape."""
    lws = _lws(queue="q")
    old = {"stack": "dev", "resources": [{
        "urn": "urn:pulumi:dev::p::kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet::s",
        "type": tokens.LEADER_WORKER_SET, "name": "s", "custom": True, "inputs": lws,
        "options": {"replaceOnChanges": list(A.lws_kueue_replace_on_changes(lws))}}]}
    new = copy.deepcopy(old)
    new["resources"][0]["inputs"]["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"].append(
        {"name": "sidecar", "image": "s", "resources": {"requests": {"cpu": "1"}}})
    [change] = diff_plans(old, new).changed
    assert not change.replace and change.verdict == "refused"
    assert [r.rule for r in change.refusals] == ["kueue-lws-pod-template"]


@pytest.mark.parametrize("read_id, verdict, rules", [
    ("projects/acme/locations/us-east5/clusters/pw", "relinquish", []),       # same ID: nothing deleted
    ("projects/acme/locations/us-east5/clusters/other", "replace", []),       # read-replacement: old deleted
])
def test_a_created_cluster_that_becomes_adopted_is_relinquished(read_id, verdict, rules):
    created = {"urn": "urn:pulumi:dev::p::gcp:container/cluster:Cluster::c", "type": CLUSTER_T, "name": "c",
               "custom": True, "inputs": {"name": "pw", "location": "us-east5", "project": "acme"}, "options": {}}
    adopted = {**created, "inputs": {}, "read": True, "options": {"id": read_id}}
    diff = diff_plans({"stack": "dev", "resources": [created]}, {"stack": "dev", "resources": [adopted]})
    [change] = diff.changed
    assert change.verdict == verdict and [r.rule for r in change.refusals] == rules
    assert not diff.removed and change.properties == ()
    # adopted -> created: a create (the read state is not owned) that GKE refuses with 409
    back = diff_plans({"stack": "dev", "resources": [adopted]}, {"stack": "dev", "resources": [created]})
    [change] = back.changed
    assert change.verdict == "refused" and [r.rule for r in change.refusals] == ["adopted-create-409"]


# --- the catalogue on real plans: (source, edit, resource, verdict, refusal rules) --------------------------------


def _prod_unprotected():
    cfg = every_optional_child_config()
    cfg[P + "cluster"]["protect"] = False
    return cfg


def _bucket_location(cfg):
    for bucket in cfg.get(P + "buckets", []):
        if bucket.get("create"):
            bucket["location"] = "EU"


def _dev_location(cfg):
    cfg.update(merged(cfg, cluster={"location": "us-central1"}, cpuPool={"zone": "us-central1-a"},
                      tpuPools=[{"zone": "us-central1-b"}]))


REAL_EDITS = [
    # a created bucket's location: the bridge deletes it first (explicit name), but it is retained and bucket names
    # are global: the create meets the old bucket, 409 — said once, by the bucket's own rule (its way out)
    ("bucket location", _prod_unprotected, "prod", _bucket_location, "bucket-acme-ml-prod-pathways", "refused",
     ["gcs-bucket-name-409"]),
    # a new location: the cluster's clusterIdentifier changes, so DiffConfig replaces the provider and its objects;
    # the node service account's accountId follows the location: it is replaced delete-first, and the walk
    # replaces its project grants (`member` reads it) delete-first too
    ("location: cluster", lambda: shipped("dev"), "dev", _dev_location, "pw-dev-cluster", "replace", []),
    ("location: grants", lambda: shipped("dev"), "dev", _dev_location, "pw-dev-node-sa-logging-logwriter", "replace",
     []),
    ("location: objects", lambda: shipped("dev"), "dev", _dev_location, "pw-dev-services-ready", "replace", []),
]


def test_the_kubernetes_provider_identity_is_the_cluster_instance():
    """Which identifier: `<project>/<location>/<name>/ca-<digest of the cluster CA certificate>`. Why it changes only
    on a real replacement: GKE gives every new control plane its own root CA and keeps it across updates and
    upgrades (a credential rotation is the one exception, docs/edits.md), while the name stays the same when the
    cluster is re-created under it. Destroy: the objects are deleted through the provider before the cluster (they
    depend on it); the identifier plays no part."""
    from pathways_gke.config.stack import parse_stack
    from pathways_gke.gke.cluster_spec import cluster_identifier

    stack = parse_stack(shipped("dev"))
    first = cluster_identifier(stack, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
    assert first.startswith("acme-ml-dev/us-east5/pw-dev/ca-")
    assert cluster_identifier(stack, "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n") == first
    assert cluster_identifier(stack, "-----BEGIN CERTIFICATE-----\nBBBB\n-----END CERTIFICATE-----\n") != first
    assert "AAAA" not in first
    # DiffConfig: the same identifier replaces nothing; another (or an unknown one) replaces the provider
    patterns = A.replace_patterns(tokens.KUBERNETES_PROVIDER, {"clusterIdentifier": first})
    assert patterns == ("clusterIdentifier",) and A.forces_replace(patterns, "clusterIdentifier")
    assert not A.forces_replace(patterns, "kubeconfig")


@pytest.mark.slow
def test_an_in_place_cluster_update_keeps_the_provider_and_every_object(dev):
    """An update of the cluster (a new maintenance window, a version) leaves the CA, so nothing is replaced."""
    diff = diff_plans(dev, _plan(merged("dev", cluster={"version": "1.35"})))
    assert not [c for c in diff.changed if c.type == tokens.KUBERNETES_PROVIDER]
    assert not [c for c in diff.changed if c.replace]


# A multi-host slice pool is atomic (GKE TPU concepts): the product replaces it on its shape, never resizes it.
SLICE_CASES = [
    ("topology 4x4 -> 4x8", {"topology": "4x8"}, "replace"),
    ("topology 4x4 -> 2x4 (to single host)", {"topology": "2x4"}, "replace"),
    ("capacity spot -> on-demand", {"capacity": "on-demand"}, "replace"),
]


@pytest.mark.slow
@pytest.mark.parametrize("label, source, stack, edit, name, verdict, rules", REAL_EDITS, ids=[e[0] for e in REAL_EDITS])
def test_the_real_edit_catalogue(label, source, stack, edit, name, verdict, rules):
    base = source()
    new = copy.deepcopy(base)
    edit(new)
    diff = diff_plans(_plan(base, stack), _plan(new, stack))
    [change] = [c for c in diff.changed if c.name.endswith(name)]
    assert change.verdict == verdict and [r.rule for r in change.refusals] == rules, (label, change)
    if label == "location: grants":
        assert change.replace_mode == "delete-first" and change.replaced_by[0].endswith("::pw-dev-node-sa")
    if label == "location: objects":
        assert change.provider_replaced and not diff.refused


def _leaves(value, prefix=()):
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, (*prefix, key))
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, item in enumerate(value):
            yield from _leaves(item, (*prefix, i))
    else:
        yield prefix


def _unclassified(resource_type, inputs):
    """Input paths the bridge table does not classify (an attribute, or a block down to an attribute)."""
    schema = B.SCHEMAS[resource_type]
    out = []
    for path in _leaves(inputs):
        names = [p for p in path if not isinstance(p, int)]
        for depth in range(1, len(names) + 1):
            flags = schema.get(".".join(names[:depth]))
            if flags is None:
                out.append(".".join(names))
                break
            if flags[0] == "A":
                break
    return out


@pytest.mark.slow
@pytest.mark.parametrize("case,edit,verdict", SLICE_CASES, ids=[c[0] for c in SLICE_CASES])
def test_a_multi_host_slice_pool_is_replaced_on_its_shape(case, edit, verdict):
    base = merged("dev", tpuPools=[{"topology": "4x4"}])
    diff = diff_plans(_plan(base), _plan(merged(base, tpuPools=[edit])))
    pools = [c for c in diff.changed if c.type == tokens.NODE_POOL and "main" in c.name]
    assert pools and all(c.verdict == verdict for c in pools), [(c.name, c.verdict) for c in pools]
    assert not [r for r in diff.refused if r[2].rule == "gke-tpu-slice-immutable"]


def test_without_the_products_replace_on_changes_a_multi_host_slice_is_never_resized_or_reshaped():
    """Without the product's replaceOnChanges the provider would resize the slice (GKE refuses it) or send nothing
    for a new shape (terraform-provider-google-beta nodePoolUpdate has no placement_policy): both refused."""
    old = {"name": "p", "nodeCount": 4, "placementPolicy": {"type": "COMPACT", "tpuTopology": "4x4"}}
    assert _refused(tokens.NODE_POOL, old, {**old, "nodeCount": 8}) == ["gke-tpu-slice-immutable"]
    assert _refused(tokens.NODE_POOL, old, {**old, "placementPolicy": {"type": "COMPACT", "tpuTopology": "4x8"}}) \
        == ["tpu-placement-not-applied"]
    assert _refused(tokens.NODE_POOL, old, {**old, "nodeConfig": {"labels": {"a": "b"}}}) == []
    single = {"name": "p", "nodeCount": 1}
    assert _refused(tokens.NODE_POOL, single, {**single, "nodeCount": 2}) == []


# Controller pins: (addon, from, to, what happens). A downgrade is pathways-gke POLICY (the API server accepts it);
# Kueue upgrades across minors follow Kueue's upgrade policy (review each crossed minor's .0 notes): allowed.
RELEASE_CASES = [
    ("kueue", "v0.17.1", "v0.19.2", "allowed"),
    ("kueue", "v0.18.0", "v0.19.5", "allowed"),
    ("kueue", "v0.19.5", "v0.19.2", "allowed"),   # a patch back within one minor
    ("kueue", "v0.19.2", "v0.18.5", "policy"),
    ("kueue", "v0.19.2", "v0.17.0", "policy"),
    ("jobset", "v0.12.0", "v0.10.1", "policy"),
    ("jobset", "v0.10.1", "v0.12.0", "allowed"),
    ("lws", "v0.10.0", "v0.7.0", "policy"),
]


@pytest.mark.parametrize("addon,old,new,expected", RELEASE_CASES, ids=[f"{c[0]} {c[1]}->{c[2]}" for c in RELEASE_CASES])
def test_controller_moves_are_judged_by_their_documented_upgrade_path(addon, old, new, expected):
    from pathways_gke.releases import release_change

    change = release_change(addon, old, new)
    assert (change.refused is not None) == (expected == "policy")
    assert A.RULES_BY_ID["controller-downgrade"].is_policy
    if addon == "kueue" and expected == "allowed" and new.split(".")[1] != old.split(".")[1]:
        crossed = [f"v0.{m}.0" for m in range(int(old.split(".")[1]) + 1, int(new.split(".")[1]) + 1)]
        notes = " ".join(change.effects)
        assert all(v in notes for v in crossed) and "Actions Required Before Upgrading" in notes


@pytest.mark.slow
def test_a_policy_refusal_is_labelled_policy_everywhere_and_exits_5(tmp_path, capsys):
    """docs/ci.md: exit 4 is what the world refuses, exit 5 only this product's policy."""
    old = _plan(shipped("prod"), "prod")
    cfg = shipped("prod")
    cfg[P + "jobset"] = {"version": "v0.10.1"}
    new = _plan(cfg, "prod")
    old_path, new_path = tmp_path / "old.json", tmp_path / "new.json"
    old_path.write_text(json.dumps(old))
    new_path.write_text(json.dumps(new))
    assert main(["diff", str(old_path), str(new_path), "--json"]) == 5
    out = json.loads(capsys.readouterr().out)
    assert [(r["rule"], r["kind"], r["by"]) for r in out["refused"]] == [
        ("controller-downgrade", "policy", A.POLICY)]
    assert main(["diff", str(old_path), str(new_path)]) == 5
    text = capsys.readouterr().out
    assert "REFUSED BY POLICY" in text and "would apply it" in text
    assert main(["diff", str(old_path), str(new_path), "--markdown"]) == 5
    md = capsys.readouterr().out
    assert "Refused by pathways-gke policy" in md and "**REFUSED by policy**" in md
    assert "The real `pulumi up` refuses these" not in md
    # a world refusal on top wins: exit 4
    base = merged("dev", cluster={"protect": True}, jobset={"version": "v0.12.0"})
    both = merged(base, tpuPools=[{"topology": "4x4"}], jobset={"version": "v0.10.1"})
    old_path.write_text(json.dumps(_plan(base)))
    new_path.write_text(json.dumps(_plan(both)))
    assert main(["diff", str(old_path), str(new_path), "--json"]) == 4
    kinds = {r["kind"] for r in json.loads(capsys.readouterr().out)["refused"]}
    assert kinds == {"policy", "world"}


# Buckets: GCS names are global and a location is permanent (moving-buckets docs); created buckets are retained.
BUCKET_CASES = [
    ("location", {"location": "US-CENTRAL1"}, "refused"),
    ("temporary-object days (a lifecycle rule)", {"temporaryObjectDays": 3}, "update"),
]


@pytest.mark.slow
@pytest.mark.parametrize("case,edit,verdict", BUCKET_CASES, ids=[c[0] for c in BUCKET_CASES])
def test_a_created_bucket_is_never_replaced_under_its_global_name(case, edit, verdict):
    base = every_optional_child_config()
    new = copy.deepcopy(base)
    new[P + "buckets"] = [{**b, **edit} if b.get("create") else b for b in new[P + "buckets"]]
    diff = diff_plans(_plan(base, "prod"), _plan(new, "prod"))
    buckets = [c for c in diff.changed if c.type == tokens.BUCKET]
    assert buckets and [c.verdict for c in buckets] == [verdict], [(c.name, c.verdict, c.properties) for c in buckets]
    if verdict == "refused":
        (refusal,) = [r for r in buckets[0].refusals if r.rule == "gcs-bucket-name-409"]  # (and protect, in prod)
        assert "location" in refusal.paths
        assert "NEW name" in refusal.world_rule.way_out and "relocate" in refusal.world_rule.way_out


def test_the_bucket_rule_needs_the_same_name():
    assert [r.rule for r in A.replace_refusals(tokens.BUCKET, {"name": "b"}, {"name": "b"}, ("location",))] \
        == ["gcs-bucket-name-409"]
    assert A.replace_refusals(tokens.BUCKET, {"name": "a"}, {"name": "b"}, ("name",)) == []
    assert A.replace_refusals(tokens.BUCKET, {"name": "<computed>"}, {"name": "<computed>"}, ()) == []
    assert A.replace_refusals(tokens.NODE_POOL, {"name": "b"}, {"name": "b"}, ("location",)) == []


@pytest.mark.slow
def test_a_replaced_node_service_account_replaces_its_project_grants_delete_first():
    """pulumi-gcp provider/resources.go: google_service_account.account_id is auto-named (an explicit accountId ->
    the bridge deletes first on replace) and google_project_iam_member has DeleteBeforeReplace; each grant's
    `member` is computed from the replaced account's email, so the engine re-diffs it unknown and replaces it."""
    old = _plan(shipped("dev"))
    new = _plan(merged("dev", cluster={"location": "us-central1"}, cpuPool={"zone": "us-central1-a"},
                       tpuPools=[{"zone": "us-central1-b"}]))
    diff = diff_plans(old, new)
    changes = _by_name(diff)
    account = changes["pw-dev-node-sa"]
    assert account.replace_mode == "delete-first"
    grants = [c for c in diff.changed if c.type == tokens.PROJECT_IAM_MEMBER]
    assert grants and all(c.replace_mode == "delete-first" and account.urn in c.replaced_by for c in grants)
    assert {c.urn for c in grants} <= set(account.cascade)


@pytest.mark.slow
def test_a_kueue_upgrade_across_minors_is_allowed_and_lists_the_notes_to_read(tmp_path, capsys):
    """Kueue's upgrade policy (site docs, getting-started/installation.md): review the .0 release notes of every
    minor crossed. The move is allowed (exit 0) and the diff shows what to read, in text, JSON and Markdown."""
    old = _plan(merged("prod", kueue={"enabled": True, "version": "v0.17.1"}), "prod")
    new = _plan(merged("prod", kueue={"enabled": True, "version": "v0.19.5"}), "prod")
    old_path, new_path = tmp_path / "old.json", tmp_path / "new.json"
    old_path.write_text(json.dumps(old))
    new_path.write_text(json.dumps(new))
    assert main(["diff", str(old_path), str(new_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    notes = " ".join(n for c in out["changed"] for n in c.get("releaseNotes", ()))
    assert "v0.18.0, v0.19.0" in notes and "LWSImmutableGroupSize" in notes and not out.get("refused")
    assert main(["diff", str(old_path), str(new_path)]) == 0
    assert "note: kueue: review" in capsys.readouterr().out
    assert main(["diff", str(old_path), str(new_path), "--markdown", "--no-graph"]) == 0
    assert "note: kueue: review" in capsys.readouterr().out


def _as_previous_release(plan):
    """The plan the previous release made of the same stack: the provider named `<cluster>-k8s` with the name-only
    clusterIdentifier, and every object managed by it."""
    out = copy.deepcopy(plan)
    (provider,) = [r for r in out["resources"] if r["type"] == tokens.KUBERNETES_PROVIDER]
    new_urn = provider["urn"]
    old_urn = new_urn.replace("::pw-dev-kubernetes", "::pw-dev-k8s")
    provider.update(urn=old_urn, name="pw-dev-k8s")
    provider["inputs"]["clusterIdentifier"] = "acme-ml-dev/us-east5/pw-dev"
    provider["propertyDependencies"].pop("clusterIdentifier")
    provider["options"]["aliases"] = []
    for r in out["resources"]:
        if (r.get("options") or {}).get("provider") == new_urn:
            r["options"]["provider"] = old_urn
    return out


@pytest.mark.slow
def test_the_bridge_table_classifies_every_field_the_plans_set():
    """Every node-pool and cluster input the shipped stacks (and the stack with every optional child) set is an
    attribute or a block of the table, so each edit of it gets the bridge's verdict: a key another issue adds fails
    here until it is classified from the provider's schema."""
    plans = [_plan(shipped(name), name) for name in ("dev", "prod", "serve", "jax", "jetstream")]
    plans.append(_plan(every_optional_child_config(), "prod"))
    missing = sorted({(r["type"], path) for plan in plans for r in plan["resources"]
                      if r["type"] in (tokens.NODE_POOL, tokens.GKE_CLUSTER) and not r.get("read")
                      for path in _unclassified(r["type"], r.get("inputs") or {})})
    assert missing == []


def _nested(path, value):
    out = value
    for key in reversed(path.split(".")):
        out = {key: out}
    return out


@pytest.mark.parametrize("type_", [tokens.NODE_POOL, tokens.GKE_CLUSTER, tokens.RESOURCE_POLICY, tokens.BUCKET])
def test_every_attribute_replaces_exactly_when_it_is_force_new(type_):
    """The rule, over the whole table: an attribute whose value changes inside existing blocks replaces iff it is
    ForceNew; a block that appears replaces iff it is ForceNew (its count changes) — an empty non-ForceNew block
    that appears is an update."""
    schema = B.SCHEMAS[type_]
    for path, flags in schema.items():
        if flags[0] == "A":
            reasons = B.replace_paths(type_, _nested(path, "old-value"), _nested(path, "new-value"))
            assert bool(reasons) == ("F" in flags), (path, flags, reasons)
            if reasons:
                assert [format_path(r) for r in reasons] == [path]
        else:
            parent, _, _ = path.rpartition(".")
            old = _nested(parent, {}) if parent else {}
            new = _nested(path, {})
            reasons = [format_path(r) for r in B.replace_paths(type_, old, new)]  # its ancestors exist on both sides
            assert reasons == ([path] if "F" in flags else []), (path, flags, reasons)
# --- what editing the resilience keys does (docs/resilience.md) ---------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("edit", [
    {"restart": {"strategy": "BlockingRecreate"}},
    {"restartOnExitCodes": [42]},
    {"pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-ml-dev-pathways/tmp",
                  "pipeUnreachableTimeout": "90s"}},
], ids=["restart-strategy", "exit-codes", "pipe-timeout"])
def test_a_restart_or_pipe_timeout_edit_replaces_only_the_jobset_delete_first(dev, edit):
    """The JobSet's spec is immutable (its webhook): the component replaces it, delete-first (same name)."""
    cfg = shipped("dev")
    cfg[P + "workloads"][0].update(edit)
    diff = diff_plans(dev, _plan(cfg))
    replaced = [c for c in diff.changed if c.replace]
    assert [c.type for c in replaced] == [tokens.JOBSET]
    assert replaced[0].replace_mode == "delete-first" and not diff.refused and not diff.added


@pytest.mark.slow
def test_per_slice_restart_turns_the_gate_on_in_the_diff(dev):
    cfg = shipped("dev")
    cfg[P + "workloads"][0]["restart"] = {"perSlice": True}
    diff = diff_plans(dev, _plan(cfg))
    gate = [c for c in diff.changed if c.type == tokens.CONFIG_MAP]
    assert gate and any(p.endswith("jobset.featureGates") or "featureGates" in p for c in gate for p in c.properties)
    assert not diff.refused


@pytest.mark.slow
def test_turning_multi_tier_checkpointing_on_updates_the_cluster_in_place_and_adds_its_objects(dev):
    """addons_config is not ForceNew in google_container_cluster: GKE enables the add-on on the running cluster."""
    cfg = merged("dev", cluster={"multiTierCheckpointing": {"bucket": "acme-ckpt", "inMemoryVolumeSize": "64Gi"},
                                 "projectNumber": "123456789012"})
    diff = diff_plans(dev, _plan(cfg))
    [cluster] = [c for c in diff.changed if c.type == tokens.GKE_CLUSTER]
    assert cluster.verdict == "update"
    assert any("highScaleCheckpointingConfig" in p for p in cluster.properties)
    assert any("CheckpointConfiguration" in r["urn"] for r in diff.added)
    assert any("BucketIAMMember" in r["urn"] and "mtc-node-agent" in r["urn"] for r in diff.added)
    assert not diff.refused and not [c for c in diff.changed if c.replace]


@pytest.mark.slow
def test_a_liveness_tolerance_edit_rolls_the_leader_worker_set_in_place():
    old = _plan(shipped("serve"), "serve")
    cfg = shipped("serve")
    cfg[P + "workloads"][0]["serving"].setdefault("probes", {})["livenessFailureThreshold"] = 20
    lws = [c for c in diff_plans(old, _plan(cfg, "serve")).changed if c.type == tokens.LEADER_WORKER_SET]
    assert lws and all(c.verdict == "update" for c in lws)


@pytest.mark.slow
def test_moving_an_existing_stack_to_the_per_instance_identity_replaces_the_provider_alone(dev):
    """The provider's new name aliases the old one: the engine replaces the provider (DiffConfig: a changed
    clusterIdentifier) but no object whose provider reference moves from the aliased old provider
    (step_generator.go providerChanged). Nothing in the cluster is deleted by the upgrade."""
    diff = diff_plans(_as_previous_release(dev), dev)
    changes = _by_name(diff)
    provider = changes["pw-dev-kubernetes"]
    assert provider.renamed_from and provider.renamed_from.endswith("::pw-dev-k8s") and provider.replace
    assert not diff.added and not diff.removed and not diff.refused
    assert [c.name for c in diff.changed if c.replace] == ["pw-dev-kubernetes"]
    # once moved, a re-created cluster replaces every object again (no alias in play)
    moved_cluster = _plan(merged("dev", cluster={"location": "us-central1"}, cpuPool={"zone": "us-central1-a"},
                                 tpuPools=[{"zone": "us-central1-b"}]))
    relocated = diff_plans(dev, moved_cluster)
    objects = [c for c in relocated.changed if A.is_k8s_object(c.type, relocated.new_resources[c.urn]["inputs"])]
    assert objects and all(c.replace for c in objects)
    # the upgrade combined with a re-created cluster: the old provider's name-only identifier does not change (the
    # walk does not condemn it) and the objects move to the new provider under its alias, so nothing replaces
    # them: they would stay behind in the old cluster, and the diff refuses it
    both = diff_plans(_as_previous_release(dev), moved_cluster)
    behind = [c for c in both.changed if any(r.rule == "k8s-objects-left-behind" for r in c.refusals)]
    assert behind and all(not c.replace for c in behind)

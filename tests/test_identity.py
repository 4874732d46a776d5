"""Pods that can reach what they need, read from the offline plan: the identity each rendered pod really has
(node service account with hostNetwork, its Kubernetes SA's Workload Identity otherwise), the grants that
identity gets on the buckets it uses, the Kubernetes service accounts and their bindings, and private-cluster
egress (Cloud Router + NAT, firewall in the network's project)."""

from __future__ import annotations

import copy

import pytest

from pathways_gke.config.stack import parse_stack
from pathways_gke.errors import ConfigError
from pathways_gke.naming import location_suffix, node_service_account_id
from pathways_gke.plan import plan_config
from pathways_gke.plan.render import render_tree

from .conftest import ROOT
from .support.stacks import shipped

JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
BUCKET_GRANT = "gcp:storage/bucketIAMMember:BucketIAMMember"
PROJECT_GRANT = "gcp:projects/iAMMember:IAMMember"
SA_GRANT = "gcp:serviceaccount/iAMMember:IAMMember"
KSA = "kubernetes:core/v1:ServiceAccount"
NUMBER = "123456789012"
# the node service accounts the dev and prod stacks create (both clusters are in us-east5)
DEV_NODES = f"{node_service_account_id('pw-dev', 'us-east5')}@acme-ml-dev.iam.gserviceaccount.com"
PROD_NODES = f"{node_service_account_id('pw-prod', 'us-east5')}@acme-ml-prod.iam.gserviceaccount.com"


def actions(plan) -> list[str]:
    """actionsRequired without the APIs line (every stack with image streaming lists containerfilesystem)."""
    return [a for a in plan.outputs["actionsRequired"] if not a.startswith("enable ")]

def pods(plan, workload: str) -> list[dict]:
    """The pod templates of a workload's JobSet, as the plan renders them."""
    jobset = next(r for r in plan.resources if r.type == JOBSET and r.name.endswith(f"-{workload}-jobset"))
    return [rj["template"]["spec"]["template"] for rj in jobset.inputs["spec"]["replicatedJobs"]]


def identity_of(plan, pod: dict) -> str:
    """The IAM member a pod acts as, from its spec: the node SA with hostNetwork, else its KSA's principal."""
    spec = pod["spec"]
    project = plan.named(next(r.name for r in plan.resources if r.type == "gcp:container/cluster:Cluster")).inputs[
        "project"]
    if spec.get("hostNetwork"):
        account = next(r for r in plan.resources if r.type == "gcp:serviceaccount/account:Account")
        return f"serviceAccount:{account.inputs['accountId']}@{account.inputs['project']}.iam.gserviceaccount.com"
    jobset_ns = "default"
    ksa = spec.get("serviceAccountName", "default")
    return (f"principal://iam.googleapis.com/projects/{NUMBER}/locations/global/workloadIdentityPools/"
            f"{project}.svc.id.goog/subject/ns/{jobset_ns}/sa/{ksa}")


def grants(plan, type_: str = BUCKET_GRANT) -> list[dict]:
    return [r.inputs for r in plan.resources if r.type == type_]


def scratch_bucket(pod: dict) -> str:
    args = [a for c in pod["spec"].get("initContainers", []) + pod["spec"]["containers"] for a in c.get("args", [])]
    location = next(a.split("=", 1)[1] for a in args if a.startswith("--gcs_scratch_location="))
    return location[len("gs://"):].split("/")[0]


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_identity_pathways_pods_run_as_can_write_their_scratch_bucket(stack_plans, stack):
    plan = stack_plans(stack)
    workload = shipped(stack)["pathways-gke:workloads"][0]["name"]
    bindings = {(g["bucket"], g["role"], g["member"]) for g in grants(plan)}
    for pod in pods(plan, workload):
        if not any(c.get("args") for c in pod["spec"].get("initContainers", []) + pod["spec"]["containers"]):
            continue
        assert (scratch_bucket(pod), "roles/storage.objectUser", identity_of(plan, pod)) in bindings
    # and the plan says so per workload
    summary = plan.outputs["identities"][workload]["summary"]
    assert summary.startswith("runs as serviceAccount:") and "can write gs://" in summary


def test_the_grant_waits_for_the_node_service_account_it_names(stack_plans):
    plan = stack_plans("dev")
    grant = next(r for r in plan.resources if r.type == BUCKET_GRANT)
    assert plan.named("pw-dev-node-sa").urn in grant.depends_on
    jobset = plan.named("pw-dev-train-jobset")
    assert grant.urn in jobset.depends_on  # the run starts once it can write its scratch location


def test_text_plan_says_who_each_workload_runs_as(stack_plans):
    text = render_tree(stack_plans("prod"))
    assert (f"llm-pretrain: runs as serviceAccount:{PROD_NODES}; "
            "can write gs://acme-ml-prod-pathways") in text


@pytest.mark.slow
def test_a_non_host_network_pod_runs_as_its_kubernetes_service_account():
    cfg = shipped("jax")
    cfg["pathways-gke:cluster"]["projectNumber"] = NUMBER
    cpu = cfg["pathways-gke:workloads"][1]
    cpu["serviceAccount"] = "trainer"
    cpu["buckets"] = [{"bucket": "acme-ckpt"}, {"bucket": "acme-data", "access": "read"}]
    cfg["pathways-gke:workloads"][0]["buckets"] = [{"bucket": "acme-ckpt"}]
    plan = plan_config(cfg, stack="jax")
    bindings = {(g["bucket"], g["role"], g["member"]) for g in grants(plan)}
    for workload in ("train-cpu", "train-tpu"):
        for pod in pods(plan, workload):
            member = identity_of(plan, pod)
            assert ("acme-ckpt", "roles/storage.objectUser", member) in bindings
    [cpu_pod] = pods(plan, "train-cpu")
    assert cpu_pod["spec"].get("hostNetwork") is not True
    assert ("acme-data", "roles/storage.objectViewer", identity_of(plan, cpu_pod)) in bindings
    assert identity_of(plan, cpu_pod).endswith("/subject/ns/default/sa/trainer")
    principal_grant = next(r for r in plan.resources
                           if r.type == BUCKET_GRANT and r.inputs["member"].startswith("principal://"))
    assert plan.named("jax-dev-cluster").urn in principal_grant.depends_on  # the workload pool exists first


@pytest.mark.slow
def test_service_account_trainer_is_planned_in_its_namespace():
    cfg = shipped("prod")
    cfg["pathways-gke:workloads"][0]["serviceAccount"] = "trainer"
    plan = plan_config(cfg, stack="prod")
    ksa = plan.named("pw-prod-ksa-trainer")
    assert ksa.type == KSA and ksa.inputs["metadata"]["name"] == "trainer"
    assert ksa.inputs["metadata"]["namespace"] == "ml"
    assert "annotations" not in ksa.inputs["metadata"]
    assert ksa.urn in plan.named("pw-prod-llm-pretrain-jobset").depends_on  # pods are not created without it
    assert grants(plan, SA_GRANT) == []


@pytest.mark.slow
def test_a_gcp_service_account_is_bound_through_workload_identity():
    cfg = shipped("prod")
    gsa = "trainer@acme-ml-prod.iam.gserviceaccount.com"
    cfg["pathways-gke:workloads"][0].update(serviceAccount="trainer", gcpServiceAccount=gsa)
    plan = plan_config(cfg, stack="prod")
    ksa = plan.named("pw-prod-ksa-trainer")
    assert ksa.inputs["metadata"]["annotations"] == {"iam.gke.io/gcp-service-account": gsa}
    binding = plan.named("pw-prod-ksa-trainer-wi")
    assert binding.type == SA_GRANT
    assert binding.inputs == {"serviceAccountId": f"projects/acme-ml-prod/serviceAccounts/{gsa}",
                              "role": "roles/iam.workloadIdentityUser",
                              "member": "serviceAccount:acme-ml-prod.svc.id.goog[ml/trainer]"}
    # Pathways pods use hostNetwork: the KSA/GSA does not change who they are
    members = {g["member"] for g in grants(plan)}
    assert members == {f"serviceAccount:{PROD_NODES}"}


@pytest.mark.slow
def test_an_existing_service_account_is_not_created_and_its_annotation_is_asked_for():
    cfg = shipped("prod")
    gsa = "trainer@acme-ml-prod.iam.gserviceaccount.com"
    cfg["pathways-gke:workloads"][0].update(serviceAccount="trainer", serviceAccountExists=True,
                                            gcpServiceAccount=gsa)
    plan = plan_config(cfg, stack="prod")
    assert [r for r in plan.resources if r.type == KSA] == []
    assert plan.named("pw-prod-ksa-trainer-wi").type == SA_GRANT
    assert any("annotate Kubernetes service account ml/trainer" in a for a in actions(plan))


@pytest.mark.slow
def test_fuse_volumes_are_reached_by_the_pods_kubernetes_service_account():
    cfg = shipped("dev")
    cfg["pathways-gke:cluster"]["projectNumber"] = NUMBER
    cfg["pathways-gke:workloads"][0].update(serviceAccount="trainer", gcsFuse=[
        {"name": "data", "bucket": "acme-data", "mountPath": "/data", "readOnly": True}])
    plan = plan_config(cfg, stack="dev")
    principal = (f"principal://iam.googleapis.com/projects/{NUMBER}/locations/global/workloadIdentityPools/"
                 "acme-ml-dev.svc.id.goog/subject/ns/default/sa/trainer")
    assert {"bucket": "acme-data", "role": "roles/storage.objectViewer", "member": principal} in grants(plan)


@pytest.mark.slow
def test_without_the_project_number_a_principal_grant_is_asked_for_not_guessed():
    cfg = shipped("jax")
    cfg["pathways-gke:workloads"][1]["buckets"] = [{"bucket": "acme-ckpt"}]
    plan = plan_config(cfg, stack="jax")
    assert grants(plan) == []
    reader, action = actions(plan)  # writers also read the bucket's metadata (Orbax)
    assert reader.startswith("grant roles/storage.legacyBucketReader on gs://acme-ckpt to principal://")
    assert action.startswith("grant roles/storage.objectUser on gs://acme-ckpt to principal://iam.googleapis.com/"
                             "projects/PROJECT_NUMBER/locations/global/workloadIdentityPools/acme-ml-dev.svc.id.goog/"
                             "subject/ns/default/sa/default")
    assert "cluster.projectNumber" in action and "gcpServiceAccount" in action
    # a bound GCP service account needs no number
    cfg["pathways-gke:workloads"][1].update(serviceAccount="trainer",
                                            gcpServiceAccount="trainer@acme-ml-dev.iam.gserviceaccount.com")
    plan = plan_config(cfg, stack="jax")
    assert grants(plan) == [{"bucket": "acme-ckpt", "role": role,
                             "member": "serviceAccount:trainer@acme-ml-dev.iam.gserviceaccount.com"}
                            for role in ("roles/storage.legacyBucketReader", "roles/storage.objectUser")]
    assert actions(plan) == []


def test_a_bucket_in_another_project_is_reported_not_granted():
    cfg = shipped("dev")
    cfg["pathways-gke:buckets"] = [{"name": "acme-ml-dev-pathways", "project": "acme-shared-data"}]
    plan = plan_config(cfg, stack="dev")
    assert grants(plan) == []
    reader, action = actions(plan)
    assert reader.startswith("grant roles/storage.legacyBucketReader on gs://acme-ml-dev-pathways to ")
    assert action.startswith("grant roles/storage.objectUser on gs://acme-ml-dev-pathways to "
                             f"serviceAccount:{DEV_NODES}")
    assert "project acme-shared-data" in action
    assert "actions required" in render_tree(plan)


def test_a_user_managed_node_service_account_is_reported_with_metrics():
    cfg = shipped("dev")
    email = "gke-nodes@acme-ml-dev.iam.gserviceaccount.com"
    cfg["pathways-gke:cluster"]["nodeServiceAccount"] = {"email": email}
    cfg["pathways-gke:workloads"][0]["pathways"]["metrics"] = True
    plan = plan_config(cfg, stack="dev")
    assert grants(plan) == [] and not any(g["role"] == "roles/monitoring.metricWriter"
                                          for g in grants(plan, PROJECT_GRANT))
    listed = actions(plan)
    assert any(a.startswith(f"grant roles/storage.objectUser on gs://acme-ml-dev-pathways to serviceAccount:{email}")
               for a in listed)
    assert any(a.startswith(f"grant roles/monitoring.metricWriter on project acme-ml-dev to serviceAccount:{email}")
               for a in listed)
    # image streaming (on by default) calls the Container File System API as the nodes' account
    assert any(a.startswith(f"grant roles/serviceusage.serviceUsageConsumer on project acme-ml-dev to "
                            f"serviceAccount:{email}") for a in listed)


@pytest.mark.slow
def test_metrics_of_a_created_node_service_account_reuse_its_project_role():
    cfg = shipped("dev")
    cfg["pathways-gke:workloads"][0]["pathways"]["metrics"] = True
    plan = plan_config(cfg, stack="dev")
    writers = [g for g in grants(plan, PROJECT_GRANT) if g["role"] == "roles/monitoring.metricWriter"]
    assert len(writers) == 1  # the node SA's own; a second binding would be removed with either resource
    assert actions(plan) == []
    assert "writes Cloud Monitoring metrics" in plan.outputs["identities"]["train"]["summary"]


def test_a_created_scratch_bucket_outlives_destroy_and_expires_temporary_files():
    cfg = shipped("dev")
    cfg["pathways-gke:buckets"] = [{"name": "acme-ml-dev-pathways", "create": True, "temporaryObjectDays": 3}]
    plan = plan_config(cfg, stack="dev")
    bucket = plan.named("pw-dev-bucket-acme-ml-dev-pathways")
    assert bucket.type == "gcp:storage/bucket:Bucket"
    assert bucket.inputs["uniformBucketLevelAccess"] is True
    assert bucket.inputs["hierarchicalNamespace"] == {"enabled": True}
    assert bucket.inputs["location"] == "US-EAST5" and bucket.inputs["project"] == "acme-ml-dev"
    assert bucket.inputs["lifecycleRules"] == [{"action": {"type": "Delete"},
                                               "condition": {"age": 3, "matchesPrefixes": ["tmp/"]}}]
    assert bucket.options["retainOnDelete"] is True and bucket.inputs["forceDestroy"] is False
    grant = next(r for r in plan.resources if r.type == BUCKET_GRANT)
    assert bucket.urn in grant.depends_on


def private(cfg: dict, **cluster) -> dict:
    cfg["pathways-gke:cluster"].update(privateNodes=True, masterIpv4CidrBlock="172.16.0.32/28", **cluster)
    return cfg


@pytest.mark.slow
def test_a_private_cluster_plans_a_router_and_nat():
    plan = plan_config(private(shipped("dev")), stack="dev")
    router, nat = plan.named("pw-dev-router"), plan.named("pw-dev-nat")
    assert router.type == "gcp:compute/router:Router" and nat.type == "gcp:compute/routerNat:RouterNat"
    suffix = location_suffix("pw-dev", "us-east5")  # fixed names unique per location, like the node SA's id
    assert router.inputs == {"name": f"pw-dev-router-{suffix}", "project": "acme-ml-dev", "region": "us-east5",
                             "network": "default", "description": router.inputs["description"]}
    # only the nodes' subnetwork (all its ranges: nodes, pods, services), never every subnet of the region
    assert {k: nat.inputs[k] for k in ("name", "region", "router", "natIpAllocateOption",
                                       "sourceSubnetworkIpRangesToNat", "subnetworks")} == {
        "name": f"pw-dev-nat-{suffix}", "region": "us-east5", "router": f"pw-dev-router-{suffix}",
        "natIpAllocateOption": "AUTO_ONLY", "sourceSubnetworkIpRangesToNat": "LIST_OF_SUBNETWORKS",
        "subnetworks": [{"name": "projects/acme-ml-dev/regions/us-east5/subnetworks/default",
                         "sourceIpRangesToNats": ["ALL_IP_RANGES"]}]}
    # fixed names: a replacement deletes the old one first
    assert router.options["deleteBeforeReplace"] and nat.options["deleteBeforeReplace"]
    assert plan.named("pw-dev-webhooks").options["deleteBeforeReplace"]
    # the controllers' images come through the NAT
    install = next(r for r in plan.resources if r.type == "kubernetes:yaml/v2:ConfigFile")
    services = plan.named("pw-dev-services")
    assert nat.urn in services.depends_on or nat.urn in install.depends_on


def test_a_shared_vpc_gets_no_nat_by_default_and_the_plan_names_the_subnetwork_the_host_s_nat_must_cover():
    plan = plan_config(private(shipped("dev"), network="projects/acme-net-host/global/networks/shared",
                               **SHARED_SUBNET), stack="dev")
    assert not [r for r in plan.resources if r.type.startswith("gcp:compute/router")]
    assert plan.named("pw-dev-webhooks").inputs["project"] == "acme-net-host"
    [note] = [a for a in actions(plan) if "registry.k8s.io" in a]
    assert "project acme-net-host (Shared VPC)" in note and "cluster.nat.enabled: true" in note
    assert "projects/acme-net-host/regions/us-east5/subnetworks/gke" in note


def test_no_nat_when_the_network_has_one_and_the_plan_says_how_to_mirror_images():
    plan = plan_config(private(shipped("dev"), nat={"enabled": False}), stack="dev")
    assert not [r for r in plan.resources if r.type.startswith("gcp:compute/router")]
    [note] = actions(plan)
    assert "registry.k8s.io" in note and "Artifact Registry" in note and "jobset.manifest" in note


@pytest.mark.slow
def test_an_existing_router_gets_only_the_nat():
    plan = plan_config(private(shipped("dev"), nat={"router": "corp-router"}), stack="dev")
    assert not [r for r in plan.resources if r.type == "gcp:compute/router:Router"]
    assert plan.named("pw-dev-nat").inputs["router"] == "corp-router"


def test_public_clusters_get_no_nat(stack_plans):
    assert not [r for r in stack_plans("dev").resources if r.type.startswith("gcp:compute/router")]


SHARED_SUBNET = {"subnetwork": "projects/acme-net-host/regions/us-east5/subnetworks/gke",
                 "podsRangeName": "gke-pods", "servicesRangeName": "gke-services"}


@pytest.mark.slow
@pytest.mark.parametrize("cluster, host", [
    ({"network": "projects/acme-net-host/global/networks/shared", "nat": {"enabled": True}, **SHARED_SUBNET},
     "acme-net-host"),
    ({"network": "projects/acme-net-host/global/networks/shared", "networkProject": "acme-net-host",
      "nat": {"enabled": True}, **SHARED_SUBNET}, "acme-net-host"),
    ({}, "acme-ml-dev"),
])
def test_firewall_router_and_nat_live_in_the_networks_project_and_target_the_nodes(cluster, host):
    plan = plan_config(private(shipped("dev"), **cluster), stack="dev")
    firewall = plan.named("pw-dev-webhooks")
    assert firewall.inputs["project"] == host
    assert firewall.inputs["targetServiceAccounts"] == [DEV_NODES]
    assert plan.named("pw-dev-router").inputs["project"] == host
    assert plan.named("pw-dev-nat").inputs["project"] == host


def test_master_authorized_networks_reach_the_cluster():
    cfg = private(shipped("dev"), masterAuthorizedNetworks=[{"cidrBlock": "203.0.113.0/24", "displayName": "vpn"}])
    plan = plan_config(cfg, stack="dev")
    assert plan.named("pw-dev-cluster").inputs["masterAuthorizedNetworksConfig"] == {
        "cidrBlocks": [{"cidrBlock": "203.0.113.0/24", "displayName": "vpn"}]}


@pytest.mark.slow
def test_two_priority_classes_in_one_stack_both_heads_stay_alone():
    cfg = shipped("prod")
    second = copy.deepcopy(cfg["pathways-gke:workloads"][0])
    second.update(name="eval", priorityClass="low", mode="headless")
    for key in ("image", "command"):
        second.pop(key)
    cfg["pathways-gke:workloads"].append(second)
    plan = plan_config(cfg, stack="prod")
    heads = []
    for workload in ("llm-pretrain", "eval"):
        head = pods(plan, workload)[0]
        heads.append(head)
        assert head["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/safe-to-evict"] == "false"
        [term] = head["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert term["topologyKey"] == "kubernetes.io/hostname" and term["namespaceSelector"] == {}
        # the term selects every head, whatever its priority: each head's label is matched by the other's term
        assert term["labelSelector"] == {"matchLabels": {"pathways-gke/head": "true"}}
    assert {h["spec"]["priorityClassName"] for h in heads} == {"high", "low"}
    for head in heads:
        assert head["metadata"]["labels"]["pathways-gke/head"] == "true"


@pytest.mark.parametrize("change, path", [
    ({"gcpServiceAccount": "t@acme-ml-dev.iam.gserviceaccount.com"}, "workloads[0].gcpServiceAccount"),
    ({"serviceAccount": "trainer", "gcpServiceAccount": "trainer@acme"}, "workloads[0].gcpServiceAccount"),
    ({"buckets": [{"bucket": "gs://x"}]}, "workloads[0].buckets[0].bucket"),
    ({"buckets": [{"bucket": "acme-x", "access": "write"}]}, "workloads[0].buckets[0].access"),
    ({"serviceAccountExists": True}, "workloads[0].serviceAccountExists"),
])
def test_bad_identity_config_names_the_path(change, path):
    cfg = shipped("dev")
    cfg["pathways-gke:workloads"][0].update(change)
    with pytest.raises(ConfigError) as info:
        parse_stack(cfg)
    assert path in [p.path for p in info.value.problems]


def test_one_kubernetes_service_account_has_one_binding():
    cfg = shipped("prod")
    first = cfg["pathways-gke:workloads"][0]
    first.update(serviceAccount="trainer", gcpServiceAccount="alpha-trainer@acme-ml-prod.iam.gserviceaccount.com")
    second = copy.deepcopy(first)
    second.update(name="eval", gcpServiceAccount="beta-trainer@acme-ml-prod.iam.gserviceaccount.com")
    cfg["pathways-gke:workloads"].append(second)
    with pytest.raises(ConfigError) as info:
        parse_stack(cfg)
    assert [p.path for p in info.value.problems] == ["workloads[1].serviceAccount"]
    assert "workloads[0]" in info.value.problems[0].message


@pytest.mark.parametrize("cluster, path", [
    ({"nat": {"enabled": False, "router": "corp-router"}}, "cluster.nat.router"),
    ({"nat": {"router": "Corp Router"}}, "cluster.nat.router"),
    ({"masterAuthorizedNetworks": [{"cidrBlock": "10.0.0.300/24"}]}, "cluster.masterAuthorizedNetworks[0].cidrBlock"),
    ({"networkProject": "X"}, "cluster.networkProject"),
    ({"projectNumber": "acme"}, "cluster.projectNumber"),
])
def test_bad_egress_config_names_the_path(cluster, path):
    cfg = shipped("dev")
    cfg["pathways-gke:cluster"].update(cluster)
    with pytest.raises(ConfigError) as info:
        parse_stack(cfg)
    assert path in [p.path for p in info.value.problems]


def test_the_identity_follows_the_pod_spec_not_the_runtime():
    """The same Pathways pod read with and without hostNetwork: the node SA, then its KSA's principal."""
    from pathways_gke.config.placement import Placement
    from pathways_gke.render.objects import objects_for
    from pathways_gke.gke.identity import pod_identity

    cfg = shipped("dev")
    cfg["pathways-gke:cluster"]["projectNumber"] = NUMBER
    cfg["pathways-gke:workloads"][0]["serviceAccount"] = "trainer"
    stack = parse_stack(cfg)
    workload = stack.workloads[0]
    head = dict(objects_for(workload, Placement.of(stack, workload)).pod_templates())["pathways-head"]
    as_rendered = pod_identity(stack, workload, "pathways-head", head)
    assert as_rendered.host_network and as_rendered.identity.member == (
        f"serviceAccount:{DEV_NODES}")
    without = {**head, "spec": {**head["spec"], "hostNetwork": False}}
    moved = pod_identity(stack, workload, "pathways-head", without)
    assert moved.identity.with_number(NUMBER).endswith(f"/projects/{NUMBER}/locations/global/workloadIdentityPools/"
                                                        "acme-ml-dev.svc.id.goog/subject/ns/default/sa/trainer")
    assert [(n.role, n.bucket) for n in moved.needs] == [("roles/storage.objectUser", "acme-ml-dev-pathways"),
                                                         ("roles/storage.legacyBucketReader", "acme-ml-dev-pathways")]
    assert moved.needs[0].identity == moved.identity


def test_created_buckets_live_in_the_stacks_project():
    cfg = shipped("dev")
    cfg["pathways-gke:buckets"] = [{"name": "acme-x", "create": True, "project": "other-project"}]
    with pytest.raises(ConfigError) as info:
        parse_stack(cfg)
    assert [p.path for p in info.value.problems] == ["buckets[0].project"]


def test_the_docs_identity_example_is_the_real_plan(stack_plans):
    docs = (ROOT / "docs" / "pathways-workloads.md").read_text()
    section = docs[docs.index("## Identity: who the pods are to GCP"):docs.index("## Where the head runs")]
    [line] = [ln for ln in render_tree(stack_plans("dev")).splitlines() if ln.startswith("  train: runs as")]
    assert f"identities:\n{line}\n" in section
    assert "`hostNetwork: true`" in section and "node's service account" in section
    assert "roles/storage.objectUser" in section and "objectViewer` is read-only" in section

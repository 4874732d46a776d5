"""Pathways serving on a LeaderWorkerSet: the serve stack's plan, the rendered objects, and bad input.

Every rendered LeaderWorkerSet is checked against both stored LWS CRDs (v0.4.0, v0.10.0) and the LWS webhook
rules (tests/support/lws_rules.py); every built-in object against the Kubernetes OpenAPI schemas.
"""

import json

import pytest
import yaml

from pathways_gke.cli import main as cli_main
from pathways_gke.config.stack import parse_stack
from pathways_gke.errors import ConfigError
from pathways_gke.plan.diff import diff_plans
from pathways_gke.plan.engine import plan_config
from pathways_gke.render.serving_lws import serving_objects
from pathways_gke.config.placement import Placement
from tests.conftest import ROOT
from tests.support.stacks import parsed, shipped
from tests.support.crd import lws_schema_errors
from tests.support.k8s_schema import object_schema_errors, pod_from_template, pod_schema_errors
from tests.support.lws_rules import group_pods, lws_rule_errors, tpu_vms


LWS = "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
SERVICE = "kubernetes:core/v1:Service"
CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"
P = "pathways-gke:"


def workload(config, name):
    return next(w for w in config[f"{P}workloads"] if w["name"] == name)


def objects_of(config):
    stack = parse_stack(config)
    return {w.name: serving_objects(w, Placement.of(stack, w)) for w in stack.workloads if w.on_lws}


def selects(selector, labels):
    return all(labels.get(k) == v for k, v in selector.items())


# --- the serve stack's plan, as written by `plan --out` -------------------------------------------------------


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("serve")
    assert cli_main(["plan", "--stack", "serve", "--project-dir", str(ROOT), "--out", str(out)]) == 0
    return out


def written(out_dir, kind):
    docs = [yaml.safe_load(p.read_text()) for p in sorted(out_dir.glob("*.yaml"))]
    return [d for d in docs if d["kind"] == kind]


@pytest.mark.slow
def test_plan_out_writes_a_leaderworkerset_valid_for_lws_v0_10_whose_group_is_the_head_plus_its_vms(out_dir):
    lws = next(d for d in written(out_dir, "LeaderWorkerSet") if d["metadata"]["name"] == "llama-serve")
    assert lws_schema_errors(lws)["v0.10.0"] == []
    assert lws_rule_errors(lws, "v0.10.0") == []
    pods = group_pods(lws)
    # v6e-16 = 4x4 on ct6e-standard-4t: 4 TPU VMs, each running one worker; plus the head (leader)
    assert tpu_vms(pods) == 4
    assert lws["spec"]["leaderWorkerTemplate"]["size"] == 1 + 4 == len(pods)
    assert lws["spec"]["replicas"] == 2
    leader = pods[0]["spec"]
    assert {c["name"] for c in leader["containers"]} == {"jax-tpu", "pathways-proxy", "pathways-rm"}
    rm = next(c for c in leader["containers"] if c["name"] == "pathways-rm")
    assert "--instance_count=1" in rm["args"] and "--instance_type=tpuv6e:4x4" in rm["args"]


def test_plan_out_writes_a_service_that_selects_exactly_the_leaders(out_dir):
    lws = next(d for d in written(out_dir, "LeaderWorkerSet") if d["metadata"]["name"] == "llama-serve")
    [svc] = [d for d in written(out_dir, "Service") if d["metadata"]["name"] == "llama-serve-svc"]
    selector = svc["spec"]["selector"]
    for group in range(lws["spec"]["replicas"]):
        pods = group_pods(lws, group)
        assert [p["name"] for p in pods if selects(selector, p["labels"])] == [f"llama-serve-{group}"]
    # the port the Service forwards is a port the leader's server container declares and probes
    server = next(c for c in group_pods(lws)[0]["spec"]["containers"] if c["name"] == "jax-tpu")
    assert [p["port"] for p in svc["spec"]["ports"]] == [p["containerPort"] for p in server["ports"]] == [8000]
    assert server["readinessProbe"]["httpGet"] == {"path": "/health", "port": 8000}
    # loadBalancer: internal -> GKE's internal passthrough load balancer, never an external address
    assert svc["spec"]["type"] == "LoadBalancer"
    assert svc["metadata"]["annotations"] == {"networking.gke.io/load-balancer-type": "Internal",
                                              # `pulumi up` does not wait for a model to load
                                              "pulumi.com/skipAwait": "true"}


def test_the_leaderworkerset_waits_for_a_pinned_lws_install_and_its_webhook_gate(stack_plans):
    plan = stack_plans("serve").to_json()
    by_name = {r["name"]: r for r in plan["resources"]}
    install = by_name["pw-serve-services-lws"]
    assert install["type"] == CONFIG_FILE
    assert install["inputs"]["file"] == \
        "https://github.com/kubernetes-sigs/lws/releases/download/v0.10.0/manifests.yaml"
    gate, ready = by_name["pw-serve-services-lws-gate"], by_name["pw-serve-services-ready"]
    # pulumi-kubernetes awaits a Job until it completes: as long as the Job may keep retrying (20 min)
    assert gate["options"]["customTimeouts"] == {"create": "20m"}
    assert install["urn"] in gate["dependsOn"] and gate["urn"] in ready["dependsOn"]
    assert ready["inputs"]["data"]["lws.version"] == "v0.10.0"
    for lws in (r for r in plan["resources"] if r["type"] == LWS):
        assert {install["urn"], ready["urn"]} <= set(lws["dependsOn"]), lws["name"]


@pytest.mark.slow
def test_the_gate_job_passes_only_when_an_lws_create_would_pass_the_webhook(out_dir):
    [job] = written(out_dir, "Job")
    [container] = job["spec"]["template"]["spec"]["containers"]
    assert container["command"] + container["args"] == ["/bin/kubectl", "create", "--dry-run=server", "-f",
                                                        "/probe/probe.yaml"]
    assert job["spec"]["backoffLimit"] >= 5, "the Job's pod backoff is the retry loop"
    assert job["spec"]["template"]["spec"]["nodeSelector"] == {"cloud.google.com/gke-nodepool": "cpu-np"}
    [probe_map] = [d for d in written(out_dir, "ConfigMap") if d["metadata"]["name"] == "pathways-gke-lws-gate"]
    probe = yaml.safe_load(probe_map["data"]["probe.yaml"])
    assert probe["spec"]["replicas"] == 0  # a dry run; and even if created it would run nothing
    assert lws_schema_errors(probe) == {"v0.4.0": [], "v0.10.0": []}
    [role] = written(out_dir, "Role")
    assert role["rules"] == [{"apiGroups": ["leaderworkerset.x-k8s.io"], "resources": ["leaderworkersets"],
                              "verbs": ["create"]}]


@pytest.mark.slow
def test_every_built_in_object_validates_against_the_kubernetes_schemas(out_dir):
    checked = 0
    for kind in ("Service", "Deployment", "Job", "Role", "RoleBinding", "ServiceAccount", "ConfigMap"):
        for obj in written(out_dir, kind):
            assert object_schema_errors(obj) == {"1.29": [], "1.34": []}, obj["metadata"]["name"]
            checked += 1
    assert checked >= 10


def test_every_lws_pod_template_validates_as_a_pod(out_dir):
    for lws in written(out_dir, "LeaderWorkerSet"):
        template = lws["spec"]["leaderWorkerTemplate"]
        for which in ("leaderTemplate", "workerTemplate"):
            pod = pod_from_template(template[which], f"{lws['metadata']['name']}-0")
            assert pod_schema_errors(pod) == {"1.29": [], "1.34": []}, (lws["metadata"]["name"], which)


def test_the_head_runs_alone_per_node_and_is_never_evicted_by_the_autoscaler(out_dir, stack_plans):
    """The same head label and anti-affinity as a JobSet's Pathways head: a serving leader and a training head
    never share a node either."""
    jobset_heads = [job["template"]["spec"]["template"] for plan in ("dev", "prod")
                    for r in stack_plans(plan).to_json()["resources"] if r["type"].endswith(":JobSet")
                    for job in r["inputs"]["spec"]["replicatedJobs"] if job["name"] == "pathways-head"]
    assert jobset_heads
    for lws in written(out_dir, "LeaderWorkerSet"):
        leader = lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
        assert leader["metadata"]["labels"]["pathways-gke/head"] == "true"
        assert all(leader["spec"]["affinity"] == head["spec"]["affinity"] for head in jobset_heads)
        assert leader["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/safe-to-evict"] == "false"
        anti = leader["spec"]["affinity"]["podAntiAffinity"]
        assert set(anti) == {"requiredDuringSchedulingIgnoredDuringExecution"}  # no preference term
        [term] = anti["requiredDuringSchedulingIgnoredDuringExecution"]
        assert term["topologyKey"] == "kubernetes.io/hostname"
        assert term["labelSelector"] == {"matchLabels": {"pathways-gke/head": "true"}}
        assert term["namespaceSelector"] == {}  # every namespace's heads
        worker = lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]
        assert "pathways-gke/head" not in worker["metadata"]["labels"]


# --- layouts and the CRD versions -----------------------------------------------------------------------------


def layout_config(**serving):
    config = shipped("serve")
    w = workload(config, "llama-serve")
    w["serving"] = {**w["serving"], **serving}
    return config


@pytest.mark.slow
@pytest.mark.parametrize("serving, annotation, policy", [
    ({}, "leaderworkerset.sigs.k8s.io/exclusive-topology", None),
    ({"replicas": 1, "slicesPerReplica": 2}, "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology",
     {"subGroupSize": 4}),
    ({"leader": "cpu"}, "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology",
     {"subGroupSize": 4, "subGroupPolicyType": "LeaderExcluded"}),
    ({"leader": "cpu", "replicas": 1, "slicesPerReplica": 2},
     "leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology",
     {"subGroupSize": 4, "subGroupPolicyType": "LeaderExcluded"}),
], ids=["tpu-leader", "tpu-leader-2-slices", "cpu-leader", "cpu-leader-2-slices"])
def test_each_layout_places_one_slice_per_node_pool_and_validates(serving, annotation, policy):
    lws = objects_of(layout_config(**serving))["llama-serve"].lws
    template = lws["spec"]["leaderWorkerTemplate"]
    slices = serving.get("slicesPerReplica", 1)
    assert template["size"] == slices * 4 + 1
    assert lws["metadata"]["annotations"] == {annotation: "cloud.google.com/gke-nodepool"}
    assert template.get("subGroupPolicy") == policy
    rm = next(c for c in template["leaderTemplate"]["spec"]["containers"] if c["name"] == "pathways-rm")
    assert f"--instance_count={slices}" in rm["args"]
    errors = lws_schema_errors(lws)
    assert errors["v0.10.0"] == [] and lws_rule_errors(lws, "v0.10.0") == []
    leader_selector = template["leaderTemplate"]["spec"]["nodeSelector"]
    if serving.get("leader") == "cpu":
        assert leader_selector == {"cloud.google.com/gke-nodepool": "cpu-np"}
        # the floor is real: LWS v0.4.0's CRD has no LeaderExcluded (and its webhook none either)
        assert any("subGroupPolicyType" in e for e in errors["v0.4.0"])
        assert lws_rule_errors(lws, "v0.5.0") != []
    else:
        assert leader_selector["cloud.google.com/gke-tpu-topology"] == "4x4"
        assert errors["v0.4.0"] == [] and lws_rule_errors(lws, "v0.4.0") == []


def test_servers_reach_the_resource_manager_through_the_leader_address():
    lws = objects_of(shipped("serve"))["llama-serve"].lws
    template = lws["spec"]["leaderWorkerTemplate"]
    leader = {c["name"]: c for c in template["leaderTemplate"]["spec"]["containers"]}
    [worker] = template["workerTemplate"]["spec"]["containers"]
    assert "--resource_manager_address=$(LWS_LEADER_ADDRESS):29001" in leader["pathways-proxy"]["args"]
    assert "--resource_manager_address=$(LWS_LEADER_ADDRESS):29001" in worker["args"]
    assert {"name": "HOST_ADDRESS", "value": "$(LWS_LEADER_ADDRESS)"} in leader["pathways-rm"]["env"]
    env = {e["name"]: e.get("value") for e in leader["jax-tpu"]["env"]}
    assert env["JAX_PLATFORMS"] == "proxy" and env["JAX_BACKEND_TARGET"] == "grpc://localhost:29000"
    assert worker["resources"]["limits"] == {"google.com/tpu": "4"}


def test_startup_probe_allows_the_configured_checkpoint_loading_time():
    server = next(c for c in objects_of(shipped("serve"))["llama-serve"].lws["spec"]["leaderWorkerTemplate"]
                  ["leaderTemplate"]["spec"]["containers"] if c["name"] == "jax-tpu")
    startup = server["startupProbe"]
    assert startup["periodSeconds"] * startup["failureThreshold"] >= 2400  # serving.probes.startupSeconds
    assert server["livenessProbe"]["periodSeconds"] * server["livenessProbe"]["failureThreshold"] < 2400


def _serve_probes(**probes):
    config = shipped("serve")
    config[f"{P}workloads"][0]["serving"]["probes"] = {**config[f"{P}workloads"][0]["serving"].get("probes", {}),
                                                       **probes}
    return next(c for c in objects_of(config)["llama-serve"].lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]
                ["spec"]["containers"] if c["name"] == "jax-tpu")


@pytest.mark.parametrize("period", [1, 7, 10, 60, 300])
def test_liveness_tolerates_at_least_googles_600_seconds_of_failed_checks_by_default(period):
    """Google's JetStream manifests: liveness every 60 s, failureThreshold 10. A liveness restart recreates the
    whole group (a 405B reload is 10-20 minutes), so the default never restarts sooner than they do."""
    live = _serve_probes(periodSeconds=period)["livenessProbe"]
    assert live["periodSeconds"] == period
    assert 600 <= live["periodSeconds"] * live["failureThreshold"] < 600 + period
    assert "timeoutSeconds" not in live  # Kubernetes' default 1 s


def test_the_liveness_threshold_and_timeout_are_set_apart_from_startup_and_readiness():
    server = _serve_probes(livenessFailureThreshold=4, livenessTimeoutSeconds=5)
    assert (server["livenessProbe"]["failureThreshold"], server["livenessProbe"]["timeoutSeconds"]) == (4, 5)
    for probe in ("startupProbe", "readinessProbe"):
        assert "timeoutSeconds" not in server[probe] and server[probe]["failureThreshold"] != 4


def test_kueue_on_puts_the_queue_label_on_the_leaderworkerset():
    config = shipped("serve")
    config[f"{P}kueue"] = {"enabled": True}
    lws = objects_of(config)["llama-serve"].lws
    assert lws["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "pathways-queue"
    assert "kueue.x-k8s.io/queue-name" not in objects_of(shipped("serve"))["llama-serve"].lws["metadata"]["labels"]


def test_lws_is_installed_only_when_a_serving_or_service_workload_exists():
    plan = plan_config(shipped("dev"), stack="dev")
    assert [r.name for r in plan.resources if r.type == CONFIG_FILE] == ["pw-dev-services-jobset"]
    assert not [r for r in plan.resources if "lws" in r.name]


# --- mode service ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_service_mode_renders_a_resource_manager_only_backend_and_one_proxy_per_client():
    objects = objects_of(shipped("serve"))["shared-pw"]
    lws = objects.lws
    template = lws["spec"]["leaderWorkerTemplate"]
    assert [c["name"] for c in template["leaderTemplate"]["spec"]["containers"]] == ["pathways-rm"]
    assert template["restartPolicy"] == "None", "a failed worker restarts in place; the backend stays up"
    errors = lws_schema_errors(lws)
    assert errors["v0.10.0"] == []
    # the CPU leader needs LeaderExcluded, which LWS v0.4.0 does not have (hence lws.version >= v0.6.0 for it)
    assert errors["v0.4.0"] and all("subGroupPolicyType" in e for e in errors["v0.4.0"])
    assert lws_rule_errors(lws, "v0.10.0") == []
    assert objects.service is None
    assert sorted(objects.clients) == ["alice", "bob"]
    for client, (deployment, service) in objects.clients.items():
        [proxy] = deployment["spec"]["template"]["spec"]["containers"]
        assert "--resource_manager_address=shared-pw-0.shared-pw:29001" in proxy["args"]
        assert "--virtual_slices=tpuv6e:4x4" in proxy["args"]
        assert selects(service["spec"]["selector"], deployment["spec"]["template"]["metadata"]["labels"])
        assert service["metadata"]["name"] == f"shared-pw-proxy-{client}"
        assert object_schema_errors(deployment) == object_schema_errors(service) == {"1.29": [], "1.34": []}


def test_each_client_gets_its_own_connection_address_as_an_output(stack_plans):
    outputs = stack_plans("serve").outputs
    assert outputs["clientTargets"] == {"shared-pw": {
        "alice": "grpc://shared-pw-proxy-alice.default.svc.cluster.local:29000",
        "bob": "grpc://shared-pw-proxy-bob.default.svc.cluster.local:29000"}}
    assert outputs["servingEndpoints"] == {"llama-serve": "http://llama-serve-svc.default.svc.cluster.local:8000"}


@pytest.mark.slow
def test_removing_a_client_changes_only_that_clients_objects(stack_plans):
    config = shipped("serve")
    workload(config, "shared-pw")["service"]["clients"] = ["alice"]
    diff = diff_plans(stack_plans("serve"), plan_config(config, stack="serve"))
    assert sorted(r["name"] for r in diff.removed) == ["pw-serve-shared-pw-proxy-bob",
                                                       "pw-serve-shared-pw-proxy-bob-svc"]
    assert (diff.added, diff.changed) == ((), ())


@pytest.mark.slow
def test_adding_a_client_adds_only_that_clients_objects(stack_plans):
    config = shipped("serve")
    workload(config, "shared-pw")["service"]["clients"].append("carol")
    diff = diff_plans(stack_plans("serve"), plan_config(config, stack="serve"))
    assert sorted(r["name"] for r in diff.added) == ["pw-serve-shared-pw-proxy-carol",
                                                     "pw-serve-shared-pw-proxy-carol-svc"]
    assert (diff.removed, diff.changed) == ((), ())


# --- bad input: exit 2 naming the path, nothing registered ----------------------------------------------------


def _lws_04(config):
    config[f"{P}lws"] = {"version": "v0.4.0"}


def _long_name(config):
    workload(config, "llama-serve")["name"] = "s" + "x" * 50


def _too_many_replicas(config):
    workload(config, "llama-serve")["serving"]["replicas"] = 3


def _two_slices_each(config):
    workload(config, "llama-serve")["serving"].update(replicas=2, slicesPerReplica=2)


def _proxy_port(config):
    workload(config, "llama-serve")["serving"]["port"] = 29000


def _rm_port_in_list(config):
    workload(config, "llama-serve")["serving"].pop("port")
    workload(config, "llama-serve")["serving"]["ports"] = [{"port": 8000}, {"port": 29001, "name": "grpc"}]


def _cpu_leader_old_lws(config):
    config[f"{P}lws"] = {"version": "v0.5.0"}
    workload(config, "llama-serve")["serving"]["leader"] = "cpu"


def _no_serving_block(config):
    workload(config, "llama-serve").pop("serving")


def _sibling_name(config):
    workload(config, "shared-pw")["name"] = "llama-serve-1"


def _service_client_slices(config):
    workload(config, "shared-pw")["service"]["clientSlices"] = 2


@pytest.mark.parametrize("mutate, path, fragments", [
    (_lws_04, "lws.version", ("v0.4.0", "older than v0.5.0", "kube-rbac-proxy")),
    (_long_name, "workloads[3].name", ("51 characters", "50 in modes serving/service")),
    (_too_many_replicas, "workloads[3].serving.replicas", ("3 x serving.slicesPerReplica 1 = 3 slices", "has (2)")),
    (_two_slices_each, "workloads[3].serving.replicas", ("2 x serving.slicesPerReplica 2 = 4 slices", "'serve'")),
    (_proxy_port, "workloads[3].serving.port", ("29000", "Pathways servers")),
    (_rm_port_in_list, "workloads[3].serving.ports[1].port", ("29001",)),
    (_cpu_leader_old_lws, "workloads[3].serving.leader", ("v0.6.0", "v0.5.0")),
    (_no_serving_block, "workloads[3].serving", ("required for mode 'serving'",)),
    (_sibling_name, "workloads[4].name", ("collides", "llama-serve")),
    (_service_client_slices, "workloads[4].service.clientSlices", ("1 slice",)),
], ids=lambda v: getattr(v, "__name__", None) or (v if isinstance(v, str) else ""))
def test_bad_serving_input_exits_2_naming_the_path(mutate, path, fragments, tmp_path, capsys, recording_runs):
    config = shipped("serve")
    # two JobSet-era workloads first, so paths are not accidentally index 0
    train = {"name": "train", "runtime": "jax", "image": "us-docker.pkg.dev/acme/train/jax:2026-11-20",
             "command": "python3 run.py", "jax": {"processes": 1}}
    config[f"{P}workloads"] = [train, {**train, "name": "eval"}, {**train, "name": "smoke"},
                               *config[f"{P}workloads"]]
    mutate(config)
    stack_file = tmp_path / "Pulumi.bad.yaml"
    stack_file.write_text(yaml.safe_dump({"config": config}))
    code = cli_main(["plan", "--config", str(stack_file), "--project-dir", str(ROOT)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    line = next((ln for ln in err.splitlines() if f"- {path}:" in ln), None)
    assert line is not None, err
    for fragment in fragments:
        assert fragment in line, (fragment, line)
    assert recording_runs == []


def test_a_serving_name_may_be_longer_than_the_jobset_limit_but_a_jobset_name_may_not():
    config = shipped("serve")
    workload(config, "llama-serve")["name"] = "llama-3-1-70b-instruct-serving"  # 30 > 22
    parse_stack(config)
    config = shipped("serve")
    config[f"{P}workloads"].append({"name": "train-a-very-long-name-x", "runtime": "pathways", "tpuPool": "serve",
                                    "image": "us-docker.pkg.dev/a/b:1", "pathways": {"version": "jax-0.9.2",
                                                                                  "gcsScratch": "gs://acme-b/t"}})
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    assert caught.value.paths == ["workloads[2].name"]
    assert "at most 22" in str(caught.value)


def test_serving_blocks_belong_to_their_mode():
    config = shipped("serve")
    workload(config, "llama-serve")["mode"] = "default"
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    assert caught.value.paths == ["workloads[0].serving"]
    assert "mode 'serving' only" in str(caught.value)


@pytest.mark.slow
def test_plan_json_is_deterministic_for_the_serve_stack(stack_plans):
    again = plan_config(shipped("serve"), stack="serve")
    assert json.loads(again.dumps()) == json.loads(stack_plans("serve").dumps())


@pytest.mark.slow
def test_dropping_the_internal_load_balancer_updates_only_the_service_in_place(stack_plans):
    # pulumi-kubernetes forces replacement of a Service only on spec.clusterIP (provider/pkg/provider/diff.go);
    # spec.type and the load-balancer annotation are updated in place, and the API server drops the node ports
    # a ClusterIP Service no longer has.
    config = shipped("serve")
    workload(config, "llama-serve")["serving"].pop("loadBalancer")
    diff = diff_plans(stack_plans("serve"), plan_config(config, stack="serve"))
    [change] = diff.changed
    assert change.name == "pw-serve-llama-serve-svc" and "spec.type" in change.properties
    assert not change.replace and change.refusals == ()
    assert diff.new_resources[change.urn]["options"]["deleteBeforeReplace"] is True  # if it is ever replaced


# --- the LWS install: same machinery as JobSet/Kueue -----------------------------------------------------------


def test_the_lws_install_protects_its_crd_and_records_its_version_in_the_readiness_gate():
    from pathways_gke.addons import services_spec
    from pathways_gke.addons.install import install_resource_name, resource_prefix

    spec = services_spec(parse_stack(shipped("serve")))
    assert spec.lws is not None and (spec.lws.version, spec.lws.origin) == ("v0.10.0", "release")
    # children named after this cluster's install (two clusters never share a URN), never after the version
    assert resource_prefix(install_resource_name("pw-serve-services", "lws")) == "pw-serve-services-lws"
    assert "v0.10.0" not in spec.lws.legacy_prefix
    assert "leaderworkersets.leaderworkerset.x-k8s.io" in spec.protected_crds
    assert spec.marker["data"]["lws.source"] == spec.lws.file
    dev = services_spec(parsed("dev"))
    assert (dev.lws, dev.lws_gate, dev.protected_crds) == (None, (), ("jobsets.jobset.x-k8s.io",))


def test_a_local_lws_manifest_is_checked_like_the_jobset_one(tmp_path):
    manifest = tmp_path / "lws.yaml"
    manifest.write_text("kind: CustomResourceDefinition\nmetadata:\n  name: leaderworkersets.leaderworkerset.x-k8s.io\n"
                        "---\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n"
                        "      - image: registry.k8s.io/lws/lws:v0.9.0\n")
    config = shipped("serve")
    config[f"{P}lws"] = {"version": "v0.10.0", "manifest": str(manifest)}
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    assert caught.value.paths == ["lws.manifest"] and "v0.9.0" in str(caught.value)
    config[f"{P}lws"]["version"] = "v0.9.0"
    from pathways_gke.addons import services_spec

    assert services_spec(parse_stack(config)).lws.file == str(manifest)


def test_the_workloads_namespace_cannot_be_the_lws_system_namespace():
    config = shipped("serve")
    config[f"{P}namespace"] = "lws-system"
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    assert caught.value.paths == ["namespace"] and "lws" in str(caught.value)


QUEUE_NAME = 'metadata.labels["kueue.x-k8s.io/queue-name"]'  # Kueue refuses adding or removing it in place


@pytest.mark.slow
@pytest.mark.parametrize("version, replaced", [
    ("v0.10.0", [QUEUE_NAME, "spec.leaderWorkerTemplate.subGroupPolicy"]),
    ("v0.6.1", [QUEUE_NAME, "spec.leaderWorkerTemplate.subGroupPolicy", "spec.leaderWorkerTemplate.size"]),
])
def test_fields_the_lws_webhook_will_not_update_replace_the_leaderworkerset(version, replaced):
    config = shipped("serve")
    config[f"{P}lws"] = {"version": version}
    plan = plan_config(config, stack="serve")
    lws = plan.named("pw-serve-llama-serve-lws")
    assert sorted(lws.options["replaceOnChanges"]) == sorted(replaced)
    assert lws.options["deleteBeforeReplace"] is True  # fixed name


def test_a_name_limit_shrinks_with_more_than_ten_groups():
    config = shipped("serve")
    config[f"{P}tpuPools"][0]["slices"] = 11
    w = workload(config, "llama-serve")
    w["serving"]["replicas"] = 11
    w["name"] = "l" * 50
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    assert caught.value.paths == ["workloads[0].name"]
    assert "11 group(s) allows at most 49" in str(caught.value)
    w["name"] = "l" * 49
    lws = objects_of(config)["l" * 49].lws
    assert lws_rule_errors(lws) == []


# --- the real path: identity, replacement order ---------------------------------------------------------------


def test_serving_pods_use_the_pod_network_so_they_run_as_their_kubernetes_service_account():
    """Not hostNetwork (unlike the JobSet layout): Workload Identity maps every LWS and proxy pod to its KSA, so
    GCS (the scratch location, checkpoints) is reached as that KSA's principal, never as the node's SA."""
    config = shipped("serve")
    for name in ("llama-serve", "shared-pw"):
        workload(config, name)["serviceAccount"] = "serving-ksa"
    for objects in objects_of(config).values():
        template = objects.lws["spec"]["leaderWorkerTemplate"]
        pods = [template["leaderTemplate"]["spec"], template["workerTemplate"]["spec"],
                *(d["spec"]["template"]["spec"] for d, _ in objects.clients.values())]
        for pod in pods:
            assert "hostNetwork" not in pod and "dnsPolicy" not in pod
            assert pod["serviceAccountName"] == "serving-ksa"


def test_every_fixed_name_object_is_deleted_before_it_is_replaced(stack_plans):
    plan = stack_plans("serve")
    fixed = [r for r in plan.resources if r.type in (LWS, SERVICE, DEPLOYMENT, "kubernetes:batch/v1:Job")]
    assert len(fixed) == 8
    for r in fixed:
        assert r.options["deleteBeforeReplace"] is True, r.name


@pytest.mark.slow
def test_the_lws_controller_is_installed_with_the_shared_transforms_kept_on_the_cpu_pool_its_crd_protected(
        monkeypatch):
    import pulumi

    from pathways_gke import services
    from pathways_gke import tokens

    seen = {}
    real = services.k8s.yaml.v2.ConfigFile

    def recording(name, *args, opts=None, **kwargs):
        seen[name] = opts.transforms
        return real(name, *args, opts=opts, **kwargs)

    monkeypatch.setattr(services.k8s.yaml.v2, "ConfigFile", recording)
    plan_config(shipped("serve"), stack="serve")
    transforms = seen["pw-serve-services-lws"]
    # the JobSet's transforms, less the controller sizing that only JobSet and Kueue get
    shared = [t for t in seen["pw-serve-services-jobset"] if "sized_for_cluster" not in t.__qualname__]
    assert [t.__qualname__ for t in transforms] == [t.__qualname__ for t in shared]

    def apply(type_, props):
        opts = pulumi.ResourceOptions()
        for transform in transforms:
            result = transform(pulumi.ResourceTransformArgs(True, type_, "lws:x", props, opts))
            if result is not None:
                props, opts = result.props, result.opts
        return props, opts

    deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": "lws-controller-manager", "namespace": "lws-system"},
                  "spec": {"template": {"spec": {"containers": [{"name": "manager",
                                                                 "image": "registry.k8s.io/lws/lws:v0.10.0"}]}}}}
    props, _ = apply(tokens.DEPLOYMENT, deployment)
    assert props["spec"]["template"]["spec"]["nodeSelector"] == {"cloud.google.com/gke-nodepool": "cpu-np"}
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "leaderworkersets.leaderworkerset.x-k8s.io"}}
    _, opts = apply(tokens.CRD, crd)
    assert opts.protect is False  # the serve cluster is not protected, so `pulumi destroy` may remove it
    from pathways_gke.services import protect_crds

    protected = protect_crds(("leaderworkersets.leaderworkerset.x-k8s.io",), protected=True)
    result = protected(pulumi.ResourceTransformArgs(True, tokens.CRD, "lws:x", crd, pulumi.ResourceOptions()))
    assert result.opts.protect is True  # where the cluster is protected, so is the CRD


# --- property: any serving layout the checks accept renders a valid LeaderWorkerSet ---------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SHAPES = [("v6e", "4x4"), ("v6e", "2x2"), ("v5e", "2x4"), ("v5p", "2x2x2"), ("v4", "2x2x4"), ("tpu7x", "2x2x2")]
SERVING_PATHS = ("workloads[0].serving.", "workloads[0].name")


@pytest.mark.slow
@settings(max_examples=60, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(shape=st.sampled_from(SHAPES), slices=st.integers(1, 6), replicas=st.integers(1, 6),
       per_replica=st.integers(1, 3), surge=st.integers(0, 2), leader=st.sampled_from(["tpu", "cpu"]),
       port=st.sampled_from([8000, 9000, 29000, 8080, 30000]), name_length=st.integers(3, 50),
       lws_version=st.sampled_from(["v0.5.0", "v0.6.1", "v0.10.0"]))
def test_any_accepted_serving_layout_renders_a_valid_leaderworkerset(shape, slices, replicas, per_replica, surge,
                                                                     leader, port, name_length, lws_version):
    generation, topology = shape
    config = shipped("serve")
    config[f"{P}tpuPools"] = [{"name": "serve", "type": generation, "topology": topology, "slices": slices,
                               "zone": "us-east5-b", "capacity": "on-demand"}]
    config[f"{P}lws"] = {"version": lws_version}
    w = workload(config, "llama-serve")
    w["name"] = ("s" + "erving-" * 10)[:name_length].rstrip("-")
    w["serving"] = {"port": port, "replicas": replicas, "slicesPerReplica": per_replica, "maxSurge": surge,
                    "leader": leader}
    config[f"{P}workloads"] = [w]
    try:
        stack = parse_stack(config)
    except ConfigError as exc:
        assert exc.paths and all(p.startswith(SERVING_PATHS) for p in exc.paths), str(exc)
        assert (replicas + surge) * per_replica > slices or port == 29000 or \
            (leader == "cpu" and lws_version == "v0.5.0"), str(exc)
        return
    # 8080 is a worker port, in the worker pods: the server shares its pod with the proxy and RM only
    assert (replicas + surge) * per_replica <= slices and port != 29000
    [wl] = stack.workloads
    target = Placement.of(stack, wl)
    lws = serving_objects(wl, target).lws
    assert lws_schema_errors(lws)["v0.10.0"] == []
    assert lws_rule_errors(lws, lws_version) == []
    assert lws["spec"]["leaderWorkerTemplate"]["size"] == per_replica * target.shape.vms_per_slice + 1
    assert tpu_vms(group_pods(lws)) == per_replica * target.shape.vms_per_slice


def test_serving_pods_are_their_kubernetes_service_account_and_get_the_scratch_grant(stack_plans):
    """LeaderWorkerSet pods (leader, workers, client proxies) do not use host networking: to GCP they are the
    Workload Identity principal of their Kubernetes service account, which the stack grants the scratch write."""
    plan = stack_plans("serve").to_json()
    identities = plan["outputs"]["identities"]
    for workload in ("llama-serve", "shared-pw"):
        pods = identities[workload]["pods"]
        assert {"leader", "worker"} <= set(pods)
        assert all(not pod["hostNetwork"] and pod["runsAs"].startswith("principal://") for pod in pods.values())
    assert set(identities["shared-pw"]["pods"]) == {"leader", "worker", "proxy-alice", "proxy-bob"}
    grants = [r for r in plan["resources"] if r["type"] == "gcp:storage/bucketIAMMember:BucketIAMMember"]
    principal = identities["llama-serve"]["pods"]["leader"]["runsAs"]
    assert any(g["inputs"]["member"] == principal and g["inputs"]["role"] == "roles/storage.objectUser"
               and g["inputs"]["bucket"] == "acme-ml-prod-pathways" for g in grants)
    assert [a for a in plan["outputs"]["actionsRequired"] if not a.startswith("enable ")] == []


def test_console_links_and_alerts_know_a_leaderworkerset_is_not_a_jobset(stack_plans):
    links = stack_plans("serve").to_json()["outputs"]["consoleLinks"]["workloads"]
    for name in ("llama-serve", "shared-pw"):
        assert set(links[name]) == {"leaderWorkerSet", "logs"}
        assert "leaderworkerset_sigs_k8s_io%2Fname" in links[name]["logs"] and f"%22{name}%22" in links[name]["logs"]
    from pathways_gke.gke.observability import alert_policy_specs

    # JobSet metrics say nothing about a LeaderWorkerSet: alerts on a stack whose every workload serves are refused
    with pytest.raises(ConfigError, match="observability.alerts: true watches the JobSets") as caught:
        parsed("serve", observability={"alerts": True})
    assert "every workload serves on a LeaderWorkerSet" in str(caught.value)
    mixed = parsed("dev", observability={"alerts": True})
    assert alert_policy_specs(mixed) and all("llama" not in suffix for suffix, _ in alert_policy_specs(mixed))


def test_a_standalone_pathways_serving_refuses_keys_its_runtime_does_not_read():
    """The component validates its args like the stack does: a `jax:` block on a Pathways workload is refused
    with its path, never silently dropped (the same rule as PathwaysWorkload)."""
    from pathways_gke.errors import ConfigError
    from pathways_gke.workloads.serving import validate_args

    args = {"workload": {"name": "chat", "mode": "serving", "image": "us-docker.pkg.dev/acme/serve/s:1",
                         "command": "serve", "serving": {"port": 8000},
                         "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"},
                         "jax": {"processes": 4}},
            "tpu_type": "v6e-16", "slices": 2}
    with pytest.raises(ConfigError) as caught:
        validate_args(args)
    assert caught.value.paths == ["workload.jax"]
    del args["workload"]["jax"]
    checked = validate_args(args)
    workload, objects, secrets = checked.workload, checked.objects, checked.secret_values
    assert workload.name == "chat" and objects.primary["metadata"]["name"] == "chat" and secrets == {}

"""At scale and over long runs: cold starts, cluster DNS, controller sizing, observability (docs/at-scale.md).

Every assertion reads a real offline plan (or the pure function the component registers), and every feature
is checked on and off.
"""

import json
import math

import pytest

from pathways_gke import tokens
from pathways_gke.addons import services_spec
from pathways_gke.addons.sizing import (SIZING, controller_resources, size_controller, stack_controller_resources,
                                        stack_node_count)
from pathways_gke.cli import main as cli_main
from pathways_gke.config.stack import parse_stack
from pathways_gke.errors import ConfigError
from pathways_gke.plan.critical_path import critical_path, validate_durations
from pathways_gke.plan.engine import plan_config
from pathways_gke.services import install_transforms
from tests.conftest import ROOT
from tests.support.stacks import merged, parsed, shipped


CLUSTER = "gcp:container/cluster:Cluster"
NODE_POOL = "gcp:container/nodePool:NodePool"
CONFIG_MAP = "kubernetes:core/v1:ConfigMap"
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
ALERT = "gcp:monitoring/alertPolicy:AlertPolicy"
MULTI_HOST_STACKS = ("dev", "prod", "jax")  # every stack in stacks/ has multi-host slices
CACHE_IMAGE = "projects/acme-ml-prod/global/images/pathways-cache-2026-11-20"


def plan_of(config: dict, stack: str = "test") -> dict:
    return plan_config(config, stack=stack).to_json()


def of_type(plan: dict, type_: str) -> list[dict]:
    return [r for r in plan["resources"] if r["type"] == type_]


def cluster_inputs(plan: dict) -> dict:
    [cluster] = of_type(plan, CLUSTER)
    return cluster["inputs"]


def marker(plan: dict) -> dict:
    [gate] = [r for r in of_type(plan, CONFIG_MAP) if r["inputs"]["metadata"]["name"] == "pathways-gke-services"]
    return gate["inputs"]["data"]


@pytest.fixture(scope="module")
def plans(stack_plans):
    return {name: stack_plans(name).to_json() for name in MULTI_HOST_STACKS}


# --- acceptance: what every multi-host plan shows ------------------------------------------------


@pytest.mark.parametrize("stack", MULTI_HOST_STACKS)
def test_multi_host_plans_stream_images_on_every_pool(plans, stack):
    pools = of_type(plans[stack], NODE_POOL)
    assert len(pools) >= 2
    assert {p["name"]: p["inputs"]["nodeConfig"].get("gcfsConfig") for p in pools} == \
        {p["name"]: {"enabled": True} for p in pools}


@pytest.mark.parametrize("stack", MULTI_HOST_STACKS)
def test_multi_host_plans_use_cloud_dns_in_cluster_scope(plans, stack):
    inputs = cluster_inputs(plans[stack])
    assert inputs["dnsConfig"] == {"clusterDns": "CLOUD_DNS", "clusterDnsScope": "CLUSTER_SCOPE"}
    assert "dnsCacheConfig" not in inputs["addonsConfig"]


@pytest.mark.parametrize("stack", MULTI_HOST_STACKS)
def test_multi_host_plans_turn_on_managed_prometheus_and_the_dashboard_metrics(plans, stack):
    inputs = cluster_inputs(plans[stack])
    assert inputs["monitoringConfig"]["managedPrometheus"] == {"enabled": True}
    assert {"SYSTEM_COMPONENTS", "JOBSET", "POD"} <= set(inputs["monitoringConfig"]["enableComponents"])
    assert set(inputs["loggingConfig"]["enableComponents"]) == {"SYSTEM_COMPONENTS", "WORKLOADS"}


@pytest.mark.parametrize("stack", MULTI_HOST_STACKS)
def test_multi_host_plans_export_console_links_for_the_cluster_and_each_workload(plans, stack):
    links = plans[stack]["outputs"]["consoleLinks"]
    config = parsed(stack)
    c = config.cluster
    assert links["tpuDashboard"] == (f"https://console.cloud.google.com/kubernetes/clusters/details/{c.location}/"
                                     f"{c.name}/observability?project={config.project}")
    assert set(links["workloads"]) == {w.name for w in config.workloads}
    for name, workload_links in links["workloads"].items():
        assert workload_links["jobset"] == (f"https://console.cloud.google.com/kubernetes/service/{c.location}/"
                                            f"{c.name}/{config.namespace}/{name}/details?project={config.project}")
        assert workload_links["logs"].startswith("https://console.cloud.google.com/logs/query;query=")
        assert f"%22{name}%22" in workload_links["logs"] and "jobset_sigs_k8s_io%2Fjobset-name" in workload_links["logs"]


def test_pinned_images_are_pulled_if_not_present_so_a_restarted_pod_reuses_the_node_copy(plans):
    for plan in plans.values():
        for jobset in of_type(plan, JOBSET):
            for rj in jobset["inputs"]["spec"]["replicatedJobs"]:
                pod = rj["template"]["spec"]["template"]["spec"]
                for container in [*pod.get("initContainers", ()), *pod["containers"]]:
                    assert container["imagePullPolicy"] == "IfNotPresent", (jobset["name"], container["name"])


# --- switches -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_image_streaming_can_be_switched_off_per_pool():
    config = merged("dev", cpuPool={"imageStreaming": False}, tpuPools=[{"imageStreaming": False}])
    pools = of_type(plan_of(config), NODE_POOL)
    assert [p["inputs"]["nodeConfig"].get("gcfsConfig") for p in pools] == [None, None]


@pytest.mark.slow
def test_an_image_cache_disk_is_a_container_image_cache_secondary_boot_disk_on_that_pool_only():
    config = shipped("prod")
    config["pathways-gke:tpuPools"][0]["imageCacheDisk"] = CACHE_IMAGE
    pools = {p["name"]: p for p in of_type(plan_of(config), NODE_POOL)}
    for name, pool in pools.items():
        disks = pool["inputs"]["nodeConfig"].get("secondaryBootDisks")
        if name.startswith("pw-prod-train-"):
            assert disks == [{"diskImage": CACHE_IMAGE, "mode": "CONTAINER_IMAGE_CACHE"}]
            assert pool["inputs"]["nodeConfig"]["gcfsConfig"] == {"enabled": True}, "the cache needs GCFS"
            # secondary_boot_disks is force-new in the provider: a new disk image replaces the slice pool,
            # which under its fixed GKE name works only delete-first
            assert pool["options"]["deleteBeforeReplace"] is True
        else:
            assert disks is None


@pytest.mark.slow
@pytest.mark.parametrize("dns, dns_config, cache", [
    ("cloud-dns", {"clusterDns": "CLOUD_DNS", "clusterDnsScope": "CLUSTER_SCOPE"}, None),
    ("nodelocal-dnscache", None, {"enabled": True}),
    ("gke-default", None, None),
])
def test_the_dns_provider_is_switchable(dns, dns_config, cache):
    inputs = cluster_inputs(plan_of(merged("dev", cluster={"dns": dns})))
    assert inputs.get("dnsConfig") == dns_config
    assert inputs["addonsConfig"].get("dnsCacheConfig") == cache


@pytest.mark.slow
def test_auto_dns_leaves_a_single_host_only_cluster_on_gke_default():
    config = shipped("dev")
    config["pathways-gke:tpuPools"][0].update(topology="2x2")  # v6e 2x2: one VM
    assert parse_stack(config).tpu_pools[0].shape.multi_host is False
    inputs = cluster_inputs(plan_of(config))
    assert "dnsConfig" not in inputs and "dnsCacheConfig" not in inputs["addonsConfig"]


def test_managed_prometheus_and_console_links_are_switchable():
    config = merged("dev", observability={"managedPrometheus": False, "consoleLinks": False})
    plan = plan_of(config)
    inputs = cluster_inputs(plan)
    assert "monitoringConfig" not in inputs and "loggingConfig" not in inputs
    assert "consoleLinks" not in plan["outputs"]


@pytest.mark.slow
def test_alert_policies_are_opt_in_and_watch_each_workload_for_missing_workers_and_restarts():
    assert of_type(plan_of(shipped("prod")), ALERT) == []
    channel = "projects/acme-ml-prod/notificationChannels/123"
    config = merged("prod", observability={"alerts": True, "stuckMinutes": 30, "notificationChannels": [channel]})
    policies = {p["name"]: p["inputs"] for p in of_type(plan_of(config), ALERT)}
    assert set(policies) == {"pw-prod-llm-pretrain-stuck-alert", "pw-prod-llm-pretrain-restart-alert"}
    stuck = policies["pw-prod-llm-pretrain-stuck-alert"]
    [condition] = stuck["conditions"]
    query = condition["conditionPrometheusQueryLanguage"]
    assert "kube_jobset_ready_replicas" in query["query"] and 'jobset_name="llm-pretrain"' in query["query"]
    assert 'namespace="ml"' in query["query"] and 'cluster="pw-prod"' in query["query"]
    assert query["duration"] == "1800s"
    assert stuck["notificationChannels"] == [channel]
    [restart] = policies["pw-prod-llm-pretrain-restart-alert"]["conditions"]
    assert "kube_jobset_restarts" in restart["conditionPrometheusQueryLanguage"]["query"]
    # Cloud Monitoring names policies itself (no `name` input): a changed policy is replaced create-first
    # without a name clash, so no deleteBeforeReplace is needed; `pulumi destroy` deletes them
    assert all("name" not in p for p in policies.values())


# --- controller sizing ----------------------------------------------------------------------------


def expected(addon: str, nodes: int) -> dict:
    """The documented formula, written out independently of the code under test."""
    per_node_millicores = {"jobset": 1, "kueue": 2}[addon]
    memory = max(4096, math.ceil(1.2 * nodes))
    cpu = max(1000, per_node_millicores * nodes)
    return {"requests": {"cpu": f"{cpu}m", "memory": f"{memory}Mi"},
            "limits": {"cpu": f"{2 * cpu}m", "memory": f"{memory}Mi"}}


@pytest.mark.slow
@pytest.mark.parametrize("slices", [4, 256])
def test_controller_resources_in_the_plan_follow_the_formula(slices):
    config = shipped("prod")  # v6e-16: 4 VMs per slice; cpuPool.maxNodes 8; Kueue on
    config["pathways-gke:tpuPools"][0]["slices"] = slices
    nodes = slices * 4 + 8
    plan = plan_of(config)
    data = marker(plan)
    assert json.loads(data["jobset.resources"]) == expected("jobset", nodes)
    assert json.loads(data["kueue.resources"]) == expected("kueue", nodes)
    [services] = [r for r in plan["resources"] if r["type"] == "pathways-gke:index:ClusterServices"]
    assert services["outputs"]["controllerResources"]["jobset"] == {"nodes": nodes, **expected("jobset", nodes)}


def test_memory_grows_past_the_floor_at_xpk_rate():
    assert SIZING["jobset"].mib_per_node == 1.2 and SIZING["jobset"].floor_mib == 4096
    assert controller_resources("jobset", 5000).memory == "6000Mi"
    assert controller_resources("kueue", 10001).memory == f"{math.ceil(1.2 * 10001)}Mi"
    small, large = controller_resources("jobset", 10), controller_resources("jobset", 3000)
    assert (small.memory, small.cpu_request) == ("4096Mi", "1000m")
    assert (large.memory, large.cpu_request, large.cpu_limit) == ("4096Mi", "3000m", "6000m")


def test_the_node_count_counts_autoscaled_slices_at_their_maximum():
    config = shipped("dev")
    config["pathways-gke:tpuPools"][0].update(autoscaling=True, slices=3)
    stack = parse_stack(config)
    assert stack_node_count(stack) == 3 * 2 + stack.cpu_pool.max_nodes  # v6e 2x4: 2 VMs per slice


@pytest.mark.slow
def test_sizing_is_switchable_per_controller():
    config = merged("prod", jobset={"sizeForCluster": False}, kueue={"sizeForCluster": False})
    assert stack_controller_resources(parse_stack(config)) == {}
    assert not [k for k in marker(plan_of(config)) if k.endswith(".resources")]
    spec = services_spec(parse_stack(config))
    assert len(install_transforms(spec, "jobset")) == len(install_transforms(spec, None))


def manager_deployment(name: str = "jobset-controller-manager", containers=("manager",)) -> dict:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "jobset-system"},
            "spec": {"template": {"spec": {"containers": [
                {"name": c, "image": "registry.k8s.io/jobset/jobset:v0.10.1",
                 "resources": {"limits": {"memory": "500Mi"}, "requests": {"cpu": "500m", "memory": "128Mi"}}}
                for c in containers]}}}}


def test_the_sizing_transform_replaces_the_manager_containers_resources():
    sized = controller_resources("jobset", 1032)
    out = size_controller(tokens.DEPLOYMENT, manager_deployment(), sized)
    [container] = out["spec"]["template"]["spec"]["containers"]
    assert container["resources"] == expected("jobset", 1032)
    # a Helm-rendered manifest names the Deployment differently; the container decides
    helm = size_controller(tokens.DEPLOYMENT, manager_deployment("jobset-controller", ("manager", "kube-rbac-proxy")),
                           sized)
    assert [c["resources"] == expected("jobset", 1032) for c in helm["spec"]["template"]["spec"]["containers"]] == \
        [True, False]
    assert size_controller("kubernetes:core/v1:Service", {"kind": "Service"}, sized) is None
    assert size_controller(tokens.DEPLOYMENT, manager_deployment(containers=("a", "b")), sized) is None


def test_the_sizing_transform_is_registered_on_its_own_install_only():
    spec = services_spec(parsed("prod"))
    base = len(install_transforms(spec, None))
    assert len(install_transforms(spec, "jobset")) == base + 1
    assert len(install_transforms(spec, "kueue")) == base + 1


# --- validation -----------------------------------------------------------------------------------


@pytest.mark.parametrize("mutate, path, fragment", [
    (lambda c: c["pathways-gke:cluster"].update(create=False, dns="cloud-dns"), "cluster.dns",
     "applies only to a cluster this stack creates"),
    (lambda c: c["pathways-gke:cluster"].update(dns="coredns"), "cluster.dns", "cloud-dns"),
    (lambda c: c["pathways-gke:tpuPools"][0].update(imageCacheDisk="projects/acme-ml-dev/global/images/family/pw"),
     "tpuPools[0].imageCacheDisk", "image family"),
    (lambda c: c["pathways-gke:tpuPools"][0].update(imageCacheDisk="pw-cache"), "tpuPools[0].imageCacheDisk",
     "projects/PROJECT/global/images/NAME"),
    (lambda c: c["pathways-gke:cpuPool"].update(imageCacheDisk=CACHE_IMAGE, imageStreaming=False),
     "cpuPool.imageCacheDisk", "needs image streaming"),
    (lambda c: c["pathways-gke:cluster"].update(version="1.31"), "cluster.version", "1.32.1-gke.1357001"),
    (lambda c: c.update({"pathways-gke:observability": {"alerts": True, "managedPrometheus": False}}),
     "observability.alerts", "managedPrometheus"),
    (lambda c: c.update({"pathways-gke:observability": {"alerts": True, "notificationChannels": ["ops@acme"]}}),
     "observability.notificationChannels", "projects/PROJECT/notificationChannels/ID"),
    (lambda c: c.update({"pathways-gke:observability": {"notificationChannels": [
        "projects/acme-ml-dev/notificationChannels/1"]}}), "observability.notificationChannels", "alerts: true"),
])
def test_incompatible_settings_are_refused_naming_the_path(mutate, path, fragment):
    config = shipped("dev")
    mutate(config)
    with pytest.raises(ConfigError) as info:
        parse_stack(config)
    problems = {p.path: p.message for p in info.value.problems}
    assert path in problems, problems
    assert fragment in problems[path]


def test_a_recent_or_minor_only_version_keeps_managed_prometheus():
    # dev's v6e pool without the accelerator network profile, whose own floor (1.34.1) is the rulebook's
    config = merged("dev", tpuPools=[{"networkProfile": False}])
    for version in ("1.32", "1.32.1-gke.1357001", "1.34.1-gke.1829001"):
        parse_stack(merged(config, cluster={"version": version}))


def test_the_cli_refuses_a_bad_setting_with_exit_2_and_registers_nothing(tmp_path, capsys, recording_runs):
    config = merged("dev", cluster={"create": False, "dns": "nodelocal-dnscache"})
    path = tmp_path / "Pulumi.bad.yaml"
    path.write_text(json.dumps({"config": config}))
    assert cli_main(["plan", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "cluster.dns" in err and "Traceback" not in err
    assert recording_runs == []


# --- time to the first step ------------------------------------------------------------------------


def first_step(plan: dict, overrides=None) -> dict:
    [step] = critical_path(plan, overrides).to_json()["firstStep"]
    return step


def test_prod_reports_the_first_step_with_and_without_preloading(plans):
    step = first_step(plans["prod"])
    assert step["pullModes"] == ["streamed"]
    assert step["preloadedSeconds"] < step["firstStepSeconds"] < step["coldSeconds"]
    assert step["firstStepSeconds"] == step["created"] + step["imagePulls"] + step["start"]


@pytest.mark.slow
def test_a_preloaded_stack_pulls_nothing_and_an_unstreamed_one_pulls_everything():
    config = shipped("prod")
    config["pathways-gke:cpuPool"]["imageCacheDisk"] = CACHE_IMAGE
    config["pathways-gke:tpuPools"][0]["imageCacheDisk"] = CACHE_IMAGE
    preloaded = first_step(plan_of(config))
    assert preloaded["pullModes"] == ["preloaded"]
    assert preloaded["firstStepSeconds"] == preloaded["preloadedSeconds"]

    config = merged("prod", cpuPool={"imageStreaming": False})
    config["pathways-gke:tpuPools"][0]["imageStreaming"] = False
    pulled = first_step(plan_of(config))
    assert pulled["pullModes"] == ["pulled"]
    assert pulled["firstStepSeconds"] == pulled["coldSeconds"]
    # the head pulls the user's image (6 GB), the proxy (3 GB) and the server (4 GB) at 80 MB/s
    assert pulled["imagePulls"] == pytest.approx((6 + 3 + 4) * 1000 / 80)


def test_image_sizes_and_pull_rates_are_overridable(plans):
    base = first_step(plans["prod"])
    bigger = first_step(plans["prod"], validate_durations({"image-size#us-docker.pkg.dev/acme-ml-prod/": 26,
                                                           "pull-rate#cpu": 100}))
    assert bigger["coldSeconds"] - base["created"] - base["start"] == pytest.approx((26 + 3 + 4) * 1000 / 100)
    assert bigger["firstStepSeconds"] == base["firstStepSeconds"], "streamed pulls do not depend on size"


@pytest.mark.slow
def test_the_text_report_leads_with_the_time_to_the_first_step(capsys):
    assert cli_main(["plan", "--stack", "prod", "--project-dir", str(ROOT), "--critical-path"]) == 0
    out = capsys.readouterr().out
    assert "Expected time to the first training step" in out and "with preloaded images" in out


def test_the_image_table_in_the_docs_is_current():
    from pathways_gke.plan.image_pulls import image_rows_markdown

    text = (ROOT / "docs/critical-path.md").read_text()
    begin = text.index("<!-- images:begin")
    table = text[text.index("\n", begin) + 1:text.index("<!-- images:end -->")]
    assert table == image_rows_markdown(), "copy plan.image_pulls.image_rows_markdown() into docs/critical-path.md"


# --- what a change does to a running stack ---------------------------------------------------------


@pytest.mark.slow
def test_adding_an_image_cache_replaces_that_groups_pools_and_leaves_the_cluster_alone():
    from pathways_gke.plan.diff import diff_plans

    base = plan_config(shipped("prod"), stack="prod")
    config = shipped("prod")
    config["pathways-gke:tpuPools"][0]["imageCacheDisk"] = CACHE_IMAGE
    diff = diff_plans(base, plan_config(config, stack="prod"))
    replaced = {c.name for c in diff.changed if c.replace and c.type == NODE_POOL}
    assert replaced == {f"pw-prod-train-{i}" for i in range(4)}
    assert not [c for c in diff.changed if c.type in (CLUSTER, "gcp:container/nodePool:NodePool")
                and c.name == "pw-prod-cpu"]


@pytest.mark.slow
def test_switching_the_dns_provider_updates_the_cluster_in_place():
    from pathways_gke.plan.diff import diff_plans

    base = plan_config(shipped("prod"), stack="prod")
    diff = diff_plans(base, plan_config(merged("prod", cluster={"dns": "nodelocal-dnscache"}),
                                        stack="prod"))
    [change] = [c for c in diff.changed if c.type == CLUSTER]
    assert change.replace is False
    assert {p.split(".")[0] for p in change.properties} == {"addonsConfig", "dnsConfig"}


def test_the_registered_jobset_transforms_pin_and_size_the_controller_together():
    """Run the JobSet install's transforms the way the engine does (each on the previous result)."""
    import pulumi

    spec = services_spec(parsed("prod"))
    props, opts = manager_deployment(), pulumi.ResourceOptions()
    for transform in install_transforms(spec, "jobset"):
        result = transform(pulumi.ResourceTransformArgs(True, tokens.DEPLOYMENT, "d", props, opts))
        if result is not None:
            props, opts = result.props, result.opts
    pod = props["spec"]["template"]["spec"]
    assert pod["nodeSelector"] == {"cloud.google.com/gke-nodepool": "cpu-np"}
    assert pod["containers"][0]["resources"] == expected("jobset", 24)
    assert json.loads(spec.marker["data"]["jobset.resources"]) == pod["containers"][0]["resources"]

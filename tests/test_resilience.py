"""How runs survive failures: restart strategies, per-slice restart, restart on exit codes and Cluster Toolkit's
pipe-unreachable timeout, from the stack to the JobSet and the JobSet controller's configuration."""

from __future__ import annotations

import pytest
import yaml

from pathways_gke.addons.jobset_config import GATES_ANNOTATION, with_feature_gates
from pathways_gke.config.stack import parse_stack
from pathways_gke.errors import ConfigError
from pathways_gke.plan.engine import plan_config
from pathways_gke.render.pathways_jobset import build_pathways_jobset
from pathways_gke.releases import JOBSET_CONFIG_KEY, JOBSET_CONFIG_MAP
from pathways_gke.tokens import CONFIG_MAP, DEPLOYMENT
from tests.support.crd import jobset_schema_errors
from tests.support.jobset_rules import jobset_rule_errors
from tests.support.pathways_cases import matrix, target, workload
from tests.support.stacks import merged

P = "pathways-gke:"
TIMEOUT_ENV = {"name": "ABSL_FLAGS", "value": "--pathways_pipe_unreachable_timeout=60s"}


def _jobset(**overrides):
    return build_pathways_jobset(workload(**overrides), target(slices=2), secret_name="train-env")


def _jobs(js):
    return {r["name"]: r["template"]["spec"] for r in js["spec"]["replicatedJobs"]}


def _problems(config) -> dict[str, str]:
    with pytest.raises(ConfigError) as caught:
        parse_stack(config)
    return {p.path: p.message for p in caught.value.problems}


def _stack(workload_changes=None, **sections):
    cfg = merged("dev", **sections)
    cfg[P + "workloads"][0].update(workload_changes or {})
    return cfg


def _jax_stack(changes):
    cfg = merged("dev")
    cfg[P + "workloads"] = [{"name": "mc", "runtime": "jax", "tpuPool": "main", "command": "python3 t.py",
                             "image": "us-docker.pkg.dev/acme/t:1", **changes}]
    return cfg


# --- restart strategies -------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ["Recreate", "BlockingRecreate"])
def test_the_restart_strategy_is_the_jobsets(strategy):
    js = _jobset(restart={"strategy": strategy})
    assert js["spec"]["failurePolicy"]["restartStrategy"] == strategy
    assert jobset_schema_errors(js) == {"v0.8.2": [], "v0.12.0": []}
    assert jobset_rule_errors(js) == []


def test_per_slice_restart_is_a_restart_job_rule_on_the_worker_replicated_job():
    js = _jobset(restart={"strategy": "BlockingRecreate", "perSlice": True}, maxRestarts=5)
    policy = js["spec"]["failurePolicy"]
    assert policy == {"maxRestarts": 5, "restartStrategy": "BlockingRecreate", "rules": [
        {"name": "restartFailedSlice", "action": "RestartJob", "targetReplicatedJobs": ["worker"]}]}
    errors = jobset_schema_errors(js)
    assert errors["v0.12.0"] == [] and jobset_rule_errors(js) == []
    assert any("RestartJob" in e for e in errors["v0.8.2"])  # the action JobSet < v0.12.0 does not have


@pytest.mark.slow
def test_per_slice_restart_turns_the_restart_job_gate_on_in_the_plan():
    resources = plan_config(_stack({"restart": {"perSlice": True}}), stack="dev").to_json()["resources"]
    [marker] = [r for r in resources if r["type"] == CONFIG_MAP and "jobset.version" in r["inputs"].get("data", {})]
    assert marker["inputs"]["data"]["jobset.featureGates"] == '{"RestartJob":true}'
    [js] = [r["inputs"] for r in resources if r["inputs"].get("kind") == "JobSet"]
    assert js["spec"]["failurePolicy"]["rules"][-1]["action"] == "RestartJob"


@pytest.mark.slow
def test_a_stack_without_gates_records_none():
    resources = plan_config(merged("dev"), stack="dev").to_json()["resources"]
    [marker] = [r for r in resources if r["type"] == CONFIG_MAP and "jobset.version" in r["inputs"].get("data", {})]
    assert "jobset.featureGates" not in marker["inputs"]["data"]


def test_the_gates_go_into_the_release_configuration_and_roll_the_controller():
    """The controller reads featureGates from its Configuration at start (JobSet main.go SetFromMap)."""
    configmap = {"apiVersion": "v1", "kind": "ConfigMap",
                 "metadata": {"name": JOBSET_CONFIG_MAP, "namespace": "jobset-system"},
                 "data": {JOBSET_CONFIG_KEY: "apiVersion: config.jobset.x-k8s.io/v1alpha1\nkind: Configuration\n"
                                             "leaderElection:\n  leaderElect: true\n"}}
    out = with_feature_gates(CONFIG_MAP, configmap, {"RestartJob": True})
    configuration = yaml.safe_load(out["data"][JOBSET_CONFIG_KEY])
    assert configuration == {"apiVersion": "config.jobset.x-k8s.io/v1alpha1", "kind": "Configuration",
                             "leaderElection": {"leaderElect": True}, "featureGates": {"RestartJob": True}}
    deployment = {"metadata": {"name": "jobset-controller-manager"}, "spec": {"template": {"spec": {}}}}
    rolled = with_feature_gates(DEPLOYMENT, deployment, {"RestartJob": True})
    assert rolled["spec"]["template"]["metadata"]["annotations"][GATES_ANNOTATION] == '{"RestartJob":true}'
    assert with_feature_gates(CONFIG_MAP, {"metadata": {"name": "other"}}, {"RestartJob": True}) is None
    assert with_feature_gates(CONFIG_MAP, configmap, {}) is None


def test_per_slice_restart_below_jobset_v0_12_is_refused_with_the_reason():
    problems = _problems(_stack({"restart": {"perSlice": True}}, jobset={"version": "v0.11.1"}))
    assert "v0.12.0" in problems["workloads[0].restart.perSlice"]
    assert "RestartJob" in problems["workloads[0].restart.perSlice"]


def test_per_slice_restart_without_restarts_is_refused():
    """JobSet v0.12.0 failure_policy.go: RestartJob fails the JobSet once its restarts reach maxRestarts."""
    cfg = _stack({"restart": {"perSlice": True}, "maxRestarts": 0})
    assert "maxRestarts is 0" in _problems(cfg)["workloads[0].restart.perSlice"]


def test_per_slice_restart_with_the_gate_turned_off_is_refused():
    problems = _problems(_stack({"restart": {"perSlice": True}}, jobset={"featureGates": {"RestartJob": False}}))
    assert "turns off" in problems["workloads[0].restart.perSlice"]


def test_per_slice_restart_of_multi_controller_jax_is_refused_with_the_reason():
    problems = _problems(_jax_stack({"restart": {"perSlice": True}}))
    assert "jax.distributed" in problems["workloads[0].restart.perSlice"]


@pytest.mark.parametrize("where", ["strategy", "gate"])
def test_in_place_restart_is_refused_with_its_reason(where):
    config = (_stack({"restart": {"strategy": "InPlaceRestart"}}) if where == "strategy"
              else _stack(jobset={"featureGates": {"InPlaceRestart": True}}))
    problems = _problems(config)
    path = "workloads[0].restart.strategy" if where == "strategy" else "jobset.featureGates.InPlaceRestart"
    assert "alpha Kubernetes features" in problems[path], problems


@pytest.mark.parametrize("gates, version, fragment", [
    ({"Bogus": True}, "v0.12.0", "knows: ElasticJobSet, InPlaceRestart, RestartJob, TLSOptions"),
    ({"RestartJob": True}, "v0.11.1", "knows: InPlaceRestart"),
    ({"RestartJob": True}, "v0.10.1", "v0.11.0"),
])
def test_a_gate_the_pinned_release_does_not_know_is_refused(gates, version, fragment):
    problems = _problems(_stack(jobset={"version": version, "featureGates": gates}))
    [path] = [p for p in problems if p.startswith("jobset.featureGates")]
    assert fragment in problems[path]


def test_restart_on_a_leaderworkerset_is_refused():
    cfg = merged("serve")
    cfg[P + "workloads"][0]["restart"] = {"strategy": "BlockingRecreate"}
    assert "LeaderWorkerSet" in _problems(cfg)["workloads[0].restart"]


# --- restart on exit codes ------------------------------------------------------------------------------------


def test_restart_on_exit_codes_is_a_pod_failure_policy_on_the_head_job_only():
    js = _jobset(restartOnExitCodes=[42, 3], maxRestarts=2)
    jobs = _jobs(js)
    assert jobs["pathways-head"]["podFailurePolicy"] == {"rules": [
        {"action": "Count", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
        {"action": "FailJob", "onExitCodes": {"containerName": "jax-tpu", "operator": "NotIn", "values": [3, 42]}}]}
    assert jobs["pathways-head"]["template"]["spec"]["restartPolicy"] == "Never"
    assert "podFailurePolicy" not in jobs["worker"]
    assert js["spec"]["failurePolicy"]["rules"] == [{"name": "failOnOtherExitCodes", "action": "FailJobSet",
                                                    "onJobFailureReasons": ["PodFailurePolicy"]}]
    assert jobset_schema_errors(js) == {"v0.8.2": [], "v0.12.0": []}
    assert jobset_rule_errors(js) == []


@pytest.mark.slow
def test_no_rendered_pathways_job_has_a_pod_failure_policy_on_pods_that_restart_on_failure():
    """Kubernetes' Job validation: only "Never" is supported when podFailurePolicy is specified (CTK's bug)."""
    for case_id, w, placement in matrix():
        if w.mode in ("default", "colocated"):
            w = w.model_copy(update={"restart_on_exit_codes": [1, 137]})
        js = build_pathways_jobset(w, placement, secret_name="train-env")
        for name, job in _jobs(js).items():
            if "podFailurePolicy" in job:
                assert (name, job["template"]["spec"]["restartPolicy"]) == ("pathways-head", "Never"), case_id


@pytest.mark.parametrize("codes, fragment", [([0], "success"), ([256], "1-255"), ([3, 3], "twice")])
def test_bad_exit_codes_are_refused(codes, fragment):
    assert fragment in _problems(_stack({"restartOnExitCodes": codes}))["workloads[0].restartOnExitCodes"]


@pytest.mark.parametrize("mode", ["headless"])
def test_restart_on_exit_codes_without_a_user_container_is_refused(mode):
    problems = _problems(_stack({"mode": mode, "image": None, "command": None, "restartOnExitCodes": [3]}))
    assert "no user container" in problems["workloads[0].restartOnExitCodes"]


def test_restart_on_exit_codes_of_a_jax_workload_is_refused_with_the_reason():
    problems = _problems(_jax_stack({"restartOnExitCodes": [3]}))
    assert "podFailurePolicy" in problems["workloads[0].restartOnExitCodes"]


# --- the pipe-unreachable timeout -----------------------------------------------------------------------------


def _containers(js):
    jobs = _jobs(js)
    head, worker = jobs["pathways-head"]["template"]["spec"], jobs["worker"]["template"]["spec"]
    return {c["name"]: c for c in head.get("initContainers", []) + head["containers"] + worker["containers"]}


def test_the_pipe_timeout_is_absl_flags_on_the_four_containers():
    js = _jobset(pathways={"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp", "pipeUnreachableTimeout": "60s"})
    containers = _containers(js)
    for name in ("pathways-proxy", "pathways-rm", "jax-tpu", "pathways-worker"):
        assert TIMEOUT_ENV in containers[name]["env"], name
    assert jobset_schema_errors(js) == {"v0.8.2": [], "v0.12.0": []}


def test_without_the_pipe_timeout_no_container_gets_absl_flags():
    assert all("ABSL_FLAGS" not in {e["name"] for e in c.get("env", [])} for c in _containers(_jobset()).values())


@pytest.mark.parametrize("value", ["60", "1x", "0s", "-5s", ""])
def test_a_pipe_timeout_that_is_no_duration_is_refused(value):
    problems = _problems(_stack({"pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp",
                                              "pipeUnreachableTimeout": value}}))
    assert any(p.endswith("pipeUnreachableTimeout") for p in problems), problems


@pytest.mark.parametrize("where, path", [
    ({"env": {"ABSL_FLAGS": "--v=1"}}, "workloads[0].env.ABSL_FLAGS"),
    ({"pathways": {"env": {"worker": {"ABSL_FLAGS": "--v=1"}}}}, "workloads[0].pathways.env.worker.ABSL_FLAGS"),
])
def test_a_user_absl_flags_beside_the_pipe_timeout_is_refused(where, path):
    changes = {"pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp", "pipeUnreachableTimeout": "60s",
                            **where.get("pathways", {})}, **{k: v for k, v in where.items() if k != "pathways"}}
    assert "pipeUnreachableTimeout" in _problems(_stack(changes))[path]


# --- the same checks for a workload component on its own, and the serving layout ----------------------------------


def _component_problems(validate, workload) -> dict[str, str]:
    with pytest.raises(ConfigError) as caught:
        validate({"workload": workload, "tpu_type": "v6e-16", "slices": 2})
    return {p.path: p.message for p in caught.value.problems}


PW = {"name": "train", "image": "us-docker.pkg.dev/acme/train:2026-11", "command": "python3 t.py",
      "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp"}}


def test_a_standalone_pathways_workload_refuses_what_a_stack_refuses():
    from pathways_gke.workloads.pathways import validate_args
    headless = {**PW, "mode": "headless", "image": None, "command": None, "restartOnExitCodes": [3]}
    headless = {k: v for k, v in headless.items() if v is not None}
    assert "no user container" in _component_problems(validate_args, headless)["workload.restartOnExitCodes"]
    absl = {**PW, "env": {"ABSL_FLAGS": "--v=1"},
            "pathways": {**PW["pathways"], "pipeUnreachableTimeout": "60s"}}
    assert "pipeUnreachableTimeout" in _component_problems(validate_args, absl)["workload.env.ABSL_FLAGS"]
    mtc = {**PW, "multiTierCheckpointing": {"mountPath": "/local"}}
    assert "colocatedPython" in _component_problems(validate_args, mtc)["workload.multiTierCheckpointing"]


def test_a_serving_workload_gets_the_pipe_timeout_on_its_servers_workers_and_server():
    from pathways_gke.workloads.serving import validate_args
    serving = {**PW, "mode": "serving", "serving": {"port": 8000},
               "pathways": {**PW["pathways"], "pipeUnreachableTimeout": "60s"}}
    lws = validate_args({"workload": serving, "tpu_type": "v6e-16", "slices": 2}).objects.primary
    template = lws["spec"]["leaderWorkerTemplate"]
    leader = {c["name"]: c for c in template["leaderTemplate"]["spec"]["containers"]}
    [worker] = template["workerTemplate"]["spec"]["containers"]
    for container in (leader["pathways-proxy"], leader["pathways-rm"], leader["jax-tpu"], worker):
        assert TIMEOUT_ENV in container["env"], container["name"]
    problems = _component_problems(validate_args, {**serving, "restart": {"strategy": "BlockingRecreate"}})
    assert "LeaderWorkerSet" in problems["workload.restart"]


def test_rule_names_match_the_jobset_webhooks_pattern():
    """jobset_webhook.go ruleNameFmt `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`: a '-' is refused at create."""
    js = _jobset(restart={"perSlice": True}, restartOnExitCodes=[3])
    names = [r["name"] for r in js["spec"]["failurePolicy"]["rules"]]
    assert names == ["failOnOtherExitCodes", "restartFailedSlice"] and jobset_rule_errors(js) == []
    js["spec"]["failurePolicy"]["rules"][0]["name"] = "fail-on-other-exit-codes"
    assert any("name is invalid" in e for e in jobset_rule_errors(js))


def test_the_registered_jobset_install_transforms_write_the_gates_into_its_configuration():
    """Run the JobSet install's transforms as the engine does (each on the previous result): the release's
    ConfigMap gets featureGates, the controller's pod template the annotation that rolls it; Kueue's install not."""
    import pulumi

    from pathways_gke.addons import services_spec
    from pathways_gke.services import install_transforms

    spec = services_spec(parse_stack(_stack({"restart": {"perSlice": True}},
                                            jobset={"featureGates": {"TLSOptions": True}})))
    configmap = {"apiVersion": "v1", "kind": "ConfigMap",
                 "metadata": {"name": JOBSET_CONFIG_MAP, "namespace": "jobset-system"},
                 "data": {JOBSET_CONFIG_KEY: "apiVersion: config.jobset.x-k8s.io/v1alpha1\nkind: Configuration\n"}}

    def through(addon, type_, props):
        opts = pulumi.ResourceOptions()
        for transform in install_transforms(spec, addon):
            result = transform(pulumi.ResourceTransformArgs(True, type_, "x", props, opts))
            if result is not None:
                props, opts = result.props, result.opts
        return props

    written = yaml.safe_load(through("jobset", CONFIG_MAP, configmap)["data"][JOBSET_CONFIG_KEY])
    assert written["featureGates"] == {"RestartJob": True, "TLSOptions": True}
    assert JOBSET_CONFIG_KEY in through("kueue", CONFIG_MAP, configmap)["data"]
    assert "featureGates" not in through("kueue", CONFIG_MAP, configmap)["data"][JOBSET_CONFIG_KEY]

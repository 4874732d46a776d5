"""`pathways-gke status | wait | logs` against a Kubernetes API server on the loopback address.

The server (tests/support/kube_api.py) answers the real REST paths with our builders' JobSets and
LeaderWorkerSets, carrying `status` blocks in the shapes the upstream types define
(kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go, kubernetes-sigs/lws
api/leaderworkerset/v1/leaderworkerset_types.go, kubernetes-sigs/kueue apis/kueue/v1beta2/workload_types.go).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from urllib.parse import unquote

import pytest
import yaml

pytest.importorskip("kubernetes", reason="the day2 extra (pip install 'pathways-gke[day2]') is not installed")

from pathways_gke import cli, naming  # noqa: E402
from pathways_gke.config.stack import parse_stack  # noqa: E402
from pathways_gke.config.placement import Placement  # noqa: E402
from pathways_gke.render.jax_jobset import build_jax_jobset  # noqa: E402
from pathways_gke.render.pathways_jobset import build_pathways_jobset  # noqa: E402
from pathways_gke.render.serving_lws import serving_objects  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tests.support.kube_api import TOKEN, KubeApi  # noqa: E402
from tests.support.pods import pods as jobset_pods  # noqa: E402
from tests.support.stacks import shipped  # noqa: E402

NS = "ml"
T0 = "2026-11-26T10:00:00Z"


def _stack(name):
    config = shipped(name)
    config["pathways-gke:namespace"] = NS
    return parse_stack(config)


def pathways_jobset(name: str) -> dict:
    config = shipped("dev")
    config["pathways-gke:namespace"] = NS
    config["pathways-gke:tpuPools"][0]["slices"] = 2  # a head Job and two slice Jobs
    stack = parse_stack(config)
    w = stack.workloads[0]
    js = build_pathways_jobset(w, Placement.of(stack, w))
    return renamed(js, name)


def renamed(obj: dict, name: str) -> dict:
    obj = copy.deepcopy(obj)
    text = json.dumps(obj).replace(f'"{naming.WORKLOAD_LABEL}": "{obj["metadata"]["name"]}"',
                                   f'"{naming.WORKLOAD_LABEL}": "{name}"')
    obj = json.loads(text)
    obj["metadata"]["name"] = name
    return obj


def cond(kind, status="True", reason="", message="", time=T0):
    return {"type": kind, "status": status, "reason": reason, "message": message, "lastTransitionTime": time}


def rjob_status(name, ready=0, active=0, succeeded=0, failed=0, suspended=0):
    return {"name": name, "ready": ready, "active": active, "succeeded": succeeded, "failed": failed,
            "suspended": suspended}


def with_status(obj: dict, **status) -> dict:
    obj = copy.deepcopy(obj)
    obj["status"] = status
    return obj


def completed(name="train-done", restarts=2):
    js = pathways_jobset(name)
    slices = js["spec"]["replicatedJobs"][1]["replicas"]
    return with_status(js, restarts=restarts, restartsCountTowardsMax=restarts, terminalState="Completed",
                       conditions=[cond("StartupPolicyCompleted", reason="StartupPolicyCompleted",
                                        message="jobset startup policy completed", time="2026-11-26T10:00:00Z"),
                                   cond("Completed", reason="AllJobsCompleted", message="jobset completed successfully",
                                        time="2026-11-26T11:00:00Z")],
                       replicatedJobsStatus=[rjob_status("pathways-head", succeeded=1),
                                             rjob_status("worker", succeeded=slices)])


def failed(name="train-failed"):
    return with_status(pathways_jobset(name), restarts=3, terminalState="Failed",
                       conditions=[cond("Failed", reason="ReachedMaxRestarts",
                                        message="jobset failed due to reaching max number of restarts")],
                       replicatedJobsStatus=[rjob_status("pathways-head", failed=1), rjob_status("worker", failed=1)])


def running(name="train-run", restarts=0):
    js = pathways_jobset(name)
    slices = js["spec"]["replicatedJobs"][1]["replicas"]
    return with_status(js, restarts=restarts,
                       conditions=[cond("StartupPolicyCompleted", reason="StartupPolicyCompleted",
                                        message="jobset startup policy completed")],
                       replicatedJobsStatus=[rjob_status("pathways-head", ready=1, active=1),
                                             rjob_status("worker", ready=slices, active=slices)])


def kueue_workload(owner: dict, *conditions, admission=None, version="v1beta2"):
    w = {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "Workload",
         "metadata": {"name": f"jobset-{owner['metadata']['name']}-1a2b3", "namespace": NS,
                      "ownerReferences": [{"apiVersion": owner["apiVersion"], "kind": owner["kind"],
                                           "name": owner["metadata"]["name"], "uid": "u-1", "controller": True}]},
         "spec": {"queueName": "pathways-queue", "podSets": []},
         "status": {"conditions": list(conditions)}}
    if admission:
        w["status"]["admission"] = admission
    return w


def lws_object(name="llama-serve", ready=1, replicas=2):
    stack = _stack("serve")
    w = next(w for w in stack.workloads if w.name == "llama-serve")
    lws = serving_objects(w, Placement.of(stack, w)).lws
    lws = renamed(lws, name)
    lws["spec"]["replicas"] = replicas
    conditions = [cond("Progressing", reason="GroupsProgressing", message="Replicas are progressing")]
    if ready == replicas:
        conditions = [cond("Available", reason="AllGroupsReady", message="All replicas are ready")]
    return with_status(lws, replicas=replicas, readyReplicas=ready, updatedReplicas=replicas, conditions=conditions,
                       hpaPodSelector=f"leaderworkerset.sigs.k8s.io/name={name},leaderworkerset.sigs.k8s.io/worker-index=0")


def pod_objects(jobset: dict) -> list[dict]:
    """The pods the JobSet and Job controllers would create for it (tests/support/pods.py), as Pod objects."""
    out = []
    by_rjob = {r["name"]: r for r in jobset["spec"]["replicatedJobs"]}
    for p in jobset_pods(jobset):
        template = by_rjob[p.replicated_job]["template"]["spec"]["template"]
        out.append({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": f"{p.hostname}-x7k2q", "namespace": NS, "labels": p.labels,
                                 "annotations": p.annotations},
                    "spec": template["spec"], "status": {"phase": "Running"}})
    return out


def lws_pods(lws: dict, group: int) -> list[dict]:
    name = lws["metadata"]["name"]
    template = lws["spec"]["leaderWorkerTemplate"]
    out = []
    for index in range(template["size"]):
        source = template["leaderTemplate"] if index == 0 else template["workerTemplate"]
        labels = {**source["metadata"].get("labels", {}), naming.LWS_NAME_KEY: name,
                  naming.LWS_WORKER_INDEX_KEY: str(index), "leaderworkerset.sigs.k8s.io/group-index": str(group)}
        out.append({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": f"{name}-{group}" + (f"-{index}" if index else ""), "namespace": NS,
                                 "labels": labels, "annotations": source["metadata"].get("annotations", {})},
                    "spec": source["spec"], "status": {"phase": "Running"}})
    return out


@pytest.fixture
def api():
    with KubeApi() as server:
        server.register("kueue.x-k8s.io/v1beta2")
        yield server


@pytest.fixture
def kubeconfig(api, tmp_path):
    return str(api.kubeconfig(tmp_path / "kubeconfig", namespace=NS))


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    assert TOKEN not in out + err
    return code, out, err


STATUS_SCHEMA = json.loads((ROOT / "docs" / "day2-status.schema.json").read_text())


def test_the_status_schema_is_a_valid_json_schema_that_constrains():
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(STATUS_SCHEMA)
    with pytest.raises(jsonschema.ValidationError):  # a state outside the vocabulary is refused
        jsonschema.validate({"namespace": "ml", "workloads": [{"state": "Crashing"}]}, STATUS_SCHEMA)


def status_json(capsys, kubeconfig, *names):
    """`status --json`, checked against its documented schema (docs/day2-status.schema.json) every time."""
    import jsonschema

    code, out, err = run(capsys, "status", *names, "--kubeconfig", kubeconfig, "--json")
    assert code == 0, err
    document = json.loads(out)
    jsonschema.validate(document, STATUS_SCHEMA)
    return {w["name"]: w for w in document["workloads"]}


# --- status ---------------------------------------------------------------------------------------------------


def test_a_completed_jobset_with_two_restarts_shows_completed_and_two(api, kubeconfig, capsys):
    api.add(completed())
    code, out, err = run(capsys, "status", "--kubeconfig", kubeconfig)
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.startswith("train-done"))
    assert row.split()[:6] == ["train-done", "JobSet", "Completed", "2/3", "3/3", "jobs"]  # used of maxRestarts
    assert "3/3 jobs succeeded" in row  # what a finished run did, not "jobs ready"
    assert "jobset completed successfully" in out
    assert "  worker: 0/2 jobs ready, 0 active, 2 succeeded, 0 failed" in out.splitlines()
    w = status_json(capsys, kubeconfig)["train-done"]
    assert (w["kind"], w["runtime"], w["state"], w["restarts"]) == ("JobSet", "pathways", "Completed", 2)
    assert [(g["name"], g["replicas"], g["succeeded"]) for g in w["groups"]] == [("pathways-head", 1, 1),
                                                                                  ("worker", 2, 2)]
    assert w["condition"]["reason"] == "AllJobsCompleted"  # the latest one, not the first
    # only our objects are asked for: the label selector is the workload label naming.py defines
    assert any(r.startswith(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets?") and
               "labelSelector=pathways-gke/workload" in unquote(r) for r in api.requests)


def test_an_lws_with_one_of_two_groups_ready_is_not_terminal_and_shows_one_of_two(api, kubeconfig, capsys):
    api.add(lws_object(ready=1, replicas=2))
    w = status_json(capsys, kubeconfig)["llama-serve"]
    assert w["kind"] == "LeaderWorkerSet" and w["state"] == "Degraded" and w["restarts"] is None
    assert w["ready"] == {"ready": 1, "total": 2, "unit": "groups"}
    code, out, _ = run(capsys, "status", "--kubeconfig", kubeconfig)
    assert "1/2 groups" in out and "Progressing GroupsProgressing" in out
    assert "  groups: 1/2 ready, 2 created, 2 updated" in out.splitlines()


@pytest.mark.parametrize("obj, state, ready", [
    (lambda: failed(), "Failed", "0/3"),
    (lambda: running(), "Running", "3/3"),
    (lambda: with_status(pathways_jobset("train-restart"), restarts=1,
                         conditions=[cond("StartupPolicyInProgress", reason="StartupPolicyInProgress")],
                         replicatedJobsStatus=[rjob_status("pathways-head", ready=1, active=1),
                                               rjob_status("worker", active=1, failed=1)]), "Restarting", "1/3"),
    (lambda: with_status(pathways_jobset("train-degraded"),
                         conditions=[cond("StartupPolicyCompleted", reason="StartupPolicyCompleted")],
                         replicatedJobsStatus=[rjob_status("pathways-head", ready=1, active=1),
                                               rjob_status("worker", ready=1, active=2)]), "Degraded", "2/3"),
    (lambda: with_status(pathways_jobset("train-new"), replicatedJobsStatus=[]), "Pending", "0/3"),
    (lambda: with_status({**pathways_jobset("train-paused"), "spec": {**pathways_jobset("x")["spec"], "suspend": True}},
                         conditions=[cond("Suspended", reason="SuspendedJobs", message="jobset is suspended")],
                         replicatedJobsStatus=[rjob_status("pathways-head", suspended=1),
                                               rjob_status("worker", suspended=2)]), "Suspended", "0/3"),
    (lambda: lws_object("lws-up", ready=2, replicas=2), "Running", "2/2"),
    (lambda: lws_object("lws-cold", ready=0, replicas=2), "Pending", "0/2"),
    (lambda: lws_object("lws-zero", ready=0, replicas=0), "Suspended", "0/0"),
], ids=["failed", "running", "restarting", "degraded", "pending", "suspended", "lws-running", "lws-pending",
        "lws-zero"])
def test_each_upstream_status_maps_to_its_state(api, kubeconfig, capsys, obj, state, ready):
    o = obj()
    api.add(o)
    w = status_json(capsys, kubeconfig)[o["metadata"]["name"]]
    assert w["state"] == state
    assert f'{w["ready"]["ready"]}/{w["ready"]["total"]}' == ready


def test_kueue_admission_is_shown_and_a_queued_jobset_is_pending_not_suspended(api, kubeconfig, capsys):
    queued = with_status({**pathways_jobset("train-queued"), "spec": {**pathways_jobset("x")["spec"], "suspend": True}},
                         conditions=[cond("Suspended", reason="SuspendedJobs", message="jobset is suspended")])
    admitted = running("train-admitted")
    evicted = with_status({**pathways_jobset("train-evicted"), "spec": {**pathways_jobset("x")["spec"], "suspend": True}},
                          restarts=0, conditions=[cond("Suspended", reason="SuspendedJobs")])
    for o in (queued, admitted, evicted):
        api.add(o)
    quota = "couldn't assign flavors to pod set worker: insufficient quota for google.com/tpu in flavor pathways-tpu-main"
    api.add(kueue_workload(queued, cond("QuotaReserved", "False", "Pending", quota)))
    api.add(kueue_workload(admitted, cond("QuotaReserved", reason="QuotaReserved"),
                           cond("Admitted", reason="Admitted", message="The workload is admitted"),
                           admission={"clusterQueue": naming.KUEUE_CLUSTER_QUEUE,
                                      "podSetAssignments": [{"name": "worker", "count": 4,
                                                             "flavors": {"google.com/tpu": "pathways-tpu-main"}}]}))
    api.add(kueue_workload(evicted, cond("Evicted", reason="Preempted", message="Preempted to accommodate a workload")))
    ws = status_json(capsys, kubeconfig)
    assert ws["train-queued"]["state"] == "Pending"
    assert ws["train-queued"]["kueue"][0]["state"] == "Pending"
    assert ws["train-queued"]["condition"]["message"] == quota  # why it waits
    assert ws["train-admitted"]["kueue"][0] | {} == {
        "workload": "jobset-train-admitted-1a2b3", "state": "Admitted", "clusterQueue": naming.KUEUE_CLUSTER_QUEUE,
        "flavors": {"worker": {"google.com/tpu": "pathways-tpu-main"}}, "reason": "Admitted",
        "message": "The workload is admitted", "localQueue": "pathways-queue", "checks": []}
    assert ws["train-admitted"]["condition"]["type"] == "StartupPolicyCompleted"  # its own, not Kueue's
    assert ws["train-evicted"]["state"] == "Suspended" and ws["train-evicted"]["kueue"][0]["state"] == "Evicted"
    assert any(r.startswith(f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{NS}/workloads") for r in api.requests)


def test_an_admitted_jobset_still_starting_explains_itself_not_kueue(api, kubeconfig, capsys):
    starting = with_status(pathways_jobset("train-starting"),
                           conditions=[cond("StartupPolicyInProgress", reason="StartupPolicyInProgress",
                                            message="in order startup policy is in progress")],
                           replicatedJobsStatus=[rjob_status("pathways-head", active=1)])
    api.add(starting)
    api.add(kueue_workload(starting, cond("QuotaReserved"), cond("Admitted", reason="Admitted")))
    provisioning = with_status({**pathways_jobset("train-provisioning"),
                                "spec": {**pathways_jobset("x")["spec"], "suspend": True}},
                               conditions=[cond("Suspended", reason="SuspendedJobs")])
    api.add(provisioning)
    api.add(kueue_workload(provisioning, cond("QuotaReserved", reason="QuotaReserved",
                                              message="Quota reserved in ClusterQueue pathways-cluster-queue"),
                           cond("Admitted", "False", "NoChecks", "The workload has not all checks ready")))
    ws = status_json(capsys, kubeconfig)
    assert ws["train-starting"]["state"] == "Pending"
    assert ws["train-starting"]["condition"]["reason"] == "StartupPolicyInProgress"
    assert ws["train-provisioning"]["state"] == "Pending"  # quota reserved, a provisioning request pending
    assert ws["train-provisioning"]["kueue"][0]["state"] == "QuotaReserved"
    assert ws["train-provisioning"]["condition"]["type"] == "Admitted"


@pytest.mark.slow
def test_older_kueue_is_read_at_v1beta1_and_no_kueue_means_no_admission(tmp_path, capsys):
    with KubeApi() as api:
        js = running("train-old-kueue")
        api.add(js)
        api.add(kueue_workload(js, cond("QuotaReserved"), cond("Admitted", reason="Admitted"), version="v1beta1"))
        config = str(api.kubeconfig(tmp_path / "k1", namespace=NS))
        w = status_json(capsys, config)["train-old-kueue"]
        assert w["kueue"][0]["state"] == "Admitted"
    with KubeApi() as api:
        api.add(running("train-no-kueue"))
        config = str(api.kubeconfig(tmp_path / "k2", namespace=NS))
        assert status_json(capsys, config)["train-no-kueue"]["kueue"] == []


def test_a_jax_jobset_has_the_runtime_label_and_its_slices(api, kubeconfig, capsys):
    stack = _stack("jax")
    w = next(w for w in stack.workloads if w.tpu_pool)
    js = build_jax_jobset(w, Placement.of(stack, w))
    jobs = js["spec"]["replicatedJobs"][0]["replicas"]
    api.add(with_status(js, restarts=0, replicatedJobsStatus=[rjob_status("workers", ready=jobs, active=jobs)]))
    out = status_json(capsys, kubeconfig)[w.name]
    assert out["runtime"] == "jax" and out["state"] == "Running" and out["ready"]["total"] == jobs


@pytest.mark.slow
def test_logs_of_a_jax_jobset_read_process_zero_and_a_slices_first_process(api, kubeconfig, capsys):
    stack = _stack("jax")
    w = next(w for w in stack.workloads if w.tpu_pool)
    js = build_jax_jobset(w, Placement.of(stack, w))
    api.add(js)
    pods = pod_objects(js)
    for p in pods:
        api.add(p)
    name = w.name
    api.logs[(f"{name}-workers-0-0-x7k2q", "jax")] = "process 0\n"
    api.logs[(f"{name}-workers-1-0-x7k2q", "jax")] = "slice 1 process 0\n"
    assert run(capsys, "logs", name, "--kubeconfig", kubeconfig)[1] == "process 0\n"  # the coordinator
    assert run(capsys, "logs", name, "--role", "worker", "--slice", "1", "--kubeconfig", kubeconfig)[1] == \
        "slice 1 process 0\n"


def test_status_names_filter_and_an_unknown_workload_is_bad_input(api, kubeconfig, capsys):
    api.add(completed())
    api.add(running())
    assert list(status_json(capsys, kubeconfig, "train-run")) == ["train-run"]
    code, out, err = run(capsys, "status", "nope", "--kubeconfig", kubeconfig)
    assert code == 2 and "no workload nope in namespace ml" in err and "train-done, train-run" in err
    assert "Traceback" not in err


def test_the_namespace_flag_and_an_empty_namespace(api, kubeconfig, capsys):
    api.add(completed())
    code, out, _ = run(capsys, "status", "--kubeconfig", kubeconfig, "--namespace", "other")
    assert code == 0 and out == "no pathways-gke workloads\n"
    assert any("/namespaces/other/jobsets" in r for r in api.requests)


@pytest.mark.slow
def test_a_missing_lws_crd_is_no_lws_and_a_forbidden_list_is_bad_input(tmp_path, capsys):
    with KubeApi() as api:  # no LWS group registered: its list answers 404
        api.add(completed())
        config = str(api.kubeconfig(tmp_path / "k", namespace=NS))
        assert list(status_json(capsys, config)) == ["train-done"]
        api.fail(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets", 403, "Forbidden")
        code, _, err = run(capsys, "status", "--kubeconfig", config)
        assert code == 2 and "403 Forbidden" in err and "RBAC" in err and "Traceback" not in err


def test_bad_kubeconfigs_and_an_unreachable_server_exit_2_without_secrets(api, tmp_path, capsys):
    code, _, err = run(capsys, "status", "--kubeconfig", str(tmp_path / "missing"))
    assert code == 2 and "no such file" in err
    (tmp_path / "garbage").write_text(f"token: {TOKEN}\n")
    code, _, err = run(capsys, "status", "--kubeconfig", str(tmp_path / "garbage"))
    assert code == 2 and "not a kubeconfig" in err
    good = api.kubeconfig(tmp_path / "good", namespace=NS)
    code, _, err = run(capsys, "status", "--kubeconfig", str(good), "--context", "elsewhere")
    assert code == 2 and "no context 'elsewhere'" in err
    # a port nothing listens on
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dead = api.kubeconfig(tmp_path / "dead", server=f"http://127.0.0.1:{port}")
    code, _, err = run(capsys, "status", "--kubeconfig", str(dead))
    assert code == 2 and f"cannot reach the Kubernetes API server at http://127.0.0.1:{port}" in err
    assert "Traceback" not in err


def test_a_refused_token_is_bad_input(api, tmp_path, capsys):
    path = api.kubeconfig(tmp_path / "k", namespace=NS)
    path.write_text(path.read_text().replace(TOKEN, "wrong"))
    code, _, err = run(capsys, "status", "--kubeconfig", str(path))
    assert code == 2 and "401" in err and "credentials were refused" in err


def test_stack_without_the_pulumi_cli_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setenv("PATH", "/nonexistent")
    code, _, err = run(capsys, "status", "--stack", "dev", "--project-dir", str(ROOT))
    assert code == 2 and "Pulumi CLI is not on PATH" in err and "--kubeconfig" in err


def test_kubeconfig_env_is_used(api, kubeconfig, monkeypatch, capsys):
    api.add(completed())
    monkeypatch.setenv("KUBECONFIG", kubeconfig)
    code, out, _ = run(capsys, "status")
    assert code == 0 and "train-done" in out


# --- wait -----------------------------------------------------------------------------------------------------


def test_wait_exits_0_when_reached_and_1_on_another_terminal_state(api, kubeconfig, capsys):
    api.add(completed())
    api.add(failed())
    assert run(capsys, "wait", "train-done", "--for", "completed", "--kubeconfig", kubeconfig)[0] == 0
    code, out, _ = run(capsys, "wait", "train-done", "--for", "failed", "--kubeconfig", kubeconfig)
    assert code == 1 and "Completed" in out and "waited for failed" in out
    assert run(capsys, "wait", "train-failed", "--for", "failed", "--kubeconfig", kubeconfig)[0] == 0
    assert run(capsys, "wait", "train-failed", "--for", "completed", "--kubeconfig", kubeconfig)[0] == 1
    assert run(capsys, "wait", "train-failed", "--for", "running", "--kubeconfig", kubeconfig)[0] == 1


def test_wait_polls_until_the_workload_moves_on(api, kubeconfig, capsys):
    pending = with_status(pathways_jobset("train-live"), replicatedJobsStatus=[])
    half = with_status(pathways_jobset("train-live"),
                       replicatedJobsStatus=[rjob_status("pathways-head", ready=1, active=1)])
    up = running("train-live")
    done = completed("train-live", restarts=0)
    api.add(pending, half, up, up, done)
    code, out, _ = run(capsys, "wait", "train-live", "--for", "running", "--interval", "0.01",
                       "--kubeconfig", kubeconfig)
    assert code == 0 and out == "train-live: Running (3/3 jobs ready)\n"  # quiet while polling (no terminal)
    assert api.reads["jobsets/train-live"] == 3  # Pending, Pending with the head up, Running
    code, out, _ = run(capsys, "wait", "train-live", "--for", "completed", "--interval", "0.01", "--json",
                       "--kubeconfig", kubeconfig)
    result = json.loads(out)
    assert code == 0 and result["result"] == "reached" and result["workload"]["state"] == "Completed"


@pytest.mark.slow
def test_wait_for_ready_on_a_serving_workload_and_its_timeout_code(api, kubeconfig, capsys):
    api.add(lws_object("llama-serve", ready=1, replicas=2))
    assert run(capsys, "wait", "llama-serve", "--for", "running", "--kubeconfig", kubeconfig)[0] == 0
    code, out, _ = run(capsys, "wait", "llama-serve", "--for", "ready", "--timeout", "0.2", "--interval", "0.05",
                       "--kubeconfig", kubeconfig)
    assert code == 4 and "timed out waiting for ready: llama-serve: Degraded (1/2 groups ready)" in out
    code, _, err = run(capsys, "wait", "llama-serve", "--for", "completed", "--kubeconfig", kubeconfig)
    assert code == 2 and "never completes or fails" in err


def test_wait_bad_input(api, kubeconfig, capsys):
    assert run(capsys, "wait", "ghost", "--for", "completed", "--kubeconfig", kubeconfig)[0] == 2
    with pytest.raises(SystemExit) as exc:
        cli.main(["wait", "x", "--for", "done", "--kubeconfig", kubeconfig])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        cli.main(["wait", "x", "--for", "ready", "--timeout", "soon", "--kubeconfig", kubeconfig])
    capsys.readouterr()


# --- logs -----------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_logs_reads_the_heads_user_container_and_prints_the_logging_query(api, kubeconfig, capsys):
    js = running("train-run")
    api.add(js)
    pods = pod_objects(js)
    for p in pods:
        api.add(p)
    head = next(p for p in pods if p["metadata"]["labels"][naming.REPLICATED_JOB_NAME_KEY] == "pathways-head")
    user = head["spec"]["containers"][0]["name"]
    assert user == "jax-tpu"  # the user container (the proxy and RM are init sidecars)
    api.logs[(head["metadata"]["name"], user)] = "step 1 loss 2.3\nstep 2 loss 2.1\n"
    code, out, err = run(capsys, "logs", "train-run", "--kubeconfig", kubeconfig)
    assert code == 0 and out == "step 1 loss 2.3\nstep 2 loss 2.1\n"
    assert f"==> {head['metadata']['name']} / jax-tpu" in err
    assert 'resource.type="k8s_container"' in err and 'resource.labels.pod_name=~"^train-run-"' in err
    log_path = f"/api/v1/namespaces/{NS}/pods/{head['metadata']['name']}/log?"
    assert any(r.startswith(log_path) and "container=jax-tpu" in r for r in api.requests)


@pytest.mark.slow
def test_logs_of_a_slices_worker_with_follow(api, kubeconfig, capsys):
    js = running("train-run")
    api.add(js)
    for p in pod_objects(js):
        api.add(p)
    worker = "train-run-worker-1-0-x7k2q"
    api.logs[(worker, "pathways-worker")] = "worker up\n"
    code, out, err = run(capsys, "logs", "train-run", "--role", "worker", "--slice", "1", "-f",
                         "--kubeconfig", kubeconfig)
    assert code == 0 and out == "worker up\n" and f"==> {worker} / pathways-worker" in err
    assert any(r.startswith(f"/api/v1/namespaces/{NS}/pods/{worker}/log?") and "follow=true" in r
               for r in api.requests)
    code, _, err = run(capsys, "logs", "train-run", "--role", "worker", "--slice", "9", "--kubeconfig", kubeconfig)
    assert code == 2 and "has 2 slice(s)" in err
    code, _, err = run(capsys, "logs", "train-run", "--role", "leader", "--kubeconfig", kubeconfig)
    assert code == 2 and "head, worker and proxy-<client>" in err


def test_logs_of_a_serving_leader_reads_its_server_and_no_pod_yet_exits_1(api, kubeconfig, capsys):
    lws = lws_object("llama-serve", ready=1, replicas=2)
    api.add(lws)
    for p in lws_pods(lws, 0):
        api.add(p)
    api.logs[("llama-serve-0", lws["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]["name"])] \
        = "INFO: Uvicorn running\n"
    code, out, err = run(capsys, "logs", "llama-serve", "--kubeconfig", kubeconfig)
    assert code == 0 and out == "INFO: Uvicorn running\n" and "==> llama-serve-0 /" in err
    api.logs[("llama-serve-0-1", "pathways-worker")] = "worker 1 of group 0\n"
    code, out, err = run(capsys, "logs", "llama-serve", "--role", "worker", "--kubeconfig", kubeconfig)
    assert code == 0 and out == "worker 1 of group 0\n" and "==> llama-serve-0-1 / pathways-worker" in err
    code, _, err = run(capsys, "logs", "llama-serve", "--slice", "1", "--kubeconfig", kubeconfig)
    assert code == 1 and "no pod yet for group 1's leader of llama-serve" in err and "k8s_container" in err


@pytest.mark.slow  # starts Python processes
def test_the_cli_runs_as_a_process(api, kubeconfig):
    api.add(completed())
    env = {**os.environ, "PYTHONPATH": str(ROOT / "components")}
    result = subprocess.run([sys.executable, "-m", "pathways_gke", "status", "--json", "--kubeconfig", kubeconfig],
                            capture_output=True, text=True, env=env, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    w = json.loads(result.stdout)["workloads"][0]
    assert (w["name"], w["state"], w["restarts"]) == ("train-done", "Completed", 2)
    result = subprocess.run([sys.executable, "-m", "pathways_gke", "wait", "train-done", "--for", "failed",
                             "--kubeconfig", kubeconfig], capture_output=True, text=True, env=env, timeout=120,
                            check=False)
    assert result.returncode == 1 and result.stderr == ""  # not a terminal: no progress lines


@pytest.mark.parametrize("command", ["status", "wait", "logs", "preflight"])
def test_every_day2_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    assert "usage: pathways-gke " + command in capsys.readouterr().out


# --- the optional extra ---------------------------------------------------------------------------------------


@pytest.mark.slow  # starts Python processes
def test_the_day2_clients_are_an_optional_extra_the_library_never_imports():
    import ast
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert set(extras["day2"]) <= set(extras["dev"])  # the tests run them
    names = {d.split(">")[0].split("<")[0].split("[")[0] for d in extras["day2"]}
    assert names == {"kubernetes", "google-api-python-client", "google-auth"}
    assert not names & {d.split(">")[0].split("<")[0].split("[")[0] for d in project["dependencies"]}
    clients = ("kubernetes", "googleapiclient", "google.auth", "urllib3")
    importers = set()
    for path in (ROOT / "components" / "pathways_gke").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            modules = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            if any(m == c or m.startswith(c + ".") for m in modules for c in clients):
                importers.add(path.relative_to(ROOT / "components").as_posix())
    assert importers == {"pathways_gke/day2/kube.py", "pathways_gke/day2/google.py"}
    # and without them the CLI still starts and plans (the day-2 commands say what to install)
    code = ("import sys; sys.modules.update(kubernetes=None, googleapiclient=None); "
            "from pathways_gke import cli; sys.exit(cli.main(['status', '--help']))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(ROOT / "components")}, check=False)
    assert result.returncode == 0 and "usage: pathways-gke status" in result.stdout, result.stderr


@pytest.mark.slow  # starts Python processes
@pytest.mark.parametrize("ci", [False, True])
def test_wait_shows_progress_on_a_terminal_and_not_in_ci(api, kubeconfig, ci):
    import pty

    api.add(with_status(pathways_jobset("train-tty"), replicatedJobsStatus=[]),
            with_status(pathways_jobset("train-tty"), replicatedJobsStatus=[]), running("train-tty"))
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = str(ROOT / "components")
    if ci:
        env["CI"] = "true"
    master, slave = pty.openpty()  # stderr is a real terminal
    try:
        result = subprocess.run([sys.executable, "-m", "pathways_gke", "wait", "train-tty", "--for", "ready",
                                 "--interval", "0.01", "--kubeconfig", kubeconfig], stdout=subprocess.PIPE,
                                stderr=slave, env=env, timeout=120, check=False)
        os.close(slave)
        shown = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # the terminal closed
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(master)
    assert result.returncode == 0 and result.stdout == b"train-tty: Running (3/3 jobs ready)\n"
    expected = [] if ci else ["train-tty: Pending (0/3 jobs ready)", "train-tty: Running (3/3 jobs ready)"]
    assert shown.decode().replace("\r", "").splitlines() == expected  # each change once, not every poll


# --- more cases -----------------------------------------------------------------------------------------------


def test_a_global_restart_under_way_is_restarting_and_once_back_a_lost_job_is_degraded(api, kubeconfig, capsys):
    # InOrder startup runs again after a restart: StartupPolicyCompleted goes False until every Job is back
    # (kubernetes-sigs/jobset pkg/controllers/startup_policy.go)
    api.add(with_status(pathways_jobset("train-again"), restarts=2, restartsCountTowardsMax=2,
                        conditions=[cond("StartupPolicyCompleted", "False", "InOrderStartupPolicy",
                                         "in order startup policy is executing")],
                        replicatedJobsStatus=[rjob_status("pathways-head", ready=1, active=1),
                                              rjob_status("worker", active=2)]))
    api.add(with_status(pathways_jobset("train-back"), restarts=2, restartsCountTowardsMax=2,
                        conditions=[cond("StartupPolicyCompleted", "True", "InOrderStartupPolicy",
                                         "in order startup policy has completed")],
                        replicatedJobsStatus=[rjob_status("pathways-head", ready=1, active=1),
                                              rjob_status("worker", ready=1, active=2)]))
    ws = status_json(capsys, kubeconfig)
    assert (ws["train-again"]["state"], ws["train-again"]["restarts"]) == ("Restarting", 2)
    assert (ws["train-back"]["state"], ws["train-back"]["ready"]["ready"]) == ("Degraded", 2)
    assert run(capsys, "wait", "train-back", "--for", "running", "--kubeconfig", kubeconfig)[0] == 0


def test_an_lws_under_kueue_has_one_workload_per_group(api, kubeconfig, capsys):
    # Kueue's LWS integration admits each group as its own Workload owned by the LeaderWorkerSet
    # (kubernetes-sigs/kueue pkg/controller/jobs/leaderworkerset)
    lws = lws_object("llama-q", ready=1, replicas=2)
    api.add(lws)
    first = kueue_workload(lws, cond("QuotaReserved"), cond("Admitted", reason="Admitted"),
                           admission={"clusterQueue": naming.KUEUE_CLUSTER_QUEUE, "podSetAssignments": []})
    second = kueue_workload(lws, cond("QuotaReserved", "False", "Pending", "insufficient quota"))
    second["metadata"]["name"] = "leaderworkerset-llama-q-1-9f8e7"
    api.add(first)
    api.add(second)
    w = status_json(capsys, kubeconfig)["llama-q"]
    assert w["state"] == "Degraded" and [k["state"] for k in w["kueue"]] == ["Admitted", "Pending"]


def test_logs_of_a_service_clients_proxy(api, kubeconfig, capsys):
    stack = _stack("serve")
    w = next(w for w in stack.workloads if w.name == "shared-pw")
    objects = serving_objects(w, Placement.of(stack, w))
    api.add(with_status(objects.lws, replicas=1, readyReplicas=1, updatedReplicas=1, conditions=[]))
    deployment = objects.clients["alice"][0]
    template = deployment["spec"]["template"]
    api.add({"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": "shared-pw-proxy-alice-7d9c5-abcde", "namespace": NS,
                          "labels": template["metadata"]["labels"]},
             "spec": template["spec"], "status": {"phase": "Running"}})
    api.logs[("shared-pw-proxy-alice-7d9c5-abcde", "pathways-proxy")] = "proxy listening on 29000\n"
    code, out, err = run(capsys, "logs", "shared-pw", "--role", "proxy-alice", "--kubeconfig", kubeconfig)
    assert code == 0 and out == "proxy listening on 29000\n", err
    code, _, err = run(capsys, "logs", "shared-pw", "--role", "proxy-carol", "--kubeconfig", kubeconfig)
    assert code == 2 and "no client 'carol'" in err and "proxy-alice" in err  # bad input: a retry never helps


@pytest.mark.slow
def test_the_stack_kubeconfig_comes_from_the_pulumi_cli(api, tmp_path, monkeypatch, capsys):
    """`--stack` runs `pulumi stack output kubeconfig --show-secrets -s S` (a stand-in CLI on PATH here) and
    takes the namespace from the stack's config."""
    config = shipped("dev")
    config["pathways-gke:namespace"] = NS
    (tmp_path / "stacks").mkdir()
    (tmp_path / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (tmp_path / "stacks" / "Pulumi.day2.yaml").write_text(yaml.safe_dump({"config": config}))
    kubeconfig = api.kubeconfig(tmp_path / "kubeconfig")  # no namespace in the context
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "pulumi"
    fake.write_text("#!/bin/sh\n"
                    "[ \"$*\" = \"stack output kubeconfig --show-secrets -s day2\" ] || "
                    "{ echo \"error: no stack named '$6'\" >&2; exit 255; }\n"
                    f"cat '{kubeconfig}'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    js = completed()
    api.add(js)
    code, out, err = run(capsys, "status", "--stack", "day2", "--project-dir", str(tmp_path))
    assert code == 0 and "train-done" in out, err
    head = next(p for p in pod_objects(js) if p["metadata"]["labels"][naming.JOB_INDEX_KEY] == "0"
                and p["metadata"]["labels"][naming.REPLICATED_JOB_NAME_KEY] == "pathways-head")
    api.add(head)
    api.logs[(head["metadata"]["name"], "jax-tpu")] = "done\n"
    code, out, err = run(capsys, "logs", "train-done", "--stack", "day2", "--project-dir", str(tmp_path))
    assert code == 0 and out == "done\n"
    assert 'resource.labels.project_id="acme-ml-dev"' in err and 'resource.labels.cluster_name="pw-dev"' in err
    (tmp_path / "stacks" / "Pulumi.other.yaml").write_text(yaml.safe_dump({"config": config}))
    code, _, err = run(capsys, "status", "--stack", "other", "--project-dir", str(tmp_path))
    assert code == 2 and "`pulumi stack output kubeconfig` failed: error: no stack named 'other'" in err


def test_a_container_that_has_not_started_is_not_yet_rather_than_bad_input(api, kubeconfig, capsys):
    js = running("train-run")
    api.add(js)
    for p in pod_objects(js):
        api.add(p)  # no log recorded: the API server answers 400, as for a container still waiting to start
    code, _, err = run(capsys, "logs", "train-run", "--kubeconfig", kubeconfig)
    assert code == 1 and "400 Bad Request" in err and "container jax-tpu is not valid" in err


@pytest.mark.slow  # starts Python processes
def test_ctrl_c_ends_wait_without_a_traceback(api, kubeconfig):
    import signal
    import time

    api.add(with_status(pathways_jobset("train-slow"), replicatedJobsStatus=[]))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "components")}
    process = subprocess.Popen([sys.executable, "-m", "pathways_gke", "wait", "train-slow", "--for", "completed",
                                "--interval", "0.05", "--kubeconfig", kubeconfig], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env, text=True)
    deadline = time.monotonic() + 60
    while api.reads["jobsets/train-slow"] < 2 and time.monotonic() < deadline:  # it is polling
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130 and err == "interrupted\n", err

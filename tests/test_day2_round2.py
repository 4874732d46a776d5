"""Day 2, round 2: the states upstream objects really take (JobSet v0.12, LWS v0.10, Kueue v0.19), why a workload is
stuck, suspend / resume, logs of the current attempt, retries, foreign objects and a missing API — against the
loopback Kubernetes API server (tests/support/kube_api.py) answering the real REST paths.
"""

from __future__ import annotations

import copy
import json
from urllib.parse import parse_qs, unquote, urlparse

import pytest

pytest.importorskip("kubernetes", reason="the day2 extra (pip install 'pathways-gke[day2]') is not installed")

from pathways_gke import naming  # noqa: E402
from pathways_gke.day2.pods import logs_explorer_url  # noqa: E402
from tests.support.kube_api import KubeApi  # noqa: E402
from tests.test_day2 import (NS, completed, cond, failed, kueue_workload, lws_object, pathways_jobset,  # noqa: E402
                             pod_objects, rjob_status, run, running, status_json, with_status)


@pytest.fixture
def api():
    with KubeApi() as server:
        server.register("kueue.x-k8s.io/v1beta2")
        yield server


@pytest.fixture
def kubeconfig(api, tmp_path):
    return str(api.kubeconfig(tmp_path / "kubeconfig", namespace=NS))


def suspended(name: str) -> dict:
    js = pathways_jobset(name)
    js["spec"]["suspend"] = True
    return with_status(js, conditions=[cond("Suspended", reason="SuspendedJobs", message="jobset is suspended")])


# --- 1. states from the sources --------------------------------------------------------------------------------


@pytest.mark.slow
def test_kueue_eviction_requeue_deactivation_and_a_provisioning_check_each_map_to_their_state(api, kubeconfig, capsys):
    cases = {n: suspended(n) for n in ("requeued", "backoff", "deactivated", "provisioning", "evicted-old")}
    for js in cases.values():
        api.add(js)
    preempted = cond("Evicted", reason="Preempted", message="Preempted to accommodate a workload (UID: 1)")
    api.add(kueue_workload(cases["requeued"], preempted, cond("Requeued", reason="Preempted", message="requeued"),
                           cond("QuotaReserved", "False", "Pending", "waiting for quota")))
    backoff = kueue_workload(cases["backoff"], cond("Evicted", reason="PodsReadyTimeout", message="pods not ready"),
                             cond("Requeued", "False", "Backoff", "backoff"))
    backoff["status"]["requeueState"] = {"count": 1, "requeueAt": "2026-11-27T18:00:00Z"}
    api.add(backoff)
    deactivated = kueue_workload(cases["deactivated"], cond("Evicted", reason="Deactivated",
                                                            message="The workload is deactivated"))
    deactivated["spec"]["active"] = False
    api.add(deactivated)
    waiting = "Waiting for resources. Currently there are not enough resources available to fulfill the request."
    provisioning = kueue_workload(cases["provisioning"], cond("QuotaReserved", reason="QuotaReserved",
                                                              message="Quota reserved in ClusterQueue cq"),
                                  cond("Admitted", "False", "UnsatisfiedAdmissionChecks",
                                       "The workload has not all checks ready"))
    provisioning["status"]["admissionChecks"] = [{"name": "pathways-provisioning", "state": "Pending",
                                                  "message": waiting, "lastTransitionTime": "2026-11-27T17:00:00Z"}]
    api.add(provisioning)
    api.add(kueue_workload(cases["evicted-old"], cond("Evicted", reason="Preempted")))
    ws = status_json(capsys, kubeconfig)
    assert ws["requeued"]["state"] == "Pending"  # back in the queue, not paused
    assert ws["requeued"]["kueue"][0]["reason"] == "Requeued after Preempted"
    assert ws["backoff"]["state"] == "Pending" and "2026-11-27T18:00:00Z" in ws["backoff"]["kueue"][0]["message"]
    assert ws["deactivated"]["state"] == "Suspended" and ws["deactivated"]["kueue"][0]["state"] == "Deactivated"
    assert ws["deactivated"]["condition"]["reason"] == "Deactivated"
    assert ws["provisioning"]["state"] == "Pending"
    assert ws["provisioning"]["condition"]["message"] == waiting  # the check's own words, not "Quota reserved"
    assert ws["provisioning"]["kueue"][0]["checks"] == [{"name": "pathways-provisioning", "state": "Pending",
                                                         "message": waiting}]
    assert ws["provisioning"]["blocker"] == {"source": "kueue", "object": "Workload/jobset-provisioning-1a2b3",
                                             "reason": "admission check pathways-provisioning Pending",
                                             "message": waiting}
    assert ws["evicted-old"]["state"] == "Suspended"  # evicted, no requeue recorded: it does not come back alone
    code, out, _ = run(capsys, "status", "provisioning", "--kubeconfig", kubeconfig)
    assert f"admission check pathways-provisioning: Pending ({waiting})" in out


def test_restarts_are_the_budget_used_of_max_restarts_not_every_restart(api, kubeconfig, capsys):
    js = running("train-budget")
    js["spec"]["failurePolicy"]["maxRestarts"] = 3
    js["status"].update(restarts=5, restartsCountTowardsMax=2)  # 3 restarts by ...IgnoreMaxRestarts rules
    js["status"]["replicatedJobsStatus"][1]["jobRestartsCountTowardsMax"] = [1, 0]
    api.add(js)
    w = status_json(capsys, kubeconfig)["train-budget"]
    assert w["restarts"] == 3 and w["restartBudget"] == {"used": 3, "max": 3, "all": 5}
    _, out, _ = run(capsys, "status", "--kubeconfig", kubeconfig)
    assert out.splitlines()[1].split()[3] == "3/3"
    assert "restarts: 3 of 3 allowed used (5 in all" in out


def test_finished_runs_say_what_completed_or_failed(api, kubeconfig, capsys):
    api.add(completed())
    api.add(failed())
    ws = status_json(capsys, kubeconfig)
    assert ws["train-done"]["summary"] == "3/3 jobs succeeded"
    assert ws["train-failed"]["summary"] == "2 of 3 jobs failed"
    code, out, _ = run(capsys, "wait", "train-failed", "--for", "completed", "--kubeconfig", kubeconfig)
    assert code == 1 and "train-failed: Failed (2 of 3 jobs failed)" in out


def test_the_restarting_condition_is_restarting(api, kubeconfig, capsys):
    js = running("train-rs")
    js["status"]["conditions"].append(cond("RestartingJobSet", reason="DefaultFailurePolicy",
                                           message="applying RestartJobSet failure policy action",
                                           time="2026-11-26T10:05:00Z"))
    api.add(js)
    assert status_json(capsys, kubeconfig)["train-rs"]["state"] == "Restarting"


def rolling(name="llama-roll", ready=2, updated=1, generation=2, observed=2, conditions=None):
    lws = lws_object(name, ready=ready, replicas=2)
    lws["metadata"]["generation"] = generation
    lws["status"].update(updatedReplicas=updated, observedGeneration=observed)
    if conditions is not None:
        lws["status"]["conditions"] = conditions
    return lws


@pytest.mark.slow  # polls with a timeout
@pytest.mark.parametrize("lws, rolled_out", [
    (rolling(conditions=[cond("UpdateInProgress", reason="GroupsUpdating"), cond("Progressing")]), False),
    (rolling(updated=2, observed=1, conditions=[cond("Available", reason="AllGroupsReady")]), False),  # stale
    (rolling(updated=2, conditions=[cond("Available", "False"), cond("Progressing")]), False),
    (rolling(updated=2, conditions=[cond("Available", reason="AllGroupsReady")]), True),
], ids=["update-in-progress", "status-not-caught-up", "not-available", "rolled-out"])
def test_wait_for_ready_on_an_lws_waits_for_the_new_revision_on_every_group(api, kubeconfig, capsys, lws, rolled_out):
    api.add(lws)
    w = status_json(capsys, kubeconfig)["llama-roll"]
    assert w["state"] == "Running" and w["rollout"]["complete"] is rolled_out  # serving on old groups meanwhile
    code, out, _ = run(capsys, "wait", "llama-roll", "--for", "ready", "--timeout", "0", "--kubeconfig", kubeconfig)
    assert code == (0 if rolled_out else 4), out
    assert run(capsys, "wait", "llama-roll", "--for", "running", "--kubeconfig", kubeconfig)[0] == 0


# --- 2. why it is stuck ---------------------------------------------------------------------------------------


def pod_status(pod, phase="Pending", containers=(), conditions=(), attempt=None):
    pod = copy.deepcopy(pod)
    pod["status"] = {"phase": phase, "containerStatuses": list(containers), "conditions": list(conditions)}
    if attempt is not None:
        pod["metadata"]["labels"]["jobset.sigs.k8s.io/restart-attempt"] = str(attempt)
    return pod


def waiting(name, reason, message="", last=None):
    c = {"name": name, "ready": False, "restartCount": 3 if last else 0, "image": "x",
         "state": {"waiting": {"reason": reason, "message": message}}}
    if last:
        c["lastState"] = {"terminated": last}
    return c


def starting_jobset(name):
    return with_status(pathways_jobset(name), conditions=[cond("StartupPolicyInProgress",
                                                               reason="InOrderStartupPolicyInProgress")],
                       replicatedJobsStatus=[rjob_status("pathways-head", active=1),
                                             rjob_status("worker", active=2)])


@pytest.mark.parametrize("container, scheduled, reason, words", [
    (waiting("jax-tpu", "ImagePullBackOff", 'Back-off pulling image "us-docker.pkg.dev/acme/train:nope"'), None,
     "ImagePullBackOff", "Back-off pulling image"),
    (waiting("jax-tpu", "CrashLoopBackOff", "back-off 5m0s restarting failed container",
             last={"reason": "OOMKilled", "exitCode": 137}), None, "CrashLoopBackOff", "last run OOMKilled (exit code 137)"),
    (None, {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
            "message": "0/4 nodes are available: 4 Insufficient google.com/tpu."}, "Unschedulable",
     "4 Insufficient google.com/tpu"),
], ids=["image-pull", "crash-loop-oom", "unschedulable"])
def test_a_pending_workload_names_the_first_blocking_reason_from_its_pods(api, kubeconfig, capsys, container,
                                                                          scheduled, reason, words):
    js = starting_jobset("train-stuck")
    api.add(js)
    pods = pod_objects(js)
    head = pods[0]
    api.add(pod_status(head, containers=[container] if container else [], conditions=[scheduled] if scheduled else []))
    for p in pods[1:]:
        api.add(pod_status(p))
    w = status_json(capsys, kubeconfig)["train-stuck"]
    assert w["state"] == "Pending" and w["blocker"]["source"] == "pod" and w["blocker"]["reason"] == reason
    assert words in w["blocker"]["message"] and head["metadata"]["name"] in w["blocker"]["object"]
    _, out, _ = run(capsys, "status", "--kubeconfig", kubeconfig)
    assert f"  blocked: {reason} (pod/{head['metadata']['name']}" in out
    code, out, _ = run(capsys, "wait", "train-stuck", "--for", "running", "--timeout", "0", "--kubeconfig", kubeconfig)
    assert code == 4 and f"timed out waiting for running: train-stuck: Pending (0/3 jobs ready); blocked: {reason}" in out


@pytest.mark.slow  # the first use of the core API client imports it (~2 s)
def test_the_old_attempts_pods_and_events_and_the_queue_position(api, kubeconfig, capsys):
    js = starting_jobset("train-events")
    js["status"]["restarts"] = 1
    api.add(js)
    old = pod_status(pod_objects(js)[0], containers=[waiting("jax-tpu", "ErrImagePull")], attempt=0)
    old["metadata"]["name"] += "-old"
    api.add(old)  # the previous attempt's terminating pod: not this run's reason
    api.add({"apiVersion": "v1", "kind": "Event", "type": "Warning", "reason": "FailedCreate",
             "message": 'Error creating: pods "train-events-worker-0-0" is forbidden: exceeded quota',
             "lastTimestamp": "2026-11-27T17:00:00Z",
             "metadata": {"name": "train-events.1", "namespace": NS},
             "involvedObject": {"kind": "JobSet", "name": "train-events", "namespace": NS}})
    queued = suspended("train-queued")
    api.add(queued)
    api.add(kueue_workload(queued, cond("QuotaReserved", "False", "Pending", "insufficient quota")))
    api.register("visibility.kueue.x-k8s.io/v1beta2")
    api.route(f"/apis/visibility.kueue.x-k8s.io/v1beta2/namespaces/{NS}/localqueues/pathways-queue/pendingworkloads",
              {"kind": "PendingWorkloadsSummary", "apiVersion": "visibility.kueue.x-k8s.io/v1beta2", "metadata": {},
               "items": [{"metadata": {"name": "jobset-train-queued-1a2b3", "namespace": NS}, "priority": 0,
                          "localQueueName": "pathways-queue", "positionInClusterQueue": 7,
                          "positionInLocalQueue": 3}]})
    ws = status_json(capsys, kubeconfig)
    assert ws["train-events"]["blocker"] == {"source": "event", "object": "JobSet/train-events",
                                             "reason": "FailedCreate",
                                             "message": 'Error creating: pods "train-events-worker-0-0" is '
                                                        'forbidden: exceeded quota'}
    assert ws["train-queued"]["queue"] == {"workload": "jobset-train-queued-1a2b3", "localQueue": "pathways-queue",
                                           "positionInLocalQueue": 3, "positionInClusterQueue": 7}
    assert ws["train-queued"]["blocker"]["source"] == "kueue"
    _, out, _ = run(capsys, "status", "--kubeconfig", kubeconfig)
    assert "  queue: position 3 in LocalQueue pathways-queue (7 in its ClusterQueue)" in out
    assert any("fieldSelector=type%3DWarning" in r or "fieldSelector=type=Warning" in unquote(r)
               for r in api.requests)


def test_a_visibility_api_that_is_down_costs_the_position_only(api, kubeconfig, capsys):
    queued = suspended("train-queued")
    api.add(queued)
    api.add(kueue_workload(queued, cond("QuotaReserved", "False", "Pending", "insufficient quota")))
    api.fail("/apis/visibility.kueue.x-k8s.io/", 503, "ServiceUnavailable")  # its aggregated API server is down
    w = status_json(capsys, kubeconfig)["train-queued"]
    assert w["state"] == "Pending" and w["queue"] is None and w["blocker"]["reason"] == "Pending"
    assert sum("/apis/visibility.kueue.x-k8s.io/" in r for r in api.requests) == 1  # asked once, not retried


def test_a_serving_services_load_balancer_address_is_in_status(api, kubeconfig, capsys):
    api.add(lws_object("llama-serve", ready=2, replicas=2))
    api.add({"apiVersion": "v1", "kind": "Service",
             "metadata": {"name": "llama-serve", "namespace": NS, "labels": {naming.WORKLOAD_LABEL: "llama-serve"}},
             "spec": {"type": "LoadBalancer", "ports": [{"port": 8000}]},
             "status": {"loadBalancer": {"ingress": [{"ip": "10.128.0.42"}]}}})
    w = status_json(capsys, kubeconfig)["llama-serve"]
    assert w["endpoint"] == {"service": "llama-serve", "type": "LoadBalancer", "port": 8000, "address": "10.128.0.42"}
    _, out, _ = run(capsys, "status", "--kubeconfig", kubeconfig)
    assert "  endpoint: Service llama-serve (LoadBalancer) 10.128.0.42:8000" in out


# --- 3. suspend and resume ------------------------------------------------------------------------------------


def test_suspend_and_resume_a_jobset_round_trip_through_spec_suspend(api, kubeconfig, capsys):
    api.add(running("train-run"))
    code, out, err = run(capsys, "suspend", "train-run", "--kubeconfig", kubeconfig)
    assert code == 0 and "spec.suspend=true" in out, err
    path, content_type, body, manager = api.patches[-1]
    assert path == f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets/train-run"
    assert "merge-patch" in content_type and body == {"spec": {"suspend": True}} and manager == "pathways-gke"
    assert status_json(capsys, kubeconfig)["train-run"]["state"] == "Suspended"
    code, out, _ = run(capsys, "suspend", "train-run", "--kubeconfig", kubeconfig)
    assert code == 0 and "already suspended" in out and len(api.patches) == 1
    code, out, _ = run(capsys, "resume", "train-run", "--kubeconfig", kubeconfig)
    assert code == 0 and api.patches[-1][2] == {"spec": {"suspend": False}}
    assert api.latest("jobsets", "train-run")["spec"]["suspend"] is False


def test_a_kueue_managed_jobset_is_stopped_through_its_workloads_spec_active(api, kubeconfig, capsys):
    js = running("train-q")
    api.add(js)
    api.add(kueue_workload(js, cond("QuotaReserved"), cond("Admitted", reason="Admitted")))
    code, out, _ = run(capsys, "suspend", "train-q", "--kubeconfig", kubeconfig)
    assert code == 0 and "Kueue Workload jobset-train-q-1a2b3 spec.active=false" in out
    assert api.patches[-1][0] == f"/apis/kueue.x-k8s.io/v1beta2/namespaces/{NS}/workloads/jobset-train-q-1a2b3"
    assert api.patches[-1][2] == {"spec": {"active": False}}
    assert run(capsys, "resume", "train-q", "--kubeconfig", kubeconfig)[0] == 0
    assert api.latest("workloads", "jobset-train-q-1a2b3")["spec"]["active"] is True


def test_an_lws_is_scaled_to_zero_and_back_to_the_recorded_count(api, kubeconfig, capsys):
    api.add(lws_object("llama-serve", ready=2, replicas=2))
    code, out, err = run(capsys, "suspend", "llama-serve", "--wait", "--interval", "0.01", "--timeout", "5",
                         "--kubeconfig", kubeconfig)
    assert code == 0 and "spec.replicas 0 (was 2" in out and "llama-serve: Suspended" in out
    assert "conflict on .spec.replicas (field manager pathways-gke)" in err  # what a later `pulumi up` does
    lws = api.latest("leaderworkersets", "llama-serve")
    assert lws["spec"]["replicas"] == 0
    assert lws["metadata"]["annotations"][naming.SUSPENDED_REPLICAS_ANNOTATION] == "2"
    assert run(capsys, "resume", "llama-serve", "--kubeconfig", kubeconfig)[0] == 0
    lws = api.latest("leaderworkersets", "llama-serve")
    assert lws["spec"]["replicas"] == 2 and naming.SUSPENDED_REPLICAS_ANNOTATION not in lws["metadata"]["annotations"]


def test_suspend_exit_codes_follow_wait(api, kubeconfig, capsys):
    api.add(completed())
    api.add(lws_object("lws-zero", ready=0, replicas=0))
    code, _, err = run(capsys, "suspend", "train-done", "--kubeconfig", kubeconfig)
    assert code == 1 and "Completed: nothing to suspend" in err and not api.patches
    assert run(capsys, "suspend", "ghost", "--kubeconfig", kubeconfig)[0] == 2
    code, _, err = run(capsys, "resume", "lws-zero", "--kubeconfig", kubeconfig)
    assert code == 2 and "not suspended by pathways-gke" in err and "Traceback" not in err


@pytest.mark.slow  # plans two stacks
def test_what_pulumi_up_does_later_follows_from_the_plans_inputs_and_options():
    """The program's JobSet never sets spec.suspend (so pulumi-kubernetes' server-side apply, which drops no field
    and forces nothing without pulumi.com/patchForce, neither sends it nor reverts it) and is replaced on any spec
    change (a new run); the LWS sets spec.replicas without ignoreChanges (an update while suspended conflicts with
    field manager pathways-gke rather than silently starting it); neither carries our annotation."""
    from pathways_gke.plan.engine import plan_stack
    from tests.conftest import ROOT

    for stack, kind in (("dev", "JobSet"), ("serve", "LeaderWorkerSet")):
        plan = plan_stack(stack, ROOT)
        objects = [r for r in plan.resources if r.type.endswith(f":{kind}")]
        assert objects, stack
        for r in objects:
            spec = r.inputs.get("spec") or {}
            annotations = (r.inputs.get("metadata") or {}).get("annotations") or {}
            assert naming.SUSPENDED_REPLICAS_ANNOTATION not in annotations
            assert "pulumi.com/patchForce" not in annotations
            if kind == "JobSet":
                assert "suspend" not in spec and "spec" in r.options["replaceOnChanges"]
            else:
                assert spec["replicas"] >= 1 and "spec.replicas" not in r.options["ignoreChanges"]


# --- 5. logs --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_logs_previous_since_all_pods_and_the_current_attempt(api, kubeconfig, capsys):
    js = running("train-run", restarts=1)
    api.add(js)
    pods = pod_objects(js)
    for p in pods:
        api.add(pod_status(p, phase="Running", attempt=1))
    head = pods[0]["metadata"]["name"]
    old = pod_status(pods[0], phase="Running", attempt=0)
    old["metadata"]["name"] = "train-run-pathways-head-0-0-aaaaa"  # sorts first: would be read if not filtered
    api.add(old)
    api.logs[(head, "jax-tpu")] = "attempt 1\n"
    api.previous_logs[(head, "jax-tpu")] = "Traceback: boom\n"
    code, out, _ = run(capsys, "logs", "train-run", "--kubeconfig", kubeconfig)
    assert code == 0 and out == "attempt 1\n"
    code, out, _ = run(capsys, "logs", "train-run", "--previous", "--since", "15m", "--kubeconfig", kubeconfig)
    assert code == 0 and out == "Traceback: boom\n"
    query = parse_qs(urlparse(api.requests[-1]).query)
    assert query["previous"] == ["true"] and query["sinceSeconds"] == ["900"]
    workers = [p["metadata"]["name"] for p in pods if p["metadata"]["labels"][naming.REPLICATED_JOB_NAME_KEY] == "worker"]
    for w in workers:
        api.logs[(w, "pathways-worker")] = f"hello from {w}\nbye\n"
    code, out, _ = run(capsys, "logs", "train-run", "--role", "worker", "--all-pods", "--kubeconfig", kubeconfig)
    assert code == 0
    assert out.splitlines() == [line for w in workers for line in
                                (f"[{w}/pathways-worker] hello from {w}", f"[{w}/pathways-worker] bye")]
    code, out, _ = run(capsys, "logs", "train-run", "--role", "worker", "--all-pods", "-f", "--kubeconfig", kubeconfig)
    assert code == 0 and sorted(out.splitlines()) == sorted(line for w in workers for line in
                                                            (f"[{w}/pathways-worker] hello from {w}",
                                                             f"[{w}/pathways-worker] bye"))
    del api.logs[(workers[0], "pathways-worker")]  # one container still waiting to start: the others are read
    code, out, err = run(capsys, "logs", "train-run", "--role", "worker", "--all-pods", "--kubeconfig", kubeconfig)
    assert code == 1 and f"[{workers[1]}/pathways-worker] bye" in out and "400 Bad Request" in err
    code, out, err = run(capsys, "logs", "train-run", "--role", "worker", "--all-pods", "-f", "--kubeconfig", kubeconfig)
    assert code == 1 and f"[{workers[1]}/pathways-worker] bye" in out and "Traceback" not in err


def test_a_finished_workload_whose_pods_are_gone_points_to_cloud_logging(api, kubeconfig, capsys):
    api.add(completed())
    code, out, err = run(capsys, "logs", "train-done", "--kubeconfig", kubeconfig)
    assert code == 1 and "is Completed and the pods of the head of train-done are gone" in err
    assert "retry later" not in err and 'resource.labels.pod_name=~"^train-done-"' in err


def test_a_gke_context_names_the_project_for_the_logs_explorer_link(api, tmp_path, capsys):
    api.add(completed())
    config = str(api.kubeconfig(tmp_path / "k", namespace=NS, context_name="gke_acme-ml-dev_us-east5_pw-dev"))
    code, _, err = run(capsys, "logs", "train-done", "--since", "2h", "--kubeconfig", config)
    assert code == 1 and 'resource.labels.project_id="acme-ml-dev"' in err
    assert 'resource.labels.cluster_name="pw-dev"' in err and 'resource.labels.location="us-east5"' in err
    assert "open: https://console.cloud.google.com/logs/query;query=" in err
    assert ";duration=PT7200S?project=acme-ml-dev" in err


def test_the_logs_explorer_url_carries_the_query_time_and_project():
    url = logs_explorer_url('resource.type="k8s_container"\nresource.labels.namespace_name="ml"', "acme", since=3600)
    assert url == ("https://console.cloud.google.com/logs/query;query=resource.type%3D%22k8s_container%22%0A"
                   "resource.labels.namespace_name%3D%22ml%22;duration=PT3600S?project=acme")
    assert logs_explorer_url("x", None) is None


# --- 6. robust and fast ---------------------------------------------------------------------------------------


@pytest.mark.slow
def test_transient_errors_are_retried_with_back_off(api, kubeconfig, capsys):
    api.add(running())
    api.flaky(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets", 503, 429)
    code, out, err = run(capsys, "status", "--kubeconfig", kubeconfig)
    assert code == 0 and "train-run" in out, err
    lists = [r for r in api.requests if r.startswith(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets?")]
    assert len(lists) == 3  # 503, 429, then the answer


@pytest.mark.slow
def test_a_reset_connection_is_retried(api, kubeconfig, capsys):
    api.add(running())
    api.reset(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets")
    code, out, err = run(capsys, "wait", "train-run", "--for", "ready", "--timeout", "30s", "--kubeconfig", kubeconfig)
    assert code == 0 and "train-run: Running" in out, err
    assert sum(r.startswith(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets?") for r in api.requests) == 2


@pytest.mark.slow
def test_an_api_that_keeps_failing_ends_wait_at_its_timeout(api, kubeconfig, capsys):
    api.add(running())
    api.fail(f"/apis/jobset.x-k8s.io/v1alpha2/namespaces/{NS}/jobsets", 503, "ServiceUnavailable")
    code, _, err = run(capsys, "wait", "train-run", "--for", "ready", "--timeout", "0.3", "--kubeconfig", kubeconfig)
    assert code == 2 and "503" in err and "still failing after" in err and "Traceback" not in err


@pytest.mark.slow
def test_a_cluster_without_the_jobset_api_is_the_wrong_cluster(tmp_path, capsys):
    with KubeApi() as api:
        config = str(api.kubeconfig(tmp_path / "k", namespace=NS))
        code, out, err = run(capsys, "status", "--kubeconfig", config)
        assert code == 2 and "serves neither the JobSet API (jobset.x-k8s.io/v1alpha2)" in err
        assert "right cluster" in err


def test_another_tools_jobset_is_named_as_such(api, kubeconfig, capsys):
    foreign = running("xpk-run")
    del foreign["metadata"]["labels"][naming.WORKLOAD_LABEL]
    foreign["metadata"]["managedFields"] = [{"manager": "xpk", "operation": "Apply"}]
    api.add(foreign)
    for command in (("status", "xpk-run"), ("logs", "xpk-run"), ("suspend", "xpk-run")):
        code, _, err = run(capsys, *command, "--kubeconfig", kubeconfig)
        assert code == 2 and "JobSet xpk-run in namespace ml was not made by pathways-gke" in err
        assert "written by xpk" in err and "--namespace" not in err
    assert not api.patches


def test_all_namespaces_and_the_state_filter(api, kubeconfig, capsys):
    api.add(running("train-run"))
    other = completed("train-done")
    other["metadata"]["namespace"] = "team-b"
    api.add(other)
    code, out, _ = run(capsys, "status", "-A", "--json", "--kubeconfig", kubeconfig)
    document = json.loads(out)
    assert document["namespace"] is None
    assert [(w["namespace"], w["name"]) for w in document["workloads"]] == [("ml", "train-run"),
                                                                            ("team-b", "train-done")]
    assert any(r.startswith("/apis/jobset.x-k8s.io/v1alpha2/jobsets?") for r in api.requests)
    code, out, _ = run(capsys, "status", "-A", "--state", "completed", "--kubeconfig", kubeconfig)
    assert "team-b" in out and "train-done" in out and "train-run" not in out
    with pytest.raises(SystemExit):
        run(capsys, "status", "--state", "Crashing", "--kubeconfig", kubeconfig)


# --- the rule, not the example: every Kueue condition the v1beta2 type defines ---------------------------------


def workload_with(*conditions, active=None, checks=(), requeue_at=None):
    w = {"metadata": {"name": "wl"}, "spec": {"queueName": "q"}, "status": {"conditions": list(conditions)}}
    if active is not None:
        w["spec"]["active"] = active
    if checks:
        w["status"]["admissionChecks"] = list(checks)
    if requeue_at:
        w["status"]["requeueState"] = {"requeueAt": requeue_at}
    return w


@pytest.mark.parametrize("workload, state, reason", [
    (workload_with(), "Pending", ""),
    (workload_with(cond("QuotaReserved", "False", "WaitingForQuota", "insufficient quota")), "Pending",
     "WaitingForQuota"),
    (workload_with(cond("BlockedOnPreemptionGates", reason="PreemptionGated", message="gate closed")), "Pending",
     "PreemptionGated"),
    (workload_with(cond("QuotaReserved"), checks=[{"name": "prov", "state": "Retry", "message": "Retrying after failure"}]),
     "QuotaReserved", "admission check prov Retry"),
    (workload_with(cond("QuotaReserved"), cond("Admitted", "False", "UnsatisfiedAdmissionChecks")), "QuotaReserved",
     "UnsatisfiedAdmissionChecks"),
    (workload_with(cond("QuotaReserved"), cond("Admitted"), cond("PodsReady", "False", "WaitForStart")), "Admitted", ""),
    (workload_with(cond("Evicted", reason="Preempted"), cond("Preempted", reason="InCohortReclamation"),
                   cond("Requeued", reason="Preempted")), "Pending", "Requeued after Preempted"),
    (workload_with(cond("Evicted", reason="PodsReadyTimeout"), cond("Requeued", "False", "Backoff"),
                   requeue_at="2026-11-27T18:00:00Z"), "Pending", "Requeued after PodsReadyTimeout"),
    (workload_with(cond("Evicted", reason="ClusterQueueStopped")), "Evicted", "ClusterQueueStopped"),
    (workload_with(cond("DeactivationTarget", reason="RequeuingLimitExceeded")), "Deactivated",
     "RequeuingLimitExceeded"),
    (workload_with(cond("Evicted", reason="Deactivated"), active=False), "Deactivated", "Deactivated"),
    (workload_with(cond("QuotaReserved"), cond("Admitted"), cond("Finished", reason="Succeeded")), "Finished",
     "Succeeded"),
], ids=["new", "no-quota", "preemption-gated", "check-retry", "checks-unsatisfied", "admitted-pods-not-ready",
        "preempted-requeued", "backoff", "evicted", "deactivation-target", "deactivated", "finished"])
def test_every_kueue_workload_condition_maps_to_a_state(workload, state, reason):
    from pathways_gke.day2.state import admission_of

    a = admission_of(workload)
    assert (a.state, a.reason) == (state, reason)


def test_a_preempted_workloads_detailed_reason_is_kept():
    from pathways_gke.day2.state import admission_of

    a = admission_of(workload_with(cond("Evicted", reason="Preempted", message="Preempted to accommodate"),
                                   cond("Preempted", reason="InClusterQueue", message="by a higher priority")))
    assert a.state == "Evicted" and a.message == "Preempted to accommodate (InClusterQueue: by a higher priority)"


@pytest.mark.parametrize("conditions, phase, reason", [
    ([{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler",
       "message": "preempted by a higher priority pod"}], "Running", "PreemptionByScheduler"),
    ([{"type": "ContainersReady", "status": "False", "reason": "ContainersNotReady",
       "message": "containers with unready status: [jetstream-http]"}], "Running", "ContainersNotReady"),
], ids=["disrupted", "unready"])
def test_pod_conditions_without_a_container_reason_still_explain(api, kubeconfig, capsys, conditions, phase, reason):
    js = starting_jobset("train-pod")
    api.add(js)
    api.add(pod_status(pod_objects(js)[0], phase=phase, conditions=conditions))
    w = status_json(capsys, kubeconfig)["train-pod"]
    assert w["blocker"]["reason"] == reason and w["blocker"]["message"] == conditions[0]["message"]


@pytest.mark.parametrize("command", ["suspend", "resume"])
def test_suspend_and_resume_have_help(command, capsys):
    from pathways_gke import cli

    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert f"usage: pathways-gke {command}" in out and "`pulumi up` does with it" in " ".join(out.split())


def test_the_top_level_help_describes_both_halves(capsys):
    from pathways_gke import cli

    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert "offline plans and diffs without credentials" in out
    assert "offline, no credentials" in out and "with credentials" in out
    for command in ("plan, diff", "preflight", "status, wait, logs", "suspend, resume"):
        assert command in out


def jobset_with(conditions=(), suspend=None, terminal=None, ready=(1, 2), failed=(0, 0), restarts=0):
    js = {"metadata": {"name": "js", "namespace": NS},
          "spec": {"replicatedJobs": [{"name": "head", "replicas": 1}, {"name": "worker", "replicas": 2}],
                   "failurePolicy": {"maxRestarts": 3}},
          "status": {"restarts": restarts, "restartsCountTowardsMax": restarts, "conditions": list(conditions),
                     "replicatedJobsStatus": [rjob_status("head", ready=ready[0], failed=failed[0]),
                                              rjob_status("worker", ready=ready[1], failed=failed[1])]}}
    if suspend is not None:
        js["spec"]["suspend"] = suspend
    if terminal:
        js["status"]["terminalState"] = terminal
    return js


QUEUED = workload_with(cond("QuotaReserved", "False", "WaitingForQuota"))
ADMITTED = workload_with(cond("QuotaReserved"), cond("Admitted"))
DEACTIVATED = workload_with(cond("Evicted", reason="Deactivated"), active=False)


@pytest.mark.parametrize("jobset, kueue, state", [
    (jobset_with(terminal="Completed", ready=(0, 0)), [], "Completed"),
    (jobset_with([cond("Failed", reason="FailedJobs")], ready=(0, 0), failed=(0, 1)), [], "Failed"),
    (jobset_with([cond("Suspended")], suspend=True, ready=(0, 0)), [], "Suspended"),
    (jobset_with([cond("Suspended")], suspend=True, ready=(0, 0)), [QUEUED], "Pending"),
    (jobset_with([cond("Suspended")], suspend=True, ready=(0, 0)), [DEACTIVATED], "Suspended"),
    (jobset_with([cond("StartupPolicyCompleted"), cond("RestartingJobSet", reason="DefaultFailurePolicy")],
                 restarts=1), [ADMITTED], "Restarting"),
    (jobset_with([cond("StartupPolicyCompleted"), cond("RestartingJobSet", "False", "JobsReady")], restarts=1),
     [ADMITTED], "Running"),
    (jobset_with([cond("StartupPolicyInProgress")], ready=(1, 0)), [ADMITTED], "Pending"),
    (jobset_with([cond("StartupPolicyCompleted")], ready=(1, 1)), [], "Degraded"),
    (jobset_with([cond("StartupPolicyCompleted")], ready=(1, 1), failed=(0, 1)), [], "Restarting"),
], ids=["terminal-completed", "failed", "suspended", "queued", "deactivated", "restarting-condition",
        "restart-done", "starting", "degraded", "job-failed"])
def test_each_jobset_condition_with_its_kueue_workload_maps_to_a_state(jobset, kueue, state):
    from pathways_gke.day2.state import jobset_status

    assert jobset_status(jobset, kueue).state == state


def test_the_documented_status_example_validates_against_the_schema():
    import re

    import jsonschema

    from tests.conftest import ROOT
    from tests.test_day2 import STATUS_SCHEMA

    text = (ROOT / "docs" / "day2.md").read_text()
    section = text[text.index("## `status --json`"):]
    example = json.loads(re.search(r"```json\n(.*?)\n```", section, re.S).group(1))
    jsonschema.validate(example, STATUS_SCHEMA)

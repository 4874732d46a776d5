"""`pathways-gke status` at scale: 2,000 JobSets and their 2,000 Kueue Workloads.

    python bench/day2_status.py            # measure and print
    python bench/day2_status.py --write    # also rewrite bench/DAY2_STATUS.md

Three numbers, CPU seconds of this process (time.process_time), the best of --repeat runs:
- *pure, indexed*: turning the listed objects into states as `status` does now (Kueue Workloads indexed by owner
  once: linear);
- *pure, pairwise*: the same with every JobSet scanning every Workload (what `status` did before: quadratic);
- *end to end*: `Cluster.statuses()` against the loopback API server (tests/support/kube_api.py), i.e. the REST
  lists, JSON decoding and the states (the server's own CPU is in this process too, so this is an upper bound);
  once with every JobSet Running, once with every one stuck (its pods and Warning events read for the blocker).
"""

from __future__ import annotations

import argparse
import copy
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "components"), str(ROOT)]

from pathways_gke import naming  # noqa: E402
from pathways_gke.day2.state import index_by_owner, jobset_status, owned_by  # noqa: E402

NS = "ml"


def objects(n: int) -> tuple[list[dict], list[dict]]:
    base = {"apiVersion": naming.JOBSET_API_VERSION, "kind": "JobSet",
            "metadata": {"name": "", "namespace": NS, "labels": {naming.WORKLOAD_LABEL: ""}},
            "spec": {"replicatedJobs": [{"name": "pathways-head", "replicas": 1}, {"name": "worker", "replicas": 4}],
                     "failurePolicy": {"maxRestarts": 3}},
            "status": {"restarts": 0, "conditions": [{"type": "StartupPolicyCompleted", "status": "True"}],
                       "replicatedJobsStatus": [{"name": "pathways-head", "ready": 1}, {"name": "worker", "ready": 4}]}}
    jobsets, workloads = [], []
    for i in range(n):
        js = copy.deepcopy(base)
        js["metadata"]["name"] = js["metadata"]["labels"][naming.WORKLOAD_LABEL] = f"train-{i:05d}"
        jobsets.append(js)
        workloads.append({"apiVersion": naming.KUEUE_API_VERSION, "kind": "Workload",
                          "metadata": {"name": f"jobset-train-{i:05d}-x", "namespace": NS,
                                       "ownerReferences": [{"kind": "JobSet", "name": f"train-{i:05d}",
                                                            "controller": True}]},
                          "spec": {"queueName": naming.LOCAL_QUEUE_NAME, "active": True},
                          "status": {"conditions": [{"type": "QuotaReserved", "status": "True"},
                                                    {"type": "Admitted", "status": "True"}]}})
    return jobsets, workloads


def stuck(jobsets: list[dict], workloads: list[dict]) -> tuple[list[dict], list[dict], list[dict]]:
    """The same JobSets still starting (admitted, head pod in ImagePullBackOff) with one Warning event each: every
    workload needs its pods and events read."""
    out, pods, events = [], [], []
    for js in jobsets:
        js = copy.deepcopy(js)
        name = js["metadata"]["name"]
        js["status"]["conditions"] = [{"type": "StartupPolicyInProgress", "status": "True"}]
        js["status"]["replicatedJobsStatus"] = []
        out.append(js)
        pods.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"{name}-pathways-head-0-0-abcde", "namespace": NS,
                                  "labels": {naming.JOBSET_NAME_KEY: name}},
                     "status": {"phase": "Pending", "containerStatuses": [
                         {"name": "jax-tpu", "state": {"waiting": {"reason": "ImagePullBackOff", "message": "nope"}}}]}})
        events.append({"apiVersion": "v1", "kind": "Event", "type": "Warning", "reason": "BackOff",
                       "metadata": {"name": f"{name}.1", "namespace": NS},
                       "involvedObject": {"kind": "Pod", "name": f"{name}-pathways-head-0-0-abcde", "namespace": NS}})
    return out, pods, events


def cpu(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def indexed(jobsets, workloads):
    by_owner = index_by_owner(workloads)
    return [jobset_status(js, by_owner.get((NS, "JobSet", js["metadata"]["name"]), [])) for js in jobsets]


def pairwise(jobsets, workloads):
    return [jobset_status(js, [w for w in workloads if owned_by(w, "JobSet", js["metadata"]["name"])])
            for js in jobsets]


def end_to_end(jobsets, workloads, others=(), state="Running") -> float:
    from pathways_gke.day2.kube import connect
    from tests.support.kube_api import KubeApi

    with KubeApi() as api, tempfile.TemporaryDirectory() as tmp:
        for o in [*jobsets, *workloads, *others]:
            api.add(o)
        config = api.kubeconfig(Path(tmp) / "kubeconfig", namespace=NS)
        cluster = connect(kubeconfig=config)
        start = time.process_time()
        statuses = cluster.statuses()
        spent = time.process_time() - start
        assert len(statuses) == len(jobsets) and all(s.state == state for s in statuses)
        if state != "Running":
            assert all(s.blocker is not None and s.blocker.reason == "ImagePullBackOff" for s in statuses)
        return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    jobsets, workloads = objects(args.count)
    assert [s.state for s in indexed(jobsets, workloads)] == [s.state for s in pairwise(jobsets[:50], workloads)] + \
        ["Running"] * (args.count - 50)
    rows = [("pure, indexed (now)", cpu(lambda: indexed(jobsets, workloads), args.repeat)),
            ("pure, pairwise (before)", cpu(lambda: pairwise(jobsets, workloads), 1)),
            ("end to end, loopback API", min(end_to_end(jobsets, workloads) for _ in range(args.repeat)))]
    starting, pods, events = stuck(jobsets, workloads)
    rows.append((f"end to end, every JobSet stuck (+{len(pods)} pods, {len(events)} events read for why)",
                 min(end_to_end(starting, workloads, pods + events, "Pending") for _ in range(args.repeat))))
    lines = [f"| {name} | {seconds:.2f} s |" for name, seconds in rows]
    table = "\n".join([f"{args.count} JobSets × {args.count} Kueue Workloads, CPU seconds (best of "
                       f"{args.repeat}; the pairwise row once), Python {platform.python_version()}, "
                       f"{platform.machine()}:", "", "| what | CPU |", "|---|---|", *lines])
    print(table)
    if args.write:
        (ROOT / "bench" / "DAY2_STATUS.md").write_text(
            "# `status` at scale\n\n`python bench/day2_status.py --write` regenerates this file (see its docstring "
            "for what each row measures).\n\n" + table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

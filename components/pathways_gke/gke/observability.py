"""Console links and Cloud Monitoring alert policies, as plain data (docs/at-scale.md).

Links use the stack's plain values (project, location, cluster, namespace, workload names), so the plan
shows them before anything exists. The JobSet page is the one XPK prints after `workload create`
(Kubernetes Engine's page for the JobSet's headless Service, which has the JobSet's name); the logs query
selects the containers of the JobSet's pods by their `jobset.sigs.k8s.io/jobset-name` label.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from ..config.stack import StackConfig
from ..config.workloads import WorkloadConfig
from ..naming import MANAGED_BY_GCE_LABELS

CONSOLE = "https://console.cloud.google.com"
JOBSET_NAME_LOG_LABEL = 'labels."k8s-pod/jobset_sigs_k8s_io/jobset-name"'  # Cloud Logging's form of the pod label
LWS_NAME_LOG_LABEL = 'labels."k8s-pod/leaderworkerset_sigs_k8s_io/name"'  # on every pod of a LeaderWorkerSet


def cluster_link(stack: StackConfig, tab: str = "details") -> str:
    c = stack.cluster
    return f"{CONSOLE}/kubernetes/clusters/details/{c.location}/{c.name}/{tab}?project={stack.project}"


def logs_query(stack: StackConfig, workload: str, label: str = JOBSET_NAME_LOG_LABEL) -> str:
    c = stack.cluster
    return "\n".join([
        'resource.type="k8s_container"',
        f'resource.labels.project_id="{stack.project}"',
        f'resource.labels.location="{c.location}"',
        f'resource.labels.cluster_name="{c.name}"',
        f'resource.labels.namespace_name="{stack.namespace}"',
        f'{label}="{workload}"',
    ])


def logs_link(stack: StackConfig, workload: str, label: str = JOBSET_NAME_LOG_LABEL) -> str:
    query = quote(logs_query(stack, workload, label), safe="")
    return f"{CONSOLE}/logs/query;query={query}?project={stack.project}"


def jobset_link(stack: StackConfig, workload: str) -> str:
    c = stack.cluster
    return (f"{CONSOLE}/kubernetes/service/{c.location}/{c.name}/{stack.namespace}/{workload}/details"
            f"?project={stack.project}")


def console_links(stack: StackConfig) -> dict[str, Any]:
    """Stack output `consoleLinks`: the cluster, its TPU/accelerator dashboards, and per workload its JobSet
    page and logs query. The GKE cluster's Observability tab holds GKE's built-in dashboards, TPU metrics
    included (they are system metrics)."""
    return {
        "cluster": cluster_link(stack),
        "tpuDashboard": cluster_link(stack, "observability"),
        "workloads": {w.name: _workload_links(stack, w) for w in stack.workloads},
    }


def _workload_links(stack: StackConfig, workload: WorkloadConfig) -> dict[str, str]:
    """A JobSet's page and logs; a LeaderWorkerSet's (serving, service) page and logs. Both controllers create a
    headless Service named after the object, whose Kubernetes Engine page is the link."""
    if workload.on_lws:
        return {"leaderWorkerSet": jobset_link(stack, workload.name),
                "logs": logs_link(stack, workload.name, LWS_NAME_LOG_LABEL)}
    return {"jobset": jobset_link(stack, workload.name), "logs": logs_link(stack, workload.name)}


# --- alert policies ---------------------------------------------------------------------------
# PromQL over the JobSet package of GKE's kube state metrics (managed Prometheus;
# https://cloud.google.com/kubernetes-engine/docs/how-to/kube-state-metrics#jobset-metrics): the per replicated
# Job gauges kube_jobset_{specified,ready,succeeded,suspended}_replicas and kube_jobset_status_condition
# (GKE >= 1.32.1-gke.1357001), kube_jobset_restarts (>= 1.32.4-gke.1767000 / 1.33.0-gke.1868000).

# JobSet conditions after which fewer ready replicas are expected, not a fault (jobset api/jobset/v1alpha2 jobset_types.go:
# JobSetCompleted "Completed", JobSetFailed "Failed", JobSetSuspended "Suspended")
SETTLED_CONDITIONS = ("Completed", "Failed", "Suspended")


def stuck_query(stack: StackConfig, workload: str) -> str:
    """Replicated Jobs neither ready nor succeeded, while the JobSet has not completed, failed or been suspended:
    a succeeded Job is no longer ready, and a suspended JobSet has no ready Jobs on purpose."""
    sel = _selector(stack, workload)
    missing = " - ".join(f"sum(kube_jobset_{kind}_replicas{{{sel}}})"
                         for kind in ("specified", "ready", "succeeded", "suspended"))
    settled = f'max(kube_jobset_status_condition{{{sel}, condition=~"{"|".join(SETTLED_CONDITIONS)}"}}) == 1'
    return f"({missing}) > 0 unless on() ({settled})"


def _selector(stack: StackConfig, workload: str) -> str:
    return (f'cluster="{stack.cluster.name}", namespace="{stack.namespace}", jobset_name="{workload}"')


def alert_policy_specs(stack: StackConfig) -> list[tuple[str, dict[str, Any]]]:
    """(child suffix, gcp.monitoring.AlertPolicy args) per workload: stuck without ready workers, restarts."""
    obs = stack.observability
    if not obs.alerts:
        return []
    out = []
    for w in stack.workloads:
        if w.on_lws:
            continue  # the JobSet metrics say nothing about a LeaderWorkerSet
        sel = _selector(stack, w.name)
        common = {
            "project": stack.project,
            "combiner": "OR",
            "notification_channels": list(obs.notification_channels),
            "user_labels": {**MANAGED_BY_GCE_LABELS, "cluster": stack.cluster.name},
        }
        stuck = {
            **common,
            "display_name": f"{stack.cluster.name}/{w.name}: JobSet without ready workers",
            "severity": "ERROR",
            "conditions": [{
                "display_name": f"fewer ready than specified replicas for {obs.stuck_minutes}m",
                "condition_prometheus_query_language": {
                    "query": stuck_query(stack, w.name),
                    "duration": f"{obs.stuck_minutes * 60}s",
                    "evaluation_interval": "60s",
                },
            }],
            "documentation": {"mime_type": "text/markdown", "content": (
                f"JobSet `{w.name}` in `{stack.namespace}` has had fewer ready (or succeeded) replicated Jobs than "
                f"specified for {obs.stuck_minutes} minutes while neither completed, failed nor suspended: slices "
                f"not provisioned, pods pending, or image pulls. Logs: "
                f"{logs_link(stack, w.name)}")},
        }
        restarts = {
            **common,
            "display_name": f"{stack.cluster.name}/{w.name}: JobSet restarted",
            "severity": "WARNING",
            "conditions": [{
                "display_name": "JobSet restarts in the last 10 minutes",
                "condition_prometheus_query_language": {
                    "query": f"sum(increase(kube_jobset_restarts{{{sel}}}[10m])) > 0",
                    "duration": "0s",
                    "evaluation_interval": "60s",
                },
            }],
            "documentation": {"mime_type": "text/markdown", "content": (
                f"JobSet `{w.name}` restarted (a slice or host failed and the whole JobSet was recreated). "
                f"Logs: {logs_link(stack, w.name)}")},
        }
        out += [(f"{w.name}-stuck-alert", stuck), (f"{w.name}-restart-alert", restarts)]
    return out

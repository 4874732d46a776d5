"""Which pod and container `pathways-gke logs` reads first, and the Cloud Logging query for the rest — pure data.

The labels are the ones the controllers stamp on the pods of our objects (names in naming.py):
- JobSet (kubernetes-sigs/jobset api/jobset/v1alpha2/jobset_types.go): `jobset.sigs.k8s.io/jobset-name`,
  `.../replicatedjob-name`, `.../job-index`; the Job controller adds `batch.kubernetes.io/job-completion-index`.
  The head is the JobSet's coordinator pod (`spec.coordinator`: the Pathways head job, or slice 0's first process
  of a JAX JobSet, as render/pathways_jobset.py and jax_jobset.py set it).
- LeaderWorkerSet (kubernetes-sigs/lws api/leaderworkerset/v1/leaderworkerset_types.go):
  `leaderworkerset.sigs.k8s.io/name`, `.../group-index`, `.../worker-index` ("0" on the leader).
- A service-mode client's proxy: our `pathways-gke/client` and `pathways-gke/workload` (serving_lws.py).
The container is the pod's `kubectl.kubernetes.io/default-container` when set (the serving leader's server), else
its first regular container (the user container of a Pathways head, the worker of a slice) — what kubectl reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

from .. import naming
from ..pathways_facts import PROXY_CONTAINER
from ..property_paths import value_at
from .state import JOBSET, LWS

LWS_GROUP_INDEX_KEY = "leaderworkerset.sigs.k8s.io/group-index"
DEFAULT_CONTAINER_ANNOTATION = "kubectl.kubernetes.io/default-container"
COMPLETION_INDEX_LABEL = "batch.kubernetes.io/job-completion-index"
ROLES = ("head", "worker", "leader", "proxy-<client>")


class RoleError(ValueError):
    """A role or slice this workload does not have (bad input: exit 2)."""


@dataclass(frozen=True)
class PodQuery:
    selector: dict[str, str]
    what: str  # for messages: "the head of train", "slice 1's workers of train"
    not_leader: bool = False  # LWS workers: worker-index != 0
    client: Optional[str] = None  # --role proxy-<client>


def default_role(kind: str) -> str:
    return "leader" if kind == LWS else "head"


def pod_query(obj: Mapping[str, Any], kind: str, role: Optional[str], slice_index: Optional[int],
              every_slice: bool = False) -> PodQuery:
    """The label selector of the pods `role` (and `slice_index`) names in this JobSet or LWS; `every_slice`: the
    role's pods in every slice / group (`logs --all-pods` without --slice)."""
    name = str(value_at(obj, "metadata.name"))
    role = role or default_role(kind)
    if role.startswith("proxy-") and len(role) > len("proxy-"):
        client = role[len("proxy-"):]
        if kind == JOBSET:  # client proxies belong to mode service (a LeaderWorkerSet) only
            raise RoleError(f"--role {role}: {name} is a JobSet, which has no client proxies; roles: head, worker")
        leader = value_at(obj, "spec.leaderWorkerTemplate.leaderTemplate.spec.containers") or []
        if any(isinstance(c, Mapping) and c.get("name") == PROXY_CONTAINER for c in leader):
            raise RoleError(f"--role {role}: {name} is a serving workload: its proxy runs in the leader pod and it has "
                            "no client proxies (those are mode service's); roles: leader, worker")
        return PodQuery({naming.WORKLOAD_LABEL: name, naming.CLIENT_LABEL: client}, f"client {client}'s proxy of {name}",
                        client=client)
    if kind == JOBSET:
        coordinator = value_at(obj, "spec.coordinator") or {}
        rjobs = {str(r.get("name")): int(r.get("replicas", 1)) for r in value_at(obj, "spec.replicatedJobs") or []}
        head_job = str(coordinator.get("replicatedJob") or next(iter(rjobs), ""))
        if role == "head":
            if slice_index is not None:
                raise RoleError("--slice goes with --role worker (the head is one pod)")
            return PodQuery({naming.JOBSET_NAME_KEY: name, naming.REPLICATED_JOB_NAME_KEY: head_job,
                             naming.JOB_INDEX_KEY: str(coordinator.get("jobIndex", 0))}, f"the head of {name}")
        if role == "worker":
            workers = [r for r in rjobs if r != head_job] or [head_job]
            job = workers[0]
            index = slice_index or 0
            if not 0 <= index < rjobs.get(job, 1):
                raise RoleError(f"--slice {index}: {name} has {rjobs.get(job, 1)} slice(s) (0..{rjobs.get(job, 1) - 1})")
            if every_slice:
                return PodQuery({naming.JOBSET_NAME_KEY: name, naming.REPLICATED_JOB_NAME_KEY: job},
                                f"every slice's workers of {name}")
            return PodQuery({naming.JOBSET_NAME_KEY: name, naming.REPLICATED_JOB_NAME_KEY: job,
                             naming.JOB_INDEX_KEY: str(index)}, f"slice {index}'s workers of {name}")
        raise RoleError(f"--role {role}: a JobSet has the roles head, worker and proxy-<client> (service mode)")
    group = slice_index or 0
    replicas = value_at(obj, "spec.replicas")
    replicas = 1 if replicas is None else int(replicas)
    if not 0 <= group < max(replicas, 1):
        raise RoleError(f"--slice {group}: {name} has {replicas} group(s) of replicas (0..{replicas - 1})")
    selector = {naming.LWS_NAME_KEY: name, LWS_GROUP_INDEX_KEY: str(group)}
    if role in ("leader", "head"):
        return PodQuery({**selector, naming.LWS_WORKER_INDEX_KEY: "0"}, f"group {group}'s leader of {name}")
    if role == "worker":
        if every_slice:
            return PodQuery({naming.LWS_NAME_KEY: name}, f"every group's workers of {name}", not_leader=True)
        return PodQuery(selector, f"group {group}'s workers of {name}", not_leader=True)
    raise RoleError(f"--role {role}: a LeaderWorkerSet has the roles leader, worker and proxy-<client>")


def _index(pod: Mapping[str, Any]) -> tuple[int, str]:
    labels = value_at(pod, "metadata.labels") or {}
    annotations = value_at(pod, "metadata.annotations") or {}
    raw = labels.get(COMPLETION_INDEX_LABEL) or annotations.get(naming.COMPLETION_INDEX_ANNOTATION) \
        or labels.get(naming.LWS_WORKER_INDEX_KEY) or "0"
    return (int(raw) if str(raw).isdigit() else 0, str(value_at(pod, "metadata.name")))


_PHASE_ORDER = {"Running": 0, "Pending": 1, "Failed": 2, "Succeeded": 3}


def choose_pod(pods: Sequence[Mapping[str, Any]], query: PodQuery) -> Optional[Mapping[str, Any]]:
    """The first pod to read: the lowest index (process 0 of a slice), a running one before an older one."""
    candidates = [p for p in pods if not query.not_leader
                  or (value_at(p, "metadata.labels") or {}).get(naming.LWS_WORKER_INDEX_KEY) != "0"]
    if not candidates:
        return None
    return min(candidates, key=lambda p: (_index(p)[0], _PHASE_ORDER.get(str(value_at(p, "status.phase")), 4),
                                          _index(p)[1]))


def pods_in_order(pods: Sequence[Mapping[str, Any]], query: PodQuery) -> list[Mapping[str, Any]]:
    """Every pod the query names (`logs --all-pods`), by slice / group, then process index, then name."""
    candidates = [p for p in pods if not query.not_leader
                  or (value_at(p, "metadata.labels") or {}).get(naming.LWS_WORKER_INDEX_KEY) != "0"]

    def key(p: Mapping[str, Any]) -> tuple[int, int, str]:
        labels = value_at(p, "metadata.labels") or {}
        group = labels.get(naming.JOB_INDEX_KEY) or labels.get(LWS_GROUP_INDEX_KEY) or "0"
        return (int(group) if str(group).isdigit() else 0, _index(p)[0], _index(p)[1])

    return sorted(candidates, key=key)


def choose_container(pod: Mapping[str, Any], wanted: Optional[str] = None) -> str:
    containers = [str(c.get("name")) for c in value_at(pod, "spec.containers") or []]
    init = [str(c.get("name")) for c in value_at(pod, "spec.initContainers") or []]
    if wanted:
        if wanted not in containers + init:
            raise RoleError(f"--container {wanted}: pod {value_at(pod, 'metadata.name')} has "
                            f"{', '.join(containers + init)}")
        return wanted
    default = (value_at(pod, "metadata.annotations") or {}).get(DEFAULT_CONTAINER_ANNOTATION)
    return default if default in containers else containers[0]


def logging_query(workload: str, namespace: str, cluster: Optional[str] = None, location: Optional[str] = None,
                  project: Optional[str] = None) -> str:
    """A Cloud Logging query for every container of a workload (resource labels of `k8s_container`,
    https://cloud.google.com/logging/docs/api/v2/resource-list). Our pod names all start with `<workload>-`
    (JobSet `<js>-<job>-<i>-<p>-<x>`, LWS `<lws>-<g>[-<w>]`, proxies `<w>-proxy-<client>-...`), so the pod-name
    prefix selects them; another workload whose name starts with `<workload>-` would match too."""
    lines = ['resource.type="k8s_container"']
    if project:
        lines.append(f'resource.labels.project_id="{project}"')
    if location:
        lines.append(f'resource.labels.location="{location}"')
    if cluster:
        lines.append(f'resource.labels.cluster_name="{cluster}"')
    lines.append(f'resource.labels.namespace_name="{namespace}"')
    lines.append(f'resource.labels.pod_name=~"^{workload}-"')
    return "\n".join(lines)


LOGS_EXPLORER = "https://console.cloud.google.com/logs/query"


def logs_explorer_url(query: str, project: Optional[str], since: Optional[float] = None) -> Optional[str]:
    """A clickable Logs Explorer link for the query (its documented URL form:
    https://cloud.google.com/logging/docs/view/building-queries#query-url — `query=` URL-encoded, the time range
    as `;duration=PT…`, the project as `?project=`); None without a project (no --stack)."""
    from urllib.parse import quote

    if not project:
        return None
    duration = f";duration=PT{max(1, int(since))}S" if since else ""
    return f"{LOGS_EXPLORER};query={quote(query, safe='')}{duration}?project={quote(project, safe='')}"


_GKE_CONTEXT = re.compile(r"^gke_([a-z][a-z0-9-]{4,28}[a-z0-9])_([a-z0-9-]+)_([a-z0-9-]+)$")


def gke_context(context: str) -> Optional[dict[str, str]]:
    """project, location and cluster from a kubeconfig context named `gke_<project>_<location>_<cluster>`: the name
    `gcloud container clusters get-credentials` writes, and the stack's own kubeconfig output (cluster.py). Project
    IDs, locations and cluster names hold no underscore, so the split is unambiguous."""
    match = _GKE_CONTEXT.match(context or "")
    if match is None:
        return None
    return {"project": match.group(1), "location": match.group(2), "cluster": match.group(3)}

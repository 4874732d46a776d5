"""The thin shell over the official Kubernetes Python client (`pip install 'pathways-gke[day2]'`).

It lists and reads objects and hands plain dicts to the pure `state` / `pods` functions; every failure becomes a
`Day2Error` with a clear message (exit 2), never a traceback, and never a kubeconfig credential.
REST paths: JobSet `/apis/jobset.x-k8s.io/v1alpha2`, LWS `/apis/leaderworkerset.x-k8s.io/v1`, Kueue Workloads
`/apis/kueue.x-k8s.io/v1beta2` (v1beta1 on older Kueue), pods and their logs `/api/v1`.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Sequence

import yaml

from .. import naming
from ..errors import without_credentials
from .state import (JOBSET, LWS, Endpoint, QueuePosition, WorkloadStatus, index_by_owner, jobset_status,
                    lws_status)

JOBSET_GROUP, JOBSET_VERSION = naming.JOBSET_API_VERSION.split("/")
LWS_GROUP, LWS_VERSION = naming.LWS_API_VERSION.split("/")
KUEUE_GROUP = naming.KUEUE_API_VERSION.split("/")[0]
KUEUE_VERSIONS = (naming.KUEUE_API_VERSION.split("/")[1], "v1beta1")
VISIBILITY_GROUP = "visibility.kueue.x-k8s.io"  # Kueue's visibility API (pendingworkloads of a LocalQueue)
PLURALS = {JOBSET: (JOBSET_GROUP, JOBSET_VERSION, "jobsets"), LWS: (LWS_GROUP, LWS_VERSION, "leaderworkersets")}
REQUEST_TIMEOUT = 30.0  # seconds per API call
RETRIED_STATUSES = (429, 500, 502, 503, 504)  # overloaded or restarting: worth another try
DEFAULT_RETRY_BUDGET = 60.0  # seconds of retries for a command without --timeout
FIELD_MANAGER = "pathways-gke"  # who `suspend` / `resume` are in managedFields


class Day2Error(Exception):
    """Bad input or an unusable cluster: printed as `error: <message>`, exit `code` (2 unless said)."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(without_credentials(message))  # a kubeconfig URL's password is never shown
        self.code = code


def _client() -> Any:
    try:
        import kubernetes
    except ImportError:  # pragma: no cover - the dev extra installs it
        raise Day2Error("this command needs the Kubernetes client: pip install 'pathways-gke[day2]'") from None
    return kubernetes


def _transient_transport(exc: BaseException) -> bool:
    """A connection reset or a response cut short (an API server restarting), not a server nobody runs."""
    import urllib3

    if isinstance(exc, (ConnectionResetError, BrokenPipeError)):
        return True
    if isinstance(exc, urllib3.exceptions.ProtocolError):
        return True
    reason = getattr(exc, "reason", None)
    return isinstance(exc, urllib3.exceptions.MaxRetryError) and isinstance(reason, urllib3.exceptions.ProtocolError)


@dataclass
class Cluster:
    api: Any  # kubernetes.client.ApiClient
    namespace: str
    server: str
    all_namespaces: bool = False
    deadline: Optional[float] = None  # time.monotonic() after which transient errors are no longer retried
    backoff: float = 0.25  # first pause between tries; doubles up to max_backoff
    max_backoff: float = 8.0
    retried: list[str] = field(default_factory=list)  # what was retried (for messages and tests)
    kueue_version: str = KUEUE_VERSIONS[0]  # the Kueue API version the cluster answered
    context: str = ""  # the kubeconfig context used (`gke_<project>_<location>_<cluster>` for GKE's and ours)

    # --- errors ---------------------------------------------------------------------------------------------

    def _call(self, what: str, fn: Any, *args: Any, missing_ok: bool = False, retry: bool = True,
              **kwargs: Any) -> Any:
        """One API call; 429, 5xx and a reset connection are retried with back-off until the deadline (the
        command's --timeout, else DEFAULT_RETRY_BUDGET from the first failure), unless `retry` is off."""
        k8s = _client()
        import urllib3

        pause, deadline = self.backoff, self.deadline
        while True:
            try:
                return fn(*args, _request_timeout=REQUEST_TIMEOUT, **kwargs)
            except k8s.client.ApiException as exc:
                if exc.status == 404 and missing_ok:
                    return None
                if exc.status not in RETRIED_STATUSES or not retry:
                    raise Day2Error(f"{what}: {_api_message(exc)}") from None
                failure = f"{what}: {_api_message(exc)}"
                wait = _retry_after(exc, pause)
            except (urllib3.exceptions.HTTPError, OSError) as exc:
                if not _transient_transport(exc) or not retry:
                    raise Day2Error(f"cannot reach the Kubernetes API server at {without_credentials(self.server)} "
                                    f"({type(exc).__name__}); check the kubeconfig, --context and that the cluster "
                                    "is up") from None
                failure, wait = f"{what}: the connection to {without_credentials(self.server)} was reset", pause
            if deadline is None:
                deadline = time.monotonic() + DEFAULT_RETRY_BUDGET
            left = deadline - time.monotonic()
            self.retried.append(failure)
            if left <= 0:
                raise Day2Error(f"{failure} (still failing after {len(self.retried)} tries with back-off)")
            time.sleep(min(wait, left))
            pause = min(pause * 2, self.max_backoff)

    # --- reads ----------------------------------------------------------------------------------------------

    def _custom(self) -> Any:
        return _client().client.CustomObjectsApi(self.api)

    def _core(self) -> Any:
        return _client().client.CoreV1Api(self.api)

    @property
    def where(self) -> str:
        return "all namespaces" if self.all_namespaces else f"namespace {self.namespace}"

    def _list_custom(self, group: str, version: str, plural: str, selector: str = "") -> Optional[list[Any]]:
        """The items, or None when the API server does not serve that group/version (404: the CRD is absent)."""
        kwargs: dict[str, Any] = {"label_selector": selector} if selector else {}
        if self.all_namespaces:
            out = self._call(f"listing {plural} in all namespaces", self._custom().list_cluster_custom_object,
                             group, version, plural, missing_ok=True, **kwargs)
        else:
            out = self._call(f"listing {plural} in namespace {self.namespace}",
                             self._custom().list_namespaced_custom_object, group, version, self.namespace, plural,
                             missing_ok=True, **kwargs)
        return None if out is None else list(out.get("items") or [])

    def list_kind(self, kind: str, selector: str) -> Optional[list[dict[str, Any]]]:
        return self._list_custom(*PLURALS[kind], selector=selector)

    def workloads(self, names: Sequence[str] = ()) -> list[tuple[str, dict[str, Any]]]:
        """Our JobSets and LWSs (labelled `pathways-gke/workload`), sorted by namespace and name; `names` must all
        exist. Neither API served (the wrong cluster) and another tool's object of that name are said as such."""
        found: list[tuple[str, dict[str, Any]]] = []
        served = []
        for kind in (JOBSET, LWS):
            items = self.list_kind(kind, naming.WORKLOAD_LABEL)
            if items is not None:
                served.append(kind)
                found += [(kind, obj) for obj in items]
        if not served:
            raise Day2Error(f"the cluster at {self.server} serves neither the JobSet API ({naming.JOBSET_API_VERSION}) "
                            f"nor the LeaderWorkerSet API ({naming.LWS_API_VERSION}): is this the right cluster and "
                            "--context? (the stack installs JobSet with the cluster)")
        found.sort(key=lambda ko: (str(ko[1].get("metadata", {}).get("namespace")),
                                   str(ko[1].get("metadata", {}).get("name")), ko[0]))
        if names:
            have = {str(o.get("metadata", {}).get("name")) for _, o in found}
            missing = [n for n in names if n not in have]
            for name in missing:
                self._not_ours(name, served)
            if missing:
                api = "" if JOBSET in served else (f"; this cluster does not serve the JobSet API "
                                                   f"({naming.JOBSET_API_VERSION})")
                raise Day2Error(f"no workload {', '.join(missing)} in {self.where} (workloads there: "
                                f"{', '.join(sorted(have)) or 'none'}{api}; is --namespace right?)")
            found = [(k, o) for k, o in found if o.get("metadata", {}).get("name") in names]
        return found

    def _not_ours(self, name: str, served: Sequence[str]) -> None:
        """A JobSet / LWS of that name without our label is another tool's: say so (it exists; the namespace is
        right)."""
        if self.all_namespaces:
            return
        for kind in served:
            group, version, plural = PLURALS[kind]
            obj = self._call(f"reading {kind} {name}", self._custom().get_namespaced_custom_object, group, version,
                             self.namespace, plural, name, missing_ok=True)
            if obj is not None:
                manager = next((m.get("manager") for m in (obj.get("metadata") or {}).get("managedFields") or []
                                if isinstance(m, Mapping) and m.get("operation") in ("Apply", "Update")), None)
                raise Day2Error(f"{kind} {name} in namespace {self.namespace} was not made by pathways-gke (it has no "
                                f"{naming.WORKLOAD_LABEL} label" + (f"; written by {manager}" if manager else "") +
                                "); pathways-gke reads and changes only its own workloads — use the tool that made it")

    def kueue_workloads(self) -> list[dict[str, Any]]:
        for version in KUEUE_VERSIONS:
            items = self._list_custom(KUEUE_GROUP, version, "workloads")
            if items is not None:
                self.kueue_version = version
                return items
        return []  # Kueue is not installed

    def statuses(self, names: Sequence[str] = (), details: bool = True) -> list[WorkloadStatus]:
        """Every workload's state (linear: the Kueue Workloads are indexed by owner once), and for those not
        Running the first blocking reason from pods, events and Kueue (one list of each per call)."""
        found = self.workloads(names)
        by_owner = index_by_owner(self.kueue_workloads()) if found else {}
        out = []
        for kind, obj in found:
            meta = obj["metadata"]
            mine = by_owner.get((str(meta.get("namespace") or ""), kind, str(meta["name"])), [])
            out.append(jobset_status(obj, mine) if kind == JOBSET else lws_status(obj, mine))
        if details and out:
            out = self._with_details(out, found)
        return out

    def _with_details(self, statuses: list[WorkloadStatus],
                      found: list[tuple[str, dict[str, Any]]]) -> list[WorkloadStatus]:
        from .blockers import first_blocker, pods_by_workload, queue_positions, warnings_by_object
        from .state import RUNNING, TERMINAL

        stuck = [s for s in statuses if s.state != RUNNING and s.state not in TERMINAL]
        pods: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
        events: dict[tuple[str, str, str], list[Mapping[str, Any]]] = {}
        positions: dict[tuple[str, str], QueuePosition] = {}
        if stuck:
            pods = pods_by_workload(self.list_pods(naming.JOBSET_NAME_KEY) + self.list_pods(naming.LWS_NAME_KEY))
            events = warnings_by_object(self.list_events())
            queues = {(s.namespace, a.local_queue) for s in stuck for a in s.admission
                      if a.state == "Pending" and a.local_queue}
            for namespace, queue in sorted(queues):
                positions.update(queue_positions(namespace, queue, self.pending_workloads(namespace, queue)))
        services = self.serving_endpoints() if any(k == LWS for k, _ in found) else {}
        stuck_ids = {id(s) for s in stuck}
        out = []
        for s, (_, obj) in zip(statuses, found):
            blocker = first_blocker(s, obj, pods, events) if id(s) in stuck_ids else None
            position = next((positions[(s.namespace, a.workload)] for a in s.admission
                             if (s.namespace, a.workload) in positions), None)
            out.append(s.with_details(blocker, position, services.get((s.namespace, s.name))))
        return out

    def _list_json(self, what: str, namespaced: Any, cluster_wide: Any, **kwargs: Any) -> list[dict[str, Any]]:
        if self.all_namespaces:
            response = self._call(f"{what} in all namespaces", cluster_wide, _preload_content=False, **kwargs)
        else:
            response = self._call(f"{what} in namespace {self.namespace}", namespaced, self.namespace,
                                  _preload_content=False, **kwargs)
        return list(json.loads(response.data).get("items") or [])

    def list_pods(self, selector: str) -> list[dict[str, Any]]:
        core = self._core()
        return self._list_json(f"listing pods ({selector})", core.list_namespaced_pod,
                               core.list_pod_for_all_namespaces, label_selector=selector)

    def list_events(self) -> list[dict[str, Any]]:
        core = self._core()
        return self._list_json("listing warning events", core.list_namespaced_event,
                               core.list_event_for_all_namespaces, field_selector="type=Warning")

    def pending_workloads(self, namespace: str, local_queue: str) -> list[dict[str, Any]]:
        """Kueue's visibility API for a LocalQueue: its pending Workloads with their positions; [] where it is not
        served (older Kueue, the feature off) or forbidden — the position is a nicety, never an error."""
        for version in KUEUE_VERSIONS:
            path = f"/apis/{VISIBILITY_GROUP}/{version}/namespaces/{namespace}/localqueues/{local_queue}/pendingworkloads"
            try:
                # an aggregated API that is down answers 503: no retries for a nicety
                data = self._call(f"reading the pending workloads of LocalQueue {local_queue}", self._get_path, path,
                                  missing_ok=True, retry=False)
            except Day2Error:
                return []
            if data is not None:
                return list(data.get("items") or []) if isinstance(data, Mapping) else []
        return []

    def _get_path(self, path: str, _request_timeout: float = REQUEST_TIMEOUT) -> Any:
        """GET an API path the typed clients have no method for (an aggregated API's subresource), as JSON."""
        params = self.api.param_serialize(method="GET", resource_path=path, auth_settings=["BearerToken"],
                                          header_params={"Accept": "application/json"})
        response = self.api.call_api(*params, _request_timeout=_request_timeout)
        response.read()
        if 200 <= response.status < 300:  # decoded here: the client's deserializer imports every model (~2 s)
            return json.loads(response.data or b"null")
        return self.api.response_deserialize(response_data=response, response_types_map={"200": "object"}).data

    def serving_endpoints(self) -> dict[tuple[str, str], Endpoint]:
        """(namespace, workload) -> its Service (type, port, and a load balancer's address once assigned)."""
        core = self._core()
        items = self._list_json("listing Services", core.list_namespaced_service,
                                core.list_service_for_all_namespaces, label_selector=naming.WORKLOAD_LABEL)
        from .blockers import endpoint_of

        out = {}
        for svc in items:
            endpoint = endpoint_of(svc)
            if endpoint is not None and naming.CLIENT_LABEL not in ((svc.get("metadata") or {}).get("labels") or {}):
                meta = svc.get("metadata") or {}
                out[(str(meta.get("namespace") or ""), str((meta.get("labels") or {}).get(naming.WORKLOAD_LABEL)))] \
                    = endpoint
        return out

    def pods(self, selector: Mapping[str, str]) -> list[dict[str, Any]]:
        text = ",".join(f"{k}={v}" for k, v in selector.items())
        return self.list_pods(text)

    def log_lines(self, pod: str, container: str, follow: bool, tail: Optional[int], previous: bool = False,
                  since: Optional[float] = None, namespace: Optional[str] = None) -> Iterator[bytes]:
        core = self._core()
        kwargs: dict[str, Any] = {"container": container, "follow": follow, "_preload_content": False}
        if tail is not None:
            kwargs["tail_lines"] = tail
        if previous:
            kwargs["previous"] = True
        if since is not None:
            kwargs["since_seconds"] = max(1, int(since))
        k8s = _client()
        try:
            response = core.read_namespaced_pod_log(pod, namespace or self.namespace, **kwargs)
        except k8s.client.ApiException as exc:
            # 400: the container has not started yet (or was never created, or has no previous instance)
            raise Day2Error(f"reading the {'previous ' if previous else ''}log of {pod}/{container}: "
                            f"{_api_message(exc)}", code=1 if exc.status == 400 else 2) from None
        try:
            yield from response.stream(4096)
        finally:
            response.release_conn()

    # --- writes (suspend / resume) ----------------------------------------------------------------------------

    def patch(self, kind: str, name: str, body: Mapping[str, Any], namespace: Optional[str] = None) -> Any:
        """A JSON merge patch (RFC 7386) of a JobSet, LWS or Kueue Workload, as field manager `pathways-gke`."""
        if kind == "Workload":
            group, version, plural = KUEUE_GROUP, self.kueue_version, "workloads"
        else:
            group, version, plural = PLURALS[kind]
        return self._call(f"patching {kind} {name}", self._custom().patch_namespaced_custom_object, group, version,
                          namespace or self.namespace, plural, name, dict(body), field_manager=FIELD_MANAGER,
                          _content_type="application/merge-patch+json")


def _retry_after(exc: Any, default: float) -> float:
    """A 429's Retry-After (seconds), else the back-off."""
    try:
        value = (exc.headers or {}).get("Retry-After")
        return max(default, float(value)) if value else default
    except (TypeError, ValueError, AttributeError):
        return default


def _api_message(exc: Any) -> str:
    """`403 Forbidden: jobsets.jobset.x-k8s.io is forbidden: ...` from the Status object the server sent."""
    message = ""
    try:
        message = json.loads(exc.body or "{}").get("message", "")
    except (ValueError, AttributeError):
        pass
    hint = {401: " (the kubeconfig's credentials were refused)",
            403: " (the caller lacks the RBAC permission)"}.get(exc.status, "")
    return f"{exc.status} {exc.reason}{': ' + message if message else ''}{hint}"


# --- the kubeconfig ------------------------------------------------------------------------------------------


def stack_kubeconfig(stack: str, project_dir: Path) -> dict[str, Any]:
    """The stack's `kubeconfig` output, read with the Pulumi CLI (the only place it lives)."""
    pulumi = shutil.which("pulumi")
    if pulumi is None:
        raise Day2Error(f"--stack {stack}: the Pulumi CLI is not on PATH, and the kubeconfig is the stack's "
                        "`kubeconfig` output; install it, or pass --kubeconfig FILE (e.g. from "
                        "`gcloud container clusters get-credentials`)")
    result = subprocess.run([pulumi, "stack", "output", "kubeconfig", "--show-secrets", "-s", stack],
                            cwd=project_dir, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        last = (result.stderr.strip().splitlines() or ["no output"])[-1]
        raise Day2Error(f"--stack {stack}: `pulumi stack output kubeconfig` failed: {last}")
    return _parse_kubeconfig(result.stdout, f"the kubeconfig output of stack {stack}")


def _parse_kubeconfig(text: str, where: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
        if isinstance(data, str):  # a JSON-encoded string output
            data = yaml.safe_load(data)
    except yaml.YAMLError:
        data = None
    if not isinstance(data, dict) or not data.get("clusters"):
        raise Day2Error(f"{where} is not a kubeconfig (no clusters); contents not shown")
    return data


def connect(kubeconfig: Optional[Path] = None, context: Optional[str] = None, namespace: Optional[str] = None,
            stack: Optional[str] = None, project_dir: Path = Path("."), default_namespace: str = "default",
            all_namespaces: bool = False, deadline: Optional[float] = None) -> Cluster:
    """A client for `--kubeconfig` / `$KUBECONFIG` / `~/.kube/config`, or the stack's kubeconfig output."""
    k8s = _client()
    if stack is not None:
        data = stack_kubeconfig(stack, project_dir)
        where = f"the kubeconfig of stack {stack}"
    else:
        path = kubeconfig or Path(os.environ.get("KUBECONFIG", "~/.kube/config").split(os.pathsep)[0]).expanduser()
        where = f"kubeconfig {path}"
        if not path.is_file():
            raise Day2Error(f"{where}: no such file (pass --kubeconfig FILE or --stack STACK)")
        data = _parse_kubeconfig(path.read_text(), where)
    contexts = {c.get("name"): c.get("context") or {} for c in data.get("contexts") or [] if isinstance(c, dict)}
    chosen = context or data.get("current-context")
    if chosen not in contexts:
        raise Day2Error(f"{where}: no context {chosen!r} (contexts: {', '.join(sorted(map(str, contexts))) or 'none'})")
    configuration = k8s.client.Configuration()
    try:
        k8s.config.load_kube_config_from_dict(data, context=chosen, client_configuration=configuration,
                                              persist_config=False)
    except (k8s.config.ConfigException, ValueError, TypeError, KeyError) as exc:
        raise Day2Error(f"{where}: unusable context {chosen!r} ({type(exc).__name__}); contents not shown") from None
    configuration.retries = 0  # an unreachable server is reported at once, not after urllib3's three retries
    logging.getLogger("urllib3").setLevel(logging.ERROR)  # no retry warnings between our own messages
    api = k8s.client.ApiClient(configuration)
    ns = namespace or contexts[chosen].get("namespace") or default_namespace
    return Cluster(api=api, namespace=ns, server=str(api.configuration.host), all_namespaces=all_namespaces,
                   deadline=deadline, context=str(chosen))

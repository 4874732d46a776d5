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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Sequence

import yaml

from .. import naming
from ..errors import without_credentials
from .state import JOBSET, LWS, WorkloadStatus, jobset_status, lws_status, owned_by

JOBSET_GROUP, JOBSET_VERSION = naming.JOBSET_API_VERSION.split("/")
LWS_GROUP, LWS_VERSION = naming.LWS_API_VERSION.split("/")
KUEUE_GROUP = naming.KUEUE_API_VERSION.split("/")[0]
KUEUE_VERSIONS = (naming.KUEUE_API_VERSION.split("/")[1], "v1beta1")
PLURALS = {JOBSET: (JOBSET_GROUP, JOBSET_VERSION, "jobsets"), LWS: (LWS_GROUP, LWS_VERSION, "leaderworkersets")}
REQUEST_TIMEOUT = 30.0  # seconds per API call


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


@dataclass
class Cluster:
    api: Any  # kubernetes.client.ApiClient
    namespace: str
    server: str

    # --- errors ---------------------------------------------------------------------------------------------

    def _call(self, what: str, fn: Any, *args: Any, missing_ok: bool = False, **kwargs: Any) -> Any:
        k8s = _client()
        import urllib3

        try:
            return fn(*args, _request_timeout=REQUEST_TIMEOUT, **kwargs)
        except k8s.client.ApiException as exc:
            if exc.status == 404 and missing_ok:
                return None
            raise Day2Error(f"{what}: {_api_message(exc)}") from None
        except (urllib3.exceptions.HTTPError, OSError) as exc:
            raise Day2Error(f"cannot reach the Kubernetes API server at {without_credentials(self.server)} ({type(exc).__name__}); "
                            "check the kubeconfig, --context and that the cluster is up") from None

    # --- reads ----------------------------------------------------------------------------------------------

    def _custom(self) -> Any:
        return _client().client.CustomObjectsApi(self.api)

    def list_kind(self, kind: str, selector: str) -> list[dict[str, Any]]:
        group, version, plural = PLURALS[kind]
        out = self._call(f"listing {plural} in namespace {self.namespace}", self._custom().list_namespaced_custom_object,
                         group, version, self.namespace, plural, label_selector=selector, missing_ok=True)
        return list((out or {}).get("items") or [])  # 404: the CRD is not installed, so there are none

    def workloads(self, names: Sequence[str] = ()) -> list[tuple[str, dict[str, Any]]]:
        """Our JobSets and LWSs (labelled `pathways-gke/workload`), sorted by name; `names` must all exist."""
        found: list[tuple[str, dict[str, Any]]] = []
        for kind in (JOBSET, LWS):
            found += [(kind, obj) for obj in self.list_kind(kind, naming.WORKLOAD_LABEL)]
        found.sort(key=lambda ko: (str(ko[1].get("metadata", {}).get("name")), ko[0]))
        if names:
            have = {str(o.get("metadata", {}).get("name")) for _, o in found}
            missing = [n for n in names if n not in have]
            if missing:
                raise Day2Error(f"no workload {', '.join(missing)} in namespace {self.namespace} (workloads there: "
                                f"{', '.join(sorted(have)) or 'none'}; is --namespace right?)")
            found = [(k, o) for k, o in found if o.get("metadata", {}).get("name") in names]
        return found

    def kueue_workloads(self) -> list[dict[str, Any]]:
        for version in KUEUE_VERSIONS:
            out = self._call(f"listing Kueue workloads in namespace {self.namespace}",
                             self._custom().list_namespaced_custom_object, KUEUE_GROUP, version, self.namespace,
                             "workloads", missing_ok=True)
            if out is not None:
                return list(out.get("items") or [])
        return []  # Kueue is not installed

    def statuses(self, names: Sequence[str] = ()) -> list[WorkloadStatus]:
        found = self.workloads(names)
        kueue = self.kueue_workloads() if found else []
        out = []
        for kind, obj in found:
            mine = [w for w in kueue if owned_by(w, kind, str(obj["metadata"]["name"]))]
            out.append(jobset_status(obj, mine) if kind == JOBSET else lws_status(obj, mine))
        return out

    def pods(self, selector: Mapping[str, str]) -> list[dict[str, Any]]:
        core = _client().client.CoreV1Api(self.api)
        text = ",".join(f"{k}={v}" for k, v in selector.items())
        response = self._call(f"listing pods ({text})", core.list_namespaced_pod, self.namespace,
                              label_selector=text, _preload_content=False)
        return list(json.loads(response.data).get("items") or [])

    def log_lines(self, pod: str, container: str, follow: bool, tail: Optional[int]) -> Iterator[bytes]:
        core = _client().client.CoreV1Api(self.api)
        kwargs: dict[str, Any] = {"container": container, "follow": follow, "_preload_content": False}
        if tail is not None:
            kwargs["tail_lines"] = tail
        k8s = _client()
        try:
            response = core.read_namespaced_pod_log(pod, self.namespace, **kwargs)
        except k8s.client.ApiException as exc:
            # 400: the container has not started yet (or was never created): not yet, rather than bad input
            raise Day2Error(f"reading the log of {pod}/{container}: {_api_message(exc)}",
                            code=1 if exc.status == 400 else 2) from None
        try:
            yield from response.stream(4096)
        finally:
            response.release_conn()


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
            stack: Optional[str] = None, project_dir: Path = Path("."), default_namespace: str = "default") -> Cluster:
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
    return Cluster(api=api, namespace=ns, server=str(api.configuration.host))

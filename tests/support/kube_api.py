"""A Kubernetes API server on the loopback address, answering the real REST paths the day-2 commands call.

It serves what a test puts in it, in the shapes the upstream types define (JobSet, LeaderWorkerSet, Kueue
Workload, Pod, Event, Service): list (namespaced, or across namespaces at `/apis/G/V/PLURAL`; `labelSelector`
equality terms and bare keys, `fieldSelector` equality terms on top-level fields such as `type`) and get of
namespaced objects, a pod's log (`previous=true` reads `previous_logs`), and JSON merge patches (RFC 7386) of an
object, applied to its latest version and recorded with their field manager. An API group nobody registered
answers 404 with a `Status` object, like a cluster without that CRD; `fail` makes a path answer an error; `flaky`
makes a path answer given error codes first (a 503, then the real answer); `route` serves a fixed body at a path
(an aggregated API such as Kueue's visibility API); `add(obj, *later)` serves successive versions of an object,
one per read (a workload that moves on while `wait` polls). Every request is recorded, and a bearer token is
required.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Optional
from urllib.parse import parse_qs, urlparse

import yaml

TOKEN = "t0ken-that-must-never-be-printed"


def _status(code: int, reason: str, message: str) -> dict[str, Any]:
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}


def _selects(selector: str, labels: dict[str, str]) -> bool:
    for term in filter(None, selector.split(",")):
        if "!=" in term:
            key, value = term.split("!=", 1)
            if labels.get(key) == value:
                return False
        elif "=" in term:
            key, value = term.split("=", 1)
            if labels.get(key) != value.lstrip("="):
                return False
        elif term not in labels:
            return False
    return True


class KubeApi:
    def __init__(self) -> None:
        # (group/version or "v1", plural) -> namespace -> list of sequences (each a list of object versions)
        self.objects: dict[tuple[str, str], dict[str, list[list[dict[str, Any]]]]] = defaultdict(lambda: defaultdict(list))
        self.groups: set[str] = {"v1"}
        self.logs: dict[tuple[str, str], str] = {}
        self.previous_logs: dict[tuple[str, str], str] = {}
        self.failures: dict[str, tuple[int, str]] = {}
        self.flaky_paths: dict[str, list[int]] = {}
        self.resets: dict[str, int] = {}  # path prefix -> requests to drop without an answer
        self.routes: dict[str, Any] = {}
        self.patches: list[tuple[str, str, dict[str, Any], str]] = []  # (path, content type, body, field manager)
        self.requests: list[str] = []
        self.reads: dict[str, int] = defaultdict(int)
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                api.requests.append(self.path)
                if any(self.path.startswith(prefix) and n for prefix, n in api.resets.items()):
                    prefix = next(p for p, n in api.resets.items() if self.path.startswith(p) and n)
                    api.resets[prefix] -= 1
                    self.close_connection = True  # no answer at all: the client sees the connection reset
                    self.connection.shutdown(2)
                    return None
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    return self._send(401, _status(401, "Unauthorized", "Unauthorized"))
                code, body = api.answer(self.path)
                if isinstance(body, str):
                    data = body.encode()
                    self.send_response(code)
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return None
                return self._send(code, body)

            def do_PATCH(self) -> None:  # noqa: N802
                api.requests.append(f"PATCH {self.path}")
                if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                    return self._send(401, _status(401, "Unauthorized", "Unauthorized"))
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                code, answer = api.patch(self.path, str(self.headers.get("Content-Type")), body)
                return self._send(code, answer)

            def _send(self, code: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # a short poll: shutdown() waits up to one poll interval (0.5 s by default) for the loop to notice
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    # --- content ---------------------------------------------------------------------------------------------

    def add(self, obj: dict[str, Any], *later: dict[str, Any]) -> None:
        """An object (apiVersion and kind set); `later` versions are served one per read after the first."""
        group_version = obj["apiVersion"]
        plural = obj["kind"].lower() + "s"
        self.groups.add(group_version)
        self.objects[(group_version, plural)][obj["metadata"]["namespace"]].append([obj, *later])

    def register(self, group_version: str) -> None:
        """The CRD is installed (lists answer, empty) though nothing was added."""
        self.groups.add(group_version)

    def fail(self, path_prefix: str, code: int, reason: str) -> None:
        self.failures[path_prefix] = (code, reason)

    def flaky(self, path_prefix: str, *codes: int) -> None:
        """The next requests under `path_prefix` answer these error codes, one each, then the real answer."""
        self.flaky_paths[path_prefix] = list(codes)

    def reset(self, path_prefix: str, times: int = 1) -> None:
        """The next `times` requests under `path_prefix` get no answer: the connection is closed (a reset)."""
        self.resets[path_prefix] = times

    def route(self, path: str, body: Any) -> None:
        self.routes[path] = body

    def latest(self, plural: str, name: str) -> dict[str, Any]:
        """The version of an object a read serves now (after any patches)."""
        for (_, p), namespaces in self.objects.items():
            for sequences in namespaces.values():
                for versions in sequences:
                    if p == plural and versions[0]["metadata"]["name"] == name:
                        return self._current(f"{plural}/{name}", versions)
        raise KeyError(name)

    # --- answers ---------------------------------------------------------------------------------------------

    def _current(self, key: str, versions: list[dict[str, Any]]) -> dict[str, Any]:
        index = min(self.reads[key], len(versions) - 1)
        return versions[index]

    def answer(self, raw: str) -> tuple[int, Any]:
        url = urlparse(raw)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        for prefix, (code, reason) in self.failures.items():
            if url.path.startswith(prefix):
                return code, _status(code, reason, f"{url.path} is {reason.lower()}: injected by the test")
        for prefix, codes in self.flaky_paths.items():
            if url.path.startswith(prefix) and codes:
                code = codes.pop(0)
                return code, _status(code, "ServiceUnavailable" if code == 503 else "TooManyRequests",
                                     "injected by the test")
        if url.path in self.routes:
            return 200, self.routes[url.path]
        parts = url.path.strip("/").split("/")
        if parts[:2] == ["api", "v1"]:
            group_version, rest = "v1", parts[2:]
        elif parts[0] == "apis" and len(parts) >= 3:
            group_version, rest = f"{parts[1]}/{parts[2]}", parts[3:]
        else:
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        if group_version in self.groups and len(rest) == 1:  # a list across namespaces
            sequences = [v for ns in sorted(self.objects[(group_version, rest[0])])
                         for v in self.objects[(group_version, rest[0])][ns]]
            return 200, self._list(group_version, rest[0], sequences, query)
        if group_version not in self.groups or len(rest) < 3 or rest[0] != "namespaces":
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        namespace, plural, tail = rest[1], rest[2], rest[3:]
        sequences = self.objects[(group_version, plural)][namespace]
        if not tail:
            return 200, self._list(group_version, plural, sequences, query)
        name = tail[0]
        found = next((v for v in sequences if v[0]["metadata"]["name"] == name), None)
        if found is None:
            return 404, _status(404, "NotFound", f'{plural} "{name}" not found')
        if tail[1:] == ["log"] and plural == "pods":
            container = query.get("container", "")
            text = (self.previous_logs if query.get("previous") == "true" else self.logs).get((name, container))
            if text is None:
                return 400, _status(400, "BadRequest", f"container {container} is not valid for pod {name}")
            return 200, text
        return 200, self._current(f"{plural}/{name}", found)

    def _list(self, group_version: str, plural: str, sequences: list[list[dict[str, Any]]],
              query: dict[str, str]) -> dict[str, Any]:
        items = []
        fields = dict(t.split("=", 1) for t in filter(None, query.get("fieldSelector", "").split(",")))
        for versions in sequences:
            key = f"{plural}/{versions[0]['metadata']['name']}"
            obj = self._current(key, versions)
            self.reads[key] += 1
            if _selects(query.get("labelSelector", ""), obj["metadata"].get("labels") or {}) and \
                    all(str(obj.get(k)) == v for k, v in fields.items()):
                items.append(obj)
        return {"apiVersion": group_version, "kind": "List", "metadata": {"resourceVersion": "1"}, "items": items}

    def patch(self, raw: str, content_type: str, body: dict[str, Any]) -> tuple[int, Any]:
        """A JSON merge patch of an object's latest version (served from then on)."""
        url = urlparse(raw)
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        parts = url.path.strip("/").split("/")
        if parts[0] != "apis" or len(parts) != 7 or parts[3] != "namespaces":
            return 404, _status(404, "NotFound", "the server could not find the requested resource")
        group_version, namespace, plural, name = f"{parts[1]}/{parts[2]}", parts[4], parts[5], parts[6]
        if "merge-patch" not in content_type:
            return 415, _status(415, "UnsupportedMediaType", f"the body of the request was in an unknown format "
                                f"({content_type}); this test server applies merge patches")
        found = next((v for v in self.objects[(group_version, plural)][namespace]
                      if v[0]["metadata"]["name"] == name), None)
        if group_version not in self.groups or found is None:
            return 404, _status(404, "NotFound", f'{plural} "{name}" not found')
        current = self._current(f"{plural}/{name}", found)
        patched = _merge(json.loads(json.dumps(current)), body)
        found[:] = [patched]
        self.reads[f"{plural}/{name}"] = 0
        self.patches.append((url.path, content_type, body, query.get("fieldManager", "")))
        return 200, patched

    # --- lifecycle -------------------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def kubeconfig(self, path: Path, namespace: Optional[str] = None, server: Optional[str] = None,
                   context_name: str = "loop") -> Path:
        context: dict[str, Any] = {"cluster": "loop", "user": "tester"}
        if namespace:
            context["namespace"] = namespace
        path.write_text(yaml.safe_dump({
            "apiVersion": "v1", "kind": "Config", "current-context": context_name,
            "clusters": [{"name": "loop", "cluster": {"server": server or self.url}}],
            "users": [{"name": "tester", "user": {"token": TOKEN}}],
            "contexts": [{"name": context_name, "context": context}],
        }))
        return path

    def __enter__(self) -> "KubeApi":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def _merge(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: objects merge, null deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return patch
    if not isinstance(target, dict):
        target = {}
    for key, value in patch.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = _merge(target.get(key), value)
    return target

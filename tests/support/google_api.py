"""Google's REST APIs on the loopback address, answering recorded responses in the shapes the APIs document.

`google.py` sends each API's calls to `<url>/<api>/` (PATHWAYS_GKE_GOOGLE_API_ENDPOINT), so a request arrives as
`/<api>/<the path relative to that API's base URL>`: e.g. `/compute/projects/P/regions/R` is Compute Engine's
`GET https://compute.googleapis.com/compute/v1/projects/P/regions/R`. A path nobody recorded answers 404 with
Google's error body (https://cloud.google.com/apis/design/errors#http_mapping); every request is recorded.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlparse

STATUS = {403: "PERMISSION_DENIED", 404: "NOT_FOUND", 400: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED",
          500: "INTERNAL", 503: "UNAVAILABLE"}


def error(code: int, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": STATUS.get(code, "UNKNOWN"),
                      "errors": [{"message": message, "domain": "global", "reason": STATUS.get(code, "x").lower()}]}}


class GoogleApi:
    def __init__(self) -> None:
        self.routes: dict[tuple[str, str], tuple[int, dict[str, Any]]] = {}
        self.requests: list[tuple[str, str, Any]] = []
        self.flaky_paths: dict[str, list[int]] = {}  # path -> error codes answered first, one per request
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                path = urlparse(self.path).path
                api.requests.append((self.command, self.path, body))
                code, data = api.routes.get((self.command, path), (404, error(404, f"{path} not found")))
                if api.flaky_paths.get(path):
                    code = api.flaky_paths[path].pop(0)
                    data = error(code, "injected by the test")
                raw = json.dumps(data).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json; charset=UTF-8")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = _answer
            do_POST = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # a short poll: shutdown() waits up to one poll interval (0.5 s by default) for the loop to notice
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    def get(self, path: str, data: dict[str, Any], code: int = 200) -> None:
        self.routes[("GET", path)] = (code, data)

    def post(self, path: str, data: dict[str, Any], code: int = 200) -> None:
        self.routes[("POST", path)] = (code, data)

    def flaky(self, path: str, *codes: int) -> None:
        """The next requests to `path` answer these error codes, one each, then the recorded answer."""
        self.flaky_paths[path] = list(codes)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> "GoogleApi":
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()

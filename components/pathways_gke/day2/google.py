"""The thin shell over Google's API client (google-api-python-client, discovery documents bundled in the package,
so building a service downloads nothing) for `pathways-gke preflight`. Each call returns the decoded JSON or an
error text; checks.py judges. REST methods: serviceusage v1 services.batchGet, compute v1 regions.get /
reservations.get / reservationBlocks.get / machineTypes.get, container v1 projects.locations.getServerConfig, storage v1 buckets.get,
cloudresourcemanager v1 projects.testIamPermissions.

`PATHWAYS_GKE_GOOGLE_API_ENDPOINT=URL` sends each API's calls to `URL/<api>/` (e.g. `URL/compute/projects/P/
regions/R`) with anonymous credentials: an emulator or a recorded-response server, as the tests use. Otherwise
each API's own endpoint and Application Default Credentials.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Optional

from .kube import Day2Error

ENDPOINT_ENV = "PATHWAYS_GKE_GOOGLE_API_ENDPOINT"
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
RETRIES = 3  # per call, for 429 / 5xx answers and reset connections
BACKOFF = 0.5  # seconds before the first retry; doubles
RETRIED_STATUSES = (429, 500, 502, 503, 504)
Result = tuple[Optional[Any], str]  # (JSON answer, "") or (None, "<status> <reason>")


class Google:
    def __init__(self) -> None:
        try:
            import warnings

            with warnings.catch_warnings():  # google.api_core warns about Python versions it will drop, on import
                warnings.simplefilter("ignore", FutureWarning)
                import google.auth
                from google.auth.credentials import AnonymousCredentials
                from googleapiclient.discovery import build
        except ImportError:  # pragma: no cover - the dev extra installs them
            raise Day2Error("preflight needs Google's API client: pip install 'pathways-gke[day2]'") from None
        self._build = build
        self.endpoint = os.environ.get(ENDPOINT_ENV)
        if self.endpoint:
            self.credentials: Any = AnonymousCredentials()
        else:
            try:
                self.credentials, _ = google.auth.default(scopes=SCOPES)
            except google.auth.exceptions.DefaultCredentialsError:
                raise Day2Error("no Google credentials: run `gcloud auth application-default login` (or set "
                                "GOOGLE_APPLICATION_CREDENTIALS)") from None
        self._services: dict[tuple[str, str], Any] = {}

    def service(self, name: str, version: str) -> Any:
        if (name, version) not in self._services:
            options = {"api_endpoint": f"{self.endpoint.rstrip('/')}/{name}/"} if self.endpoint else None
            self._services[(name, version)] = self._build(name, version, credentials=self.credentials,
                                                          static_discovery=True, cache_discovery=False,
                                                          client_options=options)
        return self._services[(name, version)]

    def call(self, request: Callable[[], Any]) -> Result:
        """One API call as (answer, "") or (None, "<status> <reason>"). A 429 / 5xx answer or a reset connection is
        retried (RETRIES times, back-off from BACKOFF doubling): a transient error is not a failed check. A server
        nobody runs is not (the client's own retries would also retry a refused connection, for seconds per check)."""
        import time

        from googleapiclient.errors import HttpError

        pause = BACKOFF
        for attempt in range(RETRIES + 1):
            try:
                return request().execute(num_retries=0), ""
            except HttpError as exc:
                if exc.resp.status not in RETRIED_STATUSES or attempt == RETRIES:
                    return None, f"{exc.resp.status} {exc.reason}"
            except (ConnectionResetError, BrokenPipeError) as exc:
                if attempt == RETRIES:
                    return None, f"{type(exc).__name__}: {str(exc)[:200]}"
            except Exception as exc:  # transport failures (httplib2, ssl, sockets, auth refresh): reported per check
                return None, f"{type(exc).__name__}: {str(exc)[:200]}"
            time.sleep(pause)
            pause *= 2
        return None, "unreachable"  # pragma: no cover - the loop returns on its last attempt

    # --- the calls -------------------------------------------------------------------------------------------------

    def services(self, project: str, apis: list[str]) -> Result:
        su = self.service("serviceusage", "v1").services()
        return self.call(lambda: su.batchGet(parent=f"projects/{project}",
                                             names=[f"projects/{project}/services/{a}" for a in apis]))

    def region(self, project: str, region: str) -> Result:
        return self.call(lambda: self.service("compute", "v1").regions().get(project=project, region=region))

    def reservation(self, project: str, zone: str, name: str) -> Result:
        return self.call(lambda: self.service("compute", "v1").reservations().get(project=project, zone=zone,
                                                                                  reservation=name))

    def reservation_block(self, project: str, zone: str, reservation: str, block: str) -> Result:
        blocks = self.service("compute", "v1").reservationBlocks()
        return self.call(lambda: blocks.get(project=project, zone=zone, reservation=reservation,
                                            reservationBlock=block))

    def machine_type(self, project: str, zone: str, machine_type: str) -> Result:
        return self.call(lambda: self.service("compute", "v1").machineTypes().get(project=project, zone=zone,
                                                                                  machineType=machine_type))

    def server_config(self, project: str, location: str) -> Result:
        locations = self.service("container", "v1").projects().locations()
        return self.call(lambda: locations.getServerConfig(name=f"projects/{project}/locations/{location}"))

    def bucket(self, name: str) -> Result:
        return self.call(lambda: self.service("storage", "v1").buckets().get(bucket=name))

    def test_permissions(self, project: str, permissions: list[str]) -> Result:
        projects = self.service("cloudresourcemanager", "v1").projects()
        return self.call(lambda: projects.testIamPermissions(resource=project, body={"permissions": permissions}))

"""The `serving:` and `service:` blocks of a Pathways workload (modes `serving` and `service`).

Both run on a LeaderWorkerSet (LWS): `serving` is one LWS whose group is a Pathways head plus the workers of
one or more slices, with the user's server in the leader pod and a Service in front of it; `service` is a
long-lived Pathways backend (resource manager only) that named clients reach through their own proxy.
Kept apart from `workloads.py` so the serving surface is one separable model.
"""

from __future__ import annotations

import itertools

from typing import Literal, Optional

from pydantic import Field, field_validator, model_validator

from .base import Model, fail
from .types import ClientNames, HttpPath, PortName

LeaderPlacement = Literal["tpu", "cpu"]
LoadBalancer = Literal["internal"]

# Startup budget default: checkpoint restore of a 405B model takes 7-20 min in Google's serving guides; an
# hour leaves room for a cold image pull and compilation before the first ready answer.
DEFAULT_STARTUP_SECONDS = 3600
# Liveness tolerance default: Google's JetStream-on-Pathways manifests probe liveness every 60 s with
# failureThreshold 10 (600 s of failed checks before a restart; PATHWAYS_SERVING.md, the GKE JetStream guides).
# A liveness restart recreates the whole LeaderWorkerSet group, and a 405B reload takes 10-20 minutes.
GOOGLE_LIVENESS_TOLERANCE_SECONDS = 600


class ServingPort(Model):
    """One port of the user's server."""

    port: int = Field(ge=1, le=65535)
    """Port number (1-65535), not one of the Pathways servers' ports."""
    name: Optional[PortName] = None
    """Port name (IANA service name, at most 15 characters)."""


class ServingProbes(Model):
    """Startup / readiness / liveness probes of the server container.

    The startup probe allows `startupSeconds` for the checkpoint to load before liveness takes over; readiness
    gates the Service's endpoints. With `path` the probes are HTTP GETs, without it TCP connects.
    """

    path: Optional[HttpPath] = None
    """HTTP path answering 200 when ready (e.g. /health); none: a TCP check."""
    port: Optional[int] = Field(default=None, ge=1, le=65535)
    """Probe port; default: the first serving port."""
    startup_seconds: int = Field(default=DEFAULT_STARTUP_SECONDS, ge=60, le=86400)
    """Time allowed for checkpoint loading before liveness applies (60-86400). Default: 3600."""
    period_seconds: int = Field(default=10, ge=1, le=300)
    """Probe period (1-300 s). Default: 10."""
    liveness_failure_threshold: Optional[int] = Field(default=None, ge=1, le=10000)
    """Failed liveness checks in a row before the server is restarted (and its group recreated), 1-10000; apart
    from startup and readiness. Default: enough checks for 600 s at periodSeconds (Google's JetStream manifests:
    60 s x 10)."""
    liveness_timeout_seconds: int = Field(default=1, ge=1, le=3600)
    """Seconds one liveness check may take before it counts as failed (1-3600); apart from startup and readiness
    (which keep Kubernetes' 1 s). Default: 1."""
    enabled: bool = True
    """Probe the server at all. Default: true."""

    @property
    def liveness_failures(self) -> int:
        """The liveness probe's failureThreshold: given, or Google's 600 s tolerance at this period."""
        if self.liveness_failure_threshold is not None:
            return self.liveness_failure_threshold
        return -(-GOOGLE_LIVENESS_TOLERANCE_SECONDS // self.period_seconds)


class ServingSettings(Model):
    """mode serving: the LeaderWorkerSet's groups and the Service in front of them."""

    port: Optional[int] = Field(default=None, ge=1, le=65535)
    """The server's port (or give ports)."""
    ports: list[ServingPort] = Field(default_factory=list)
    """Several named ports instead of port."""
    replicas: int = Field(default=1, ge=1, le=1000)
    """Independent Pathways groups behind the Service (1-1000). Default: 1."""
    slices_per_replica: int = Field(default=1, ge=1, le=256)
    """TPU slices each group serves from (1-256). Default: 1."""
    max_surge: int = Field(default=0, ge=0, le=1000)
    """Extra groups during a rolling update (each needs spare slices). Default: 0."""
    leader: LeaderPlacement = "tpu"
    """Where the head runs. Default: "tpu"."""
    load_balancer: Optional[LoadBalancer] = None
    """Expose the Service through an internal load balancer."""
    probes: ServingProbes = Field(default_factory=ServingProbes)
    """Probes of the server container."""

    @model_validator(mode="after")
    def _ports(self) -> "ServingSettings":
        if self.port is None and not self.ports:
            raise fail("port", "is required: the port the server listens on (e.g. port: 8000), or a ports list",
                       field="port")
        if self.port is not None and self.ports:
            raise fail("ports", "is given together with port; use one of them", field="ports")
        numbers = [p.port for p in self.ports]
        if len(set(numbers)) != len(numbers):
            raise fail("ports", "lists a port twice", field="ports")
        names = [p.name for p in self.ports if p.name]
        if len(set(names)) != len(names):
            raise fail("ports", "gives two ports the same name", field="ports")
        return self

    def port_list(self) -> list[tuple[str, int]]:
        """(name, port) of every serving port, in order (the first is the probe default)."""
        if self.port is not None:
            return [("serve", self.port)]
        # an unnamed port gets a name no other port has (the Service refuses two ports of one name)
        taken = {p.name for p in self.ports if p.name}
        out = []
        for i, p in enumerate(self.ports):
            name = p.name
            if not name:
                candidates = itertools.chain(["serve"] if i == 0 else [], [f"serve-{p.port}", f"port-{p.port}"],
                                             (f"p{k}-{p.port}" for k in itertools.count(2)))
                name = next(c for c in candidates if c not in taken)
                taken.add(name)
            out.append((name, p.port))
        return out

    @property
    def probe_port(self) -> int:
        return self.probes.port or self.port_list()[0][1]


class ServiceSettings(Model):
    """mode service: a persistent Pathways backend and one proxy per named client."""

    clients: ClientNames = Field(min_length=1)
    """Client names; each gets an IFRT proxy Deployment and Service."""
    client_slices: int = Field(default=1, ge=1, le=256)
    """Slices each client's proxy asks the backend for (--virtual_slices). Default: 1."""
    leader: LeaderPlacement = "cpu"
    """Where the resource manager runs. Default: "cpu"."""

    @field_validator("clients")
    @classmethod
    def _clients(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise fail("clients", "names a client twice")
        return value

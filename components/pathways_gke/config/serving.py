"""The `serving:` and `service:` blocks of a Pathways workload (modes `serving` and `service`).

Both run on a LeaderWorkerSet (LWS): `serving` is one LWS whose group is a Pathways head plus the workers of
one or more slices, with the user's server in the leader pod and a Service in front of it; `service` is a
long-lived Pathways backend (resource manager only) that named clients reach through their own proxy.
Kept apart from `workloads.py` so the serving surface is one separable model.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field, field_validator, model_validator

from .base import Model, fail
from .types import ClientNames, HttpPath, PortName

LeaderPlacement = Literal["tpu", "cpu"]
LoadBalancer = Literal["internal"]

# Startup budget default: checkpoint restore of a 405B model takes 7-20 min in Google's serving guides; an
# hour leaves room for a cold image pull and compilation before the first ready answer.
DEFAULT_STARTUP_SECONDS = 3600


class ServingPort(Model):
    """One port of the user's server, exposed on the leader and through the Service."""

    port: int = Field(ge=1, le=65535)
    name: Optional[PortName] = Field(default=None, description="port name (default: the first is 'serve', then "
                                "'serve-<port>')")


class ServingProbes(Model):
    """Startup / readiness / liveness probes of the user's server container (leader pod).

    The startup probe allows `startupSeconds` for the checkpoint to load before liveness takes over; readiness
    gates the Service's endpoints. With `path` the probes are HTTP GETs, without it TCP connects.
    """

    path: Optional[HttpPath] = Field(default=None, description="HTTP path answering 200 when the server is ready "
                                "(e.g. /health); none: a TCP check")
    port: Optional[int] = Field(default=None, ge=1, le=65535, description="default: the first serving port")
    startup_seconds: int = Field(default=DEFAULT_STARTUP_SECONDS, ge=60, le=86400,
                                 description="time allowed for checkpoint loading before liveness applies")
    period_seconds: int = Field(default=10, ge=1, le=300)
    enabled: bool = True


class ServingSettings(Model):
    """`mode: serving`: a LeaderWorkerSet of `replicas` groups, each a Pathways head + `slicesPerReplica` slices."""

    port: Optional[int] = Field(default=None, ge=1, le=65535, description="the server's port (or give ports)")
    ports: list[ServingPort] = Field(default_factory=list, description="several named ports instead of port")
    replicas: int = Field(default=1, ge=1, le=1000, description="independent Pathways groups behind the Service")
    slices_per_replica: int = Field(default=1, ge=1, le=256, description="TPU slices each group serves from")
    max_surge: int = Field(default=0, ge=0, le=1000, description="extra groups during a rolling update (each "
                           "needs spare slices)")
    leader: LeaderPlacement = Field(default="tpu", description="tpu: the head shares a TPU VM of its slice "
                                    "(Google's layout); cpu: the head on the CPU pool (LWS >= v0.6.0)")
    load_balancer: Optional[LoadBalancer] = Field(default=None, description="internal: a GKE internal passthrough "
                                                  "load balancer instead of a ClusterIP Service")
    probes: ServingProbes = Field(default_factory=ServingProbes)

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
        out = []
        for i, p in enumerate(self.ports):
            out.append((p.name or ("serve" if i == 0 else f"serve-{p.port}"), p.port))
        return out

    @property
    def probe_port(self) -> int:
        return self.probes.port or self.port_list()[0][1]


class ServiceSettings(Model):
    """`mode: service`: a persistent Pathways backend; each named client gets its own IFRT proxy."""

    clients: ClientNames = Field(min_length=1, description="client names; each gets a proxy and a Service")
    client_slices: int = Field(default=1, ge=1, le=256, description="slices each client's proxy asks the "
                               "backend for (--virtual_slices)")
    leader: LeaderPlacement = Field(default="cpu", description="where the resource manager runs: cpu (default, "
                                    "LWS >= v0.6.0) or tpu")

    @field_validator("clients")
    @classmethod
    def _clients(cls, value: list[str]) -> list[str]:
        if len(set(value)) != len(value):
            raise fail("clients", "names a client twice")
        return value

"""What pods may reach and how traffic leaves the cluster: buckets, Kubernetes/GCP service accounts, NAT.

`pathways-gke:buckets` (stack level) says what the stack knows about a bucket: whether it creates it, and
whether it lives in another project (then the plan lists the grants to make instead of making them).
`workloads[].buckets` declares the checkpoint/data buckets a workload's code reads or writes.
`cluster.nat` / `cluster.masterAuthorizedNetworks` / `cluster.networkProject` shape private-cluster egress.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Literal, Optional

from pydantic import Field, field_validator

from .base import Model, fail

GCS_BUCKET = re.compile(r"^[a-z0-9][a-z0-9._\-]{1,220}[a-z0-9]$")
GCP_PROJECT = re.compile(r"^[a-z][-a-z0-9]{4,28}[a-z0-9]$")
GSA_EMAIL = re.compile(r"^[a-z][-a-z0-9]{4,28}[a-z0-9]@([a-z][-a-z0-9]{4,28}[a-z0-9])\.iam\.gserviceaccount\.com$")
ROUTER_NAME = re.compile(r"^[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$")

Access = Literal["read", "readWrite"]


def check_bucket(value: str) -> str:
    if value.startswith("gs://"):
        raise fail("bucket", "is the bucket name only (without gs://)")
    if not GCS_BUCKET.match(value):
        raise fail("bucket", "is not a Cloud Storage bucket name (3-222 lower-case letters, digits, '-', '_', '.')")
    return value


def check_project(value: Optional[str]) -> Optional[str]:
    if value is not None and not GCP_PROJECT.match(value):
        raise fail("project", "is not a GCP project id (6-30 lower-case letters, digits and '-')")
    return value


def gsa_project(email: str) -> str:
    """Project of a user-managed service account, from its email."""
    match = GSA_EMAIL.match(email)
    if not match:
        raise ValueError(f"{email!r} is not a user-managed service-account email")
    return match.group(1)


class BucketConfig(Model):
    """A bucket the stack knows about (`pathways-gke:buckets[]`)."""

    name: str
    create: bool = Field(default=False, description="the stack creates it: uniform access, hierarchical "
                         "namespace, a lifecycle rule for temporary files; kept on `pulumi destroy`")
    location: Optional[str] = Field(default=None, description="created buckets: default the cluster's region")
    project: Optional[str] = Field(default=None, description="the bucket's project when not gcp:project: the "
                                   "plan then lists the grants to make instead of making them")
    temporary_object_days: int = Field(default=7, ge=1, le=3650, description="created buckets: objects under "
                                       "the workloads' gcsScratch paths are deleted after this many days")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return check_bucket(value)

    @field_validator("project")
    @classmethod
    def _project(cls, value: Optional[str]) -> Optional[str]:
        return check_project(value)

    @field_validator("location")
    @classmethod
    def _location(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not re.fullmatch(r"[A-Za-z]+(-[A-Za-z]+[0-9]+)?[0-9]*", value):
            raise fail("location", "is not a Cloud Storage location (a region such as us-east5, or US / EU)")
        return value.upper() if value else value


class BucketAccess(Model):
    """A checkpoint/data bucket a workload's code uses (`workloads[].buckets[]`)."""

    bucket: str
    access: Access = "readWrite"

    @field_validator("bucket")
    @classmethod
    def _bucket(cls, value: str) -> str:
        return check_bucket(value)


class NatConfig(Model):
    """Cloud NAT for private nodes (registry.k8s.io, which serves JobSet/Kueue/LWS, is not reachable otherwise)."""

    enabled: bool = Field(default=True, description="false: the network already has Cloud NAT for this region")
    router: Optional[str] = Field(default=None, description="an existing Cloud Router to put the NAT on")

    @field_validator("router")
    @classmethod
    def _router(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not ROUTER_NAME.match(value):
            raise fail("router", "is not a Cloud Router name (lower-case letters, digits and '-', at most 63)")
        return value


class AuthorizedNetwork(Model):
    """A CIDR block allowed to reach the control plane's endpoint."""

    cidr_block: str
    display_name: Optional[str] = None

    @field_validator("cidr_block")
    @classmethod
    def _cidr(cls, value: str) -> str:
        try:
            ipaddress.ip_network(value)
        except ValueError:
            raise fail("cidr", "is not a CIDR block (e.g. 203.0.113.0/24)") from None
        return value

"""What pods may reach and how traffic leaves the cluster: buckets, Kubernetes/GCP service accounts, NAT.

`pathways-gke:buckets` (stack level) says what the stack knows about a bucket: whether it creates it, and
whether it lives in another project (then the plan lists the grants to make instead of making them).
`workloads[].buckets` declares the checkpoint/data buckets a workload's code reads or writes.
`cluster.nat` / `cluster.masterAuthorizedNetworks` / `cluster.networkProject` shape private-cluster egress.
"""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field

from .base import Model
from .types import BucketLocation, BucketName, CidrBlock, ProjectId, RouterName

Access = Literal["read", "readWrite"]


class BucketConfig(Model):
    """A bucket the stack knows about."""

    name: BucketName
    """Bucket name (without gs://)."""
    create: bool = False
    """Create it (uniform access, hierarchical namespace, temporary files expire; kept on destroy). Default: false."""
    location: Optional[BucketLocation] = None
    """Created buckets: location. Default: the cluster's region."""
    project: Optional[ProjectId] = None
    """The bucket's project when not the stack's: the plan lists the grants to make instead of making them."""
    temporary_object_days: int = Field(default=7, ge=1, le=3650)
    """Created buckets: objects under the workloads' gcsScratch paths are deleted after this many days. Default: 7."""


class BucketAccess(Model):
    """A checkpoint/data bucket a workload's code reads or writes."""

    bucket: BucketName
    """Bucket name (without gs://)."""
    access: Access = "readWrite"
    """read or readWrite. Default: "readWrite"."""


class NatConfig(Model):
    """Cloud NAT for private nodes (registry.k8s.io serves the JobSet/Kueue/LWS images)."""

    enabled: Optional[bool] = None
    """Create a Cloud Router + NAT (for the cluster's subnetwork only) when privateNodes is true; false when the
    network already has NAT there. Default: true in the stack's own network, false in another project's (Shared
    VPC: the host project's NAT serves it; true creates one there)."""
    router: Optional[RouterName] = None
    """Put the NAT on this existing Cloud Router instead of creating `<cluster>-router-<hash>`."""


# GKE quotas and limits: at most 50 authorized networks on a cluster's control-plane endpoint
# (https://cloud.google.com/kubernetes-engine/quotas)
AUTHORIZED_NETWORKS_MAX = 50


class AuthorizedNetwork(Model):
    """A CIDR block allowed to reach the control plane's endpoint."""

    cidr_block: CidrBlock
    """IPv4 CIDR block with its prefix length, e.g. 203.0.113.0/24."""
    display_name: Optional[str] = None
    """A label for it."""


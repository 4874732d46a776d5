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
    """A bucket the stack knows about (`pathways-gke:buckets[]`)."""

    name: BucketName
    create: bool = Field(default=False, description="the stack creates it: uniform access, hierarchical "
                         "namespace, a lifecycle rule for temporary files; kept on `pulumi destroy`")
    location: Optional[BucketLocation] = Field(default=None, description="created buckets: default the cluster's "
                                               "region")
    project: Optional[ProjectId] = Field(default=None, description="the bucket's project when not gcp:project: the "
                                         "plan then lists the grants to make instead of making them")
    temporary_object_days: int = Field(default=7, ge=1, le=3650, description="created buckets: objects under "
                                       "the workloads' gcsScratch paths are deleted after this many days")


class BucketAccess(Model):
    """A checkpoint/data bucket a workload's code uses (`workloads[].buckets[]`)."""

    bucket: BucketName
    access: Access = "readWrite"


class NatConfig(Model):
    """Cloud NAT for private nodes (registry.k8s.io, which serves JobSet/Kueue/LWS, is not reachable otherwise)."""

    enabled: bool = Field(default=True, description="false: the network already has Cloud NAT for this region")
    router: Optional[RouterName] = Field(default=None, description="an existing Cloud Router to put the NAT on")


class AuthorizedNetwork(Model):
    """A CIDR block allowed to reach the control plane's endpoint."""

    cidr_block: CidrBlock
    display_name: Optional[str] = None


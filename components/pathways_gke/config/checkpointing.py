"""Multi-tier checkpointing (GKE's HighScaleCheckpointing add-on): `cluster.multiTierCheckpointing` and
`workloads[].multiTierCheckpointing` (docs/resilience.md).

GKE's add-on runs a node agent that keeps checkpoints in a RAM disk on each TPU VM, replicates them to peers and
backs them up to a bucket; a workload writes them to a CSI volume (driver multitier-checkpoint.csi.storage.gke.io)
mounted where its program saves checkpoints. Sources: GKE "Train large-scale machine learning models on GKE with
Multi-Tier Checkpointing" (requirements: GKE 1.32.4-gke.1415000, the HighScaleCheckpointing and GcsFuseCsiDriver
add-ons, Workload Identity, a bucket with hierarchical namespace; read 2026-11); XPK `--enable-mtc`
(AI-Hypercomputer/xpk src/xpk/core/mtc.py, templates/mtc-cpc.yaml, core/docker_resources.py at 367c838).
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, Field

from .base import Model, fail
from .types import BucketName, GcsFuseMountOptions, MemoryQuantity

# XPK templates/mtc-cpc.yaml: the mount options its CheckpointConfiguration gives the backup bucket's FUSE mount
XPK_MOUNT_OPTIONS = ("implicit-dirs", "client-protocol=http1", "metadata-cache:negative-ttl-secs:0",
                     "metadata-cache:ttl-secs:-1", "metadata-cache:stat-cache-max-size-mb:-1",
                     "metadata-cache:type-cache-max-size-mb:-1", "file-system:kernel-list-cache-ttl-secs:0",
                     "read_ahead_kb=1024", "write:enable-streaming-writes:true")


def _mount_path(value: str) -> str:
    if not value.startswith("/") or value in ("/", "/tmp") or ":" in value:
        raise fail("path", "must be an absolute path other than / and /tmp")
    return value


class ClusterCheckpointing(Model):
    """GKE's multi-tier checkpointing on the cluster: the HighScaleCheckpointing add-on (with GCS FUSE), one
    CheckpointConfiguration per TPU machine type of the stack, and roles/storage.objectUser on the bucket for the
    add-on's node agent (a Workload Identity principal: cluster.projectNumber is required)."""

    bucket: BucketName
    """Backup bucket of the checkpoints (create it with hierarchical namespace, e.g. buckets[].create)."""
    in_memory_volume_size: MemoryQuantity
    """RAM disk per TPU VM that holds the local checkpoints, e.g. 64Gi; it comes out of the VM's memory, so the
    pod fit counts it against every pod that mounts it."""
    mount_options: GcsFuseMountOptions = Field(default_factory=lambda: list(XPK_MOUNT_OPTIONS))
    """gcsfuse mount options of the backup bucket. Default: XPK's (templates/mtc-cpc.yaml)."""


class WorkloadCheckpointing(Model):
    """The multi-tier checkpointing CSI volume in the workload's TPU pods (needs cluster.multiTierCheckpointing)."""

    mount_path: Annotated[str, AfterValidator(_mount_path)]
    """Where the program writes its local checkpoints (Orbax's local directory), an absolute path other than / and
    /tmp."""

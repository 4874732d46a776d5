"""Multi-tier checkpointing's in-cluster configuration: one CheckpointConfiguration per TPU machine type of the
stack, as plain data (no Pulumi import; config/checkpointing.py says where each fact comes from).

The add-on's node agent keeps the RAM disk of `inMemoryVolumeSize` on the nodes the configuration selects (by
machine type, `node.kubernetes.io/instance-type`, tolerating the TPU taint) and backs the checkpoints up to the
bucket. XPK applies one configuration for the cluster's TPU machine type (src/xpk/core/mtc.py create_mtc_cpc,
templates/mtc-cpc.yaml); a stack may hold several TPU machine types, so there is one per machine type.
"""

from __future__ import annotations

from typing import Any

from .. import naming
from ..config.stack import StackConfig


def tpu_machine_types(stack: StackConfig) -> list[str]:
    """The machine types of the stack's TPU pool groups, each once, sorted."""
    return sorted({pool.shape.machine_type for pool in stack.tpu_pools})


def checkpoint_configurations(stack: StackConfig) -> list[tuple[str, dict[str, Any]]]:
    """(child suffix, object) of each CheckpointConfiguration; none without cluster.multiTierCheckpointing."""
    mtc = stack.cluster.multi_tier_checkpointing
    if mtc is None:
        return []
    out = []
    for machine_type in tpu_machine_types(stack):
        out.append((f"mtc-{machine_type}", {
            "apiVersion": naming.MTC_API_VERSION,
            "kind": naming.MTC_KIND,
            "metadata": {"name": naming.checkpoint_configuration_name(machine_type),
                         "labels": dict(naming.MANAGED_BY_LABELS)},
            "spec": {
                "cloudStorageBucketName": mtc.bucket,
                "nodeSelector": {naming.INSTANCE_TYPE_NODE_KEY: machine_type},
                "tolerations": [{"key": naming.TPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}],
                "inMemoryVolumeSize": mtc.in_memory_volume_size,
                "mountOptions": list(mtc.mount_options),
            },
        }))
    return out

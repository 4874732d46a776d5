"""The closed sets of the config (each a Literal in its model) as the named enums other languages see.

The values come from the Literal itself; what each set and value means is written here once, and
`python -m pathways_gke.argsgen` turns both into the Enums of the components' arguments.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, get_args

from ..capacity import Capacity
from .access import Access
from .ironwood import DeviceMode
from .cluster import ClusterDns, DiskType, MaintenanceScope, ReleaseChannel
from .pathways import ImagePullPolicy
from .restart import RestartStrategy
from .serving import LeaderPlacement, LoadBalancer
from .tpu import HostMaintenanceInterval
from .workloads import Mode, Runtime


@dataclass(frozen=True)
class ClosedSet:
    """A Literal with the name and meaning other languages see."""

    name: str
    literal: Any
    doc: str
    meanings: dict[str, str] = field(default_factory=dict)

    @property
    def values(self) -> tuple[str, ...]:
        return get_args(self.literal)


CLOSED_SETS: tuple[ClosedSet, ...] = (
    ClosedSet("ReleaseChannel", ReleaseChannel, 'GKE release channel of the control plane and nodes.',
              {'RAPID': 'Newest GKE versions first.',
               'REGULAR': 'The default channel: versions a few weeks after RAPID.',
               'STABLE': 'Versions after REGULAR has proven them.',
               'EXTENDED': 'Extended support period (GKE Enterprise pricing).',
               'UNSPECIFIED': 'No channel: versions are managed by hand.'}),
    ClosedSet("DiskType", DiskType, 'Boot disk type of a node pool.'),
    ClosedSet("Capacity", Capacity, 'How the TPU slices of a pool group are obtained.',
              {'on-demand': 'On-demand VMs (quota permitting).',
               'spot': 'Spot VMs: cheap, preemptible.',
               'reservation': 'A specific reservation (give `reservation`).',
               'flex-start': 'Dynamic Workload Scheduler flex-start: the whole slice is provisioned from 0 nodes when needed.',
               'queued': "Queued provisioning through Kueue's ProvisioningRequest admission check (needs kueue.enabled)."}),
    ClosedSet("MaintenanceScope", MaintenanceScope, 'What a maintenance exclusion holds back.',
              {'NO_UPGRADES': 'No upgrades at all (at most 30 days; needs endTime).',
               'NO_MINOR_UPGRADES': 'No minor upgrades of the control plane or nodes; patches still apply.',
               'NO_MINOR_OR_NODE_UPGRADES': 'No minor upgrades and no node upgrades: keeps TPU slices from being upgraded under a release channel.'}),
    ClosedSet("HostMaintenanceInterval", HostMaintenanceInterval, 'When GKE may run host maintenance on TPU VMs.'),
    ClosedSet("Runtime", Runtime, 'How a workload runs its program.',
              {'pathways': 'Pathways: a head (resource manager + proxy) and workers on a TPU pool group.',
               'jax': "Multi-controller JAX: the user's program on every host (TPU multislice, or CPU processes)."}),
    ClosedSet("WorkloadMode", Mode, 'Where the Pathways head runs (runtime pathways only).',
              {'default': 'Head on the CPU pool, with the user container.',
               'colocated': 'Head beside a worker on the TPU slice (lower latency for batch inference).',
               'headless': 'Resource manager and proxy only, for notebooks and interactive clients.',
               'serving': "A LeaderWorkerSet: a Pathways head with the user's server plus a slice's workers per replica, and a Service.",
               'service': 'A persistent Pathways backend on a LeaderWorkerSet; each named client gets its own proxy.'}),
    ClosedSet("LeaderPlacement", LeaderPlacement, 'Where the head (LWS leader) of a serving/service workload runs.',
              {'tpu': "On a TPU VM of its slice (Google's layout; any supported LWS release).",
               'cpu': 'On the CPU pool, with LeaderExcluded subgroups (LWS >= v0.6.0).'}),
    ClosedSet("LoadBalancer", LoadBalancer, 'How the serving Service is exposed beyond ClusterIP.',
              {'internal': 'A GKE internal passthrough Network Load Balancer (a VPC-internal address).'}),
    ClosedSet("ClusterDns", ClusterDns, 'Cluster DNS provider.',
              {'auto': "Decided once, when the cluster is created: Cloud DNS (cluster scope) when the stack then "
                       "has a multi-host TPU slice, else GKE's default; later pool edits never change it.",
               'cloud-dns': 'Cloud DNS for GKE, cluster scope: DNS answered on every node, no in-cluster DNS server.',
               'nodelocal-dnscache': 'kube-dns with the NodeLocal DNSCache add-on (a cache on every node).',
               'gke-default': "Send no DNS settings: GKE's default for the cluster version."}),
    ClosedSet("ImagePullPolicy", ImagePullPolicy, 'Kubernetes imagePullPolicy of every container of a workload.'),
    ClosedSet("BucketAccessMode", Access, 'What a workload does with a declared bucket.'),
    ClosedSet("RestartStrategy", RestartStrategy, "How a JobSet restarts after a failure (its failurePolicy).",
              {'Recreate': "Delete the failed run's Jobs and create new ones at once (JobSet's default).",
               'BlockingRecreate': 'Create the new Jobs only once every old Job and pod is gone (JobSet >= v0.7).'}),
    ClosedSet("NetworkDeviceMode", DeviceMode, 'How an additional network NIC is handed to pods (GKENetworkParamSet '
              'deviceMode).',
              {'NetDevice': 'The whole NIC, as a Linux network device (what a hostNetwork TPU worker uses).',
               'DPDK-VFIO': 'The NIC bound to vfio-pci for DPDK.',
               'RDMA': 'An RDMA device.'}),
)


def closed_set_of(values: set[str]) -> ClosedSet:
    """The closed set whose values are exactly `values` (every Literal of the models has one)."""
    found = [c for c in CLOSED_SETS if set(c.values) == values]
    if len(found) != 1:
        raise LookupError(f"no closed set (or several) has the values {sorted(values)}; add one to CLOSED_SETS")
    return found[0]

"""The models of the Ironwood keys that are sections of their own: `workloads[].dynamicSlice` and
`cluster.additionalNetworks[]` (their checks across sections: config/ironwood_checks.py)."""

from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field, field_validator

from ..catalog import CatalogError, resolve
from ..ironwood import DYNAMIC_SLICING_GENERATION, DYNAMIC_SLICING_MACHINE
from .base import Model, fail
from .types import Network, ProjectId, Subnetwork

DeviceMode = Literal["NetDevice", "DPDK-VFIO", "RDMA"]


class DynamicSlice(Model):
    """The slice a workload asks GKE's slice controller to form on a dynamic-slicing pool group."""

    topology: str
    """Slice topology: a sub-slice (2x2x1, 2x2x2, 2x2x4, 2x4x4) or a super-slice of whole 4x4x4 sub-blocks
    (AxBxC, multiples of 4, A <= B <= C, at most 144 cubes), e.g. 4x4x16."""
    count: int = Field(default=1, ge=1, le=256)
    """Number of such slices (multislice). Default: 1."""

    @field_validator("topology")
    @classmethod
    def _topology(cls, value: str) -> str:
        try:
            resolve(DYNAMIC_SLICING_GENERATION, value, DYNAMIC_SLICING_MACHINE)
        except CatalogError as exc:
            raise fail("topology", str(exc)) from None
        return value


class AdditionalNetwork(Model):
    """An extra VPC network the TPU hosts get a NIC in (GKE multi-networking)."""

    network: Network
    """VPC network (name or self link)."""
    subnetwork: Subnetwork
    """Subnetwork of that network in the cluster's region (name or self link)."""
    project: Optional[ProjectId] = None
    """Project of the network (Shared VPC host); default: the stack's project."""
    device_mode: DeviceMode = "NetDevice"
    """How the NIC is handed to pods (GKENetworkParamSet deviceMode). Default: "NetDevice"."""

    def network_path(self) -> str:
        """The network as the node pool and the GKENetworkParamSet name it: with `project`, its full path."""
        if self.project is None or "/" in self.network:
            return self.network
        return f"projects/{self.project}/global/networks/{self.network}"

    def subnetwork_path(self, region: str) -> str:
        if self.project is None or "/" in self.subnetwork:
            return self.subnetwork
        return f"projects/{self.project}/regions/{region}/subnetworks/{self.subnetwork}"

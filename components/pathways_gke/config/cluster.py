"""`pathways-gke:cluster` and `pathways-gke:cpuPool`."""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ..catalog import cpu_machine
from ..gke_rules import default_disk_type, disk_type_problem
from .access import AuthorizedNetwork, NatConfig
from .base import Model, fail
from .types import (ZONE, ClusterName, ControlPlaneCidr, CpuMachineType, DiskImage, GceLabels, GkeVersion, Location,
                    MaintenanceExclusionName, NodeLabels, NodePoolName, ProjectId, ProjectNumber, RRule, Rfc3339,
                    ServiceAccountEmail, Zone, region_of)

ReleaseChannel = Literal["RAPID", "REGULAR", "STABLE", "EXTENDED", "UNSPECIFIED"]
# Cluster DNS: `auto` = Cloud DNS (cluster scope) when the stack has a multi-host slice, else GKE's default.
ClusterDns = Literal["auto", "cloud-dns", "nodelocal-dnscache", "gke-default"]


class MaintenanceWindow(Model):
    """A recurring maintenance window: GKE upgrades and repairs only inside it."""

    start_time: Rfc3339
    end_time: Rfc3339
    recurrence: RRule = "FREQ=WEEKLY;BYDAY=SA,SU"


MaintenanceScope = Literal["NO_UPGRADES", "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"]


class MaintenanceExclusion(Model):
    """A maintenance exclusion: no upgrades of `scope` from startTime until endTime (unset: end of support)."""

    name: MaintenanceExclusionName
    start_time: Rfc3339
    end_time: Optional[Rfc3339] = None
    scope: MaintenanceScope = "NO_MINOR_OR_NODE_UPGRADES"

    @model_validator(mode="after")
    def _no_upgrades_needs_end(self) -> "MaintenanceExclusion":
        if self.scope == "NO_UPGRADES" and self.end_time is None:
            raise fail("scope", "scope NO_UPGRADES needs an endTime (GKE allows at most 30 days); only the "
                       "NO_MINOR_* scopes can run until the version's end of support", field="endTime")
        return self


class Maintenance(Model):
    """When GKE may upgrade the cluster and its nodes (the way to keep slices from being upgraded)."""

    window: Optional[MaintenanceWindow] = None
    exclusions: list[MaintenanceExclusion] = Field(default_factory=list)


class NodeServiceAccount(Model):
    """The GCP service account the nodes run as (a dedicated one is created by default)."""

    create: bool = True
    email: Optional[ServiceAccountEmail] = None


class ClusterConfig(Model):
    name: ClusterName
    location: Location
    create: bool = True
    release_channel: ReleaseChannel = "REGULAR"
    version: Optional[GkeVersion] = Field(default=None, description="min_master_version; None lets the channel decide")
    network: Optional[str] = None
    subnetwork: Optional[str] = None
    private_nodes: bool = False
    master_ipv4_cidr_block: Optional[ControlPlaneCidr] = Field(
        default=None, description="private clusters: the control plane's /28; opens tcp:9443 for the webhooks")
    deletion_protection: bool = True
    protect: bool = False
    labels: GceLabels = Field(default_factory=dict)
    node_service_account: NodeServiceAccount = Field(default_factory=NodeServiceAccount)
    maintenance: Optional[Maintenance] = None
    project_number: Optional[ProjectNumber] = Field(
        default=None, description="gcp:project's number, for Workload Identity principals in the plan (looked "
        "up at `pulumi up` when unset)")
    network_project: Optional[ProjectId] = Field(
        default=None, description="Shared VPC host project of `network` (default: the project named in a "
        "network self-link, else gcp:project); firewall, router and NAT go there")
    nat: NatConfig = Field(default_factory=NatConfig)
    master_authorized_networks: list[AuthorizedNetwork] = Field(default_factory=list)
    dns: ClusterDns = Field(default="auto", description="cluster DNS provider (docs/at-scale.md)")

    def host_project(self, project: str) -> str:
        """Project that owns the network (Shared VPC host): networkProject, a self-link's project, or `project`."""
        if self.network_project:
            return self.network_project
        match = re.search(r"projects/([^/]+)/global/networks/", self.network or "")
        return match.group(1) if match else project

    @property
    def network_name(self) -> str:
        return (self.network or "default").rsplit("/", 1)[-1]

    @property
    def region(self) -> str:
        return region_of(self.location)

    @property
    def zonal(self) -> bool:
        return bool(ZONE.match(self.location))


# ClusterConfig fields that only shape a cluster we create: refused with `create: false` (not ignored)
CREATE_ONLY_CLUSTER_FIELDS = ("release_channel", "version", "subnetwork", "deletion_protection", "labels",
                              "maintenance")


class CpuPoolConfig(Model):
    """The CPU pool that hosts the Pathways head (and the JobSet/Kueue controllers)."""

    name: NodePoolName = "cpu-np"
    create: bool = True
    machine_type: CpuMachineType = "n2-standard-64"
    min_nodes: int = Field(default=1, ge=0, le=1000)
    max_nodes: int = Field(default=4, ge=1, le=1000)
    zone: Optional[Zone] = None
    disk_size_gb: int = Field(default=200, ge=10, le=65536)
    disk_type: Optional[Literal["pd-standard", "pd-balanced", "pd-ssd", "hyperdisk-balanced"]] = None
    spot: bool = False
    image_streaming: bool = True
    image_cache_disk: Optional[DiskImage] = Field(default=None, description="secondary boot disk image (image "
                                                  "cache)")
    labels: NodeLabels = Field(default_factory=dict)

    @field_validator("disk_type")
    @classmethod
    def _disk_type(cls, value: Optional[str], info: ValidationInfo) -> Optional[str]:
        machine_type = info.data.get("machine_type")
        problem = disk_type_problem(machine_type, value) if machine_type else None
        if problem:
            raise fail("disk_type", problem)
        return value

    @property
    def machine(self):
        return cpu_machine(self.machine_type)

    @property
    def boot_disk_type(self) -> str:
        """The disk type sent to GKE: the given one, else the machine family's (hyperdisk-balanced for N4/C4)."""
        return self.disk_type or default_disk_type(self.machine_type)

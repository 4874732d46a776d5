"""`pathways-gke:cluster` and `pathways-gke:cpuPool`."""

from __future__ import annotations

import re
from typing import Literal, Optional

from pydantic import Field, ValidationInfo, field_validator, model_validator

from .ironwood import AdditionalNetwork
from ..catalog import cpu_machine
from ..gke_rules import (MAINTENANCE_EXCLUSIONS_MAX, NO_UPGRADES_MAX_COUNT, default_disk_type, disk_type_problem,
                         maintenance_exclusion_problem, maintenance_window_problem)
from .access import AUTHORIZED_NETWORKS_MAX, AuthorizedNetwork, NatConfig
from .autoprovisioning import AutoprovisioningConfig
from .base import Model, fail
from .checkpointing import ClusterCheckpointing
from .deferrable import TOKEN
from .types import (NETWORK_LINK, SUBNETWORK_LINK, ZONE, ClusterName, ControlPlaneCidr, CpuMachineType, DiskImage,
                    GceLabels, GkeVersion, Location, MaintenanceExclusionName, Network, NodeLabels, NodePoolName,
                    NodeServiceAccountEmail, ProjectId, ProjectNumber, RangeName, RRule, Rfc3339, Subnetwork, Zone,
                    region_of)

ReleaseChannel = Literal["RAPID", "REGULAR", "STABLE", "EXTENDED", "UNSPECIFIED"]
# Cluster DNS: `auto` = Cloud DNS (cluster scope) when the stack has a multi-host slice, else GKE's default.
ClusterDns = Literal["auto", "cloud-dns", "nodelocal-dnscache", "gke-default"]
DiskType = Literal["pd-standard", "pd-balanced", "pd-ssd", "hyperdisk-balanced"]


class MaintenanceWindow(Model):
    """A recurring maintenance window: GKE upgrades and repairs only inside it."""

    start_time: Rfc3339
    """First window's start, RFC 3339 (e.g. 2026-12-05T02:00:00Z)."""
    end_time: Rfc3339
    """First window's end, RFC 3339."""
    recurrence: RRule = "FREQ=WEEKLY;BYDAY=SA,SU"
    """RFC 5545 RRULE (FREQ=DAILY, WEEKLY or MONTHLY; INTERVAL, BYDAY with two-letter weekdays MO..SU, BYMONTHDAY),
    evaluated in UTC. With the window it must allow GKE's 48 h of maintenance in any 32 days. Default:
    "FREQ=WEEKLY;BYDAY=SA,SU"."""

    @model_validator(mode="after")
    def _gke_accepts_it(self) -> "MaintenanceWindow":
        problem = maintenance_window_problem(self.start_time, self.end_time, self.recurrence)
        if problem:
            field = "endTime" if problem.startswith("endTime") else "recurrence"
            raise fail("maintenance", problem, field=field)
        return self


MaintenanceScope = Literal["NO_UPGRADES", "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"]


class MaintenanceExclusion(Model):
    """A period in which GKE does not upgrade what `scope` names."""

    name: MaintenanceExclusionName
    """Exclusion name (lower-case letters, digits and '-')."""
    start_time: Rfc3339
    """Start, RFC 3339."""
    end_time: Optional[Rfc3339] = None
    """End, RFC 3339; unset: until the cluster version's end of support."""
    scope: MaintenanceScope = "NO_MINOR_OR_NODE_UPGRADES"
    """What is held back. Default: "NO_MINOR_OR_NODE_UPGRADES"."""

    @model_validator(mode="after")
    def _no_upgrades_needs_end(self) -> "MaintenanceExclusion":
        if self.scope == "NO_UPGRADES" and self.end_time is None:
            raise fail("scope", "scope NO_UPGRADES needs an endTime (GKE allows at most 30 days); only the "
                       "NO_MINOR_* scopes can run until the version's end of support", field="endTime")
        problem = maintenance_exclusion_problem(self.scope, self.start_time, self.end_time)
        if problem:
            raise fail("maintenance", f"'{self.end_time}' {problem}", field="endTime")
        return self


class Maintenance(Model):
    """When GKE may upgrade the cluster and its nodes: the way to keep TPU slices from being upgraded while the
    cluster stays on a release channel (node autoUpgrade cannot be turned off there)."""

    window: Optional[MaintenanceWindow] = None
    """A recurring maintenance window."""
    exclusions: list[MaintenanceExclusion] = Field(default_factory=list)
    """Maintenance exclusions, each with its own name; at most 20, of which at most 3 NO_UPGRADES."""

    @model_validator(mode="after")
    def _gke_accepts_the_exclusions(self) -> "Maintenance":
        names = [e.name for e in self.exclusions]
        for i, name in enumerate(names):
            if names.index(name) != i:
                raise fail("maintenance", f"'{name}' is also the name of exclusions[{names.index(name)}]; GKE keys "
                           "exclusions by name (a second one with the same name replaces the first): give each its "
                           "own name", field=f"exclusions[{i}].name")
        if len(self.exclusions) > MAINTENANCE_EXCLUSIONS_MAX:
            raise fail("maintenance", f"has {len(self.exclusions)} exclusions; GKE allows at most "
                       f"{MAINTENANCE_EXCLUSIONS_MAX} per cluster", field="exclusions")
        no_upgrades = [i for i, e in enumerate(self.exclusions) if e.scope == "NO_UPGRADES"]
        if len(no_upgrades) > NO_UPGRADES_MAX_COUNT:
            raise fail("maintenance", f"has {len(no_upgrades)} NO_UPGRADES exclusions (exclusions"
                       f"{no_upgrades}); GKE allows at most {NO_UPGRADES_MAX_COUNT}: merge them or use a NO_MINOR_* "
                       "scope", field="exclusions")
        return self


class NodeServiceAccount(Model):
    """The GCP service account the nodes run as."""

    create: bool = True
    """Create a dedicated service account `<cluster>-nodes` (logging, monitoring, image pulls, read-only storage;
    the buckets its host-network pods write are granted per bucket). Default: true."""
    email: Optional[NodeServiceAccountEmail] = None
    """Use this existing service account instead (name@project.iam.gserviceaccount.com, or the Compute Engine
    default PROJECT_NUMBER-compute@developer.gserviceaccount.com)."""


class ClusterConfig(Model):
    """The GKE cluster (created, or an existing one adopted)."""

    name: ClusterName
    """GKE cluster name: lower-case letters, digits and '-', starting with a letter, at most 40 characters."""
    location: Location
    """Region (e.g. us-east5) or zone (e.g. us-east5-b) of the cluster."""
    create: bool = True
    """Create the cluster (true) or adopt an existing one with this name and location (false). Default: true."""
    release_channel: ReleaseChannel = "REGULAR"
    """GKE release channel. Default: "REGULAR"."""
    version: Optional[GkeVersion] = None
    """Minimum control-plane version (e.g. 1.34 or 1.34.1-gke.1829001); unset lets the channel decide."""
    network: Optional[Network] = None
    """VPC network (name or self link); unset uses the project's default network. May be an Output (e.g. a
    `gcp.compute.Network`'s self_link)."""
    subnetwork: Optional[Subnetwork] = None
    """Subnetwork (name or self link) of the nodes; in the cluster's region."""
    pods_range_name: Optional[RangeName] = None
    """Name of the subnetwork's secondary range for Pods (user-managed ranges; required on a Shared VPC host's
    subnetwork, where GKE cannot create ranges)."""
    services_range_name: Optional[RangeName] = None
    """Name of the subnetwork's secondary range for Services (with podsRangeName)."""
    private_nodes: bool = False
    """Nodes get internal IP addresses only. Default: false."""
    master_ipv4_cidr_block: Optional[ControlPlaneCidr] = Field(
        default=None)
    """Private clusters: the control plane's private /28. When set, a firewall rule `<name>-webhooks-<hash>` lets
    the control plane reach the installed controllers' webhooks (tcp:9443) and Kueue's visibility API (tcp:8082)."""
    deletion_protection: bool = True
    """GKE-side deletion protection of the cluster. Default: true."""
    protect: bool = False
    """Pulumi `protect` on the infrastructure (cluster, node pools, node service account, namespace, JobSet CRD),
    never on JobSets; the component's own `protect` option does the same. Default: false."""
    labels: GceLabels = Field(default_factory=dict)
    """GCE labels on the cluster (lower-case keys and values; values may be Outputs)."""
    node_service_account: NodeServiceAccount = Field(default_factory=NodeServiceAccount)
    """The service account the nodes run as. Default: a dedicated one is created."""
    maintenance: Optional[Maintenance] = None
    """Maintenance window and exclusions (created clusters only)."""
    project_number: Optional[ProjectNumber] = Field(
        default=None)
    """Number of the GCP project; needed when a grant names a Workload Identity principal (a pod without host
    networking, or a GCS FUSE volume, whose Kubernetes service account has no gcpServiceAccount)."""
    network_project: Optional[ProjectId] = Field(
        default=None)
    """Shared VPC host project of `network` (default: the project named in a network self link, else the
    cluster's). The webhook firewall, Cloud Router and NAT are created there."""
    nat: NatConfig = Field(default_factory=NatConfig)
    """Cloud NAT for private nodes. Default: a Router + NAT is created when privateNodes is true."""
    master_authorized_networks: list[AuthorizedNetwork] = Field(default_factory=list)
    """IPv4 CIDR blocks allowed to reach the control plane (master authorized networks); at most 50."""
    dns: ClusterDns = "auto"
    """Cluster DNS provider (created clusters only). Default: "auto"."""
    autoprovisioning: Optional[AutoprovisioningConfig] = None
    """Node auto-provisioning (the cluster's clusterAutoscaling): GKE may create node pools for pending pods up to
    these limits; provisioned nodes run as the stack's node service account (created clusters only)."""
    multi_tier_checkpointing: Optional[ClusterCheckpointing] = None
    """GKE's multi-tier checkpointing (the HighScaleCheckpointing add-on): bucket, inMemoryVolumeSize, mountOptions
    (docs/resilience.md)."""
    additional_networks: list[AdditionalNetwork] = Field(default_factory=list)
    """Extra VPC networks every TPU host gets a NIC in (tpu7x has two NICs): multi-networking on the cluster,
    additionalNodeNetworkConfigs on each TPU pool and a GKENetworkParamSet + Network per network. Not with the
    accelerator network profile (docs/ironwood.md)."""

    @model_validator(mode="after")
    def _network_is_consistent(self) -> "ClusterConfig":
        if len(self.master_authorized_networks) > AUTHORIZED_NETWORKS_MAX:
            raise fail("network", f"has {len(self.master_authorized_networks)} CIDR blocks; GKE's authorized networks "
                       f"take at most {AUTHORIZED_NETWORKS_MAX}: merge ranges", field="masterAuthorizedNetworks")
        link = NETWORK_LINK.match(self.network or "")
        if self.network_project is not None:
            if self.network is None:
                raise fail("network", f"'{self.network_project}' names the Shared VPC host project of a network, but "
                           "cluster.network is not set (the cluster would use the default network of its own "
                           "project); set cluster.network to projects/HOST/global/networks/NAME",
                           field="networkProject")
            if link is None and not TOKEN.search(self.network):
                raise fail("network", f"'{self.network}' is a plain network name, which GKE looks up in the "
                           f"cluster's own project; with networkProject '{self.network_project}' write the self link "
                           f"projects/{self.network_project}/global/networks/{self.network}", field="network")
            if link is not None and link["project"] != self.network_project:
                raise fail("network", f"'{self.network_project}' contradicts cluster.network, whose self link names "
                           f"project '{link['project']}'; drop networkProject (the self link says it) or make them "
                           "agree", field="networkProject")
        if (self.pods_range_name is None) != (self.services_range_name is None):
            missing = "servicesRangeName" if self.services_range_name is None else "podsRangeName"
            raise fail("network", "is required with " + ("podsRangeName" if missing == "servicesRangeName" else
                       "servicesRangeName") + ": GKE takes user-managed secondary ranges for Pods and Services "
                       "together", field=missing)
        if self.pods_range_name is not None and self.pods_range_name == self.services_range_name:
            # GKE refuses one secondary range for both since 2021-03-03 (Pods and Services would share addresses:
            # gruntwork-io/terraform-google-gke v0.8.0 release notes; GKE "Create a VPC-native cluster",
            # https://cloud.google.com/kubernetes-engine/docs/how-to/alias-ips: a Pod range and a Services range)
            raise fail("network", f"'{self.services_range_name}' is also cluster.podsRangeName; GKE refuses one "
                       "secondary range for both Pods and Services (their addresses would overlap); name two "
                       "different secondary ranges of the subnetwork", field="servicesRangeName")
        if self.pods_range_name is not None and self.subnetwork is None:
            raise fail("network", "names a secondary range of cluster.subnetwork, which is not set",
                       field="podsRangeName")
        subnet = SUBNETWORK_LINK.match(self.subnetwork or "")
        if subnet is not None:
            if subnet["region"] != region_of(self.location):
                raise fail("network", f"'{self.subnetwork}' is in region {subnet['region']}; the cluster's nodes "
                           f"live in {region_of(self.location)} (cluster.location {self.location})", field="subnetwork")
            host = self.network_project or (link["project"] if link else None)
            if host is not None and subnet["project"] != host:
                raise fail("network", f"'{self.subnetwork}' is in project {subnet['project']}, the network in "
                           f"{host}; a subnetwork belongs to its network's project", field="subnetwork")
        if self.network is not None and TOKEN.search(self.network) and self.network_project is None \
                and self.private_nodes and (self.nat.enabled is not False or self.master_ipv4_cidr_block):
            raise fail("network", "is required when cluster.network is an Output and privateNodes is true: the "
                       "Cloud Router, NAT and webhook firewall are created in the network's project, which is not "
                       "known before the Output resolves; set it to the network's project (the stack's own project "
                       "for a VPC of this program)", field="networkProject")
        if self.network is not None and TOKEN.search(self.network) and self.subnetwork is None \
                and self.private_nodes and self.nat.enabled is not False:
            raise fail("network", "is required when cluster.network is an Output and the stack creates the NAT: the "
                       "NAT is scoped to the nodes' subnetwork, whose name cannot be derived from an unknown network; "
                       "set it (or cluster.nat.enabled: false)", field="subnetwork")
        return self

    def nat_on(self, project: str) -> bool:
        """Whether the stack creates a NAT: as asked, else only in a network of the stack's own project."""
        if not self.private_nodes:
            return False
        if self.nat.enabled is not None:
            return self.nat.enabled
        return bool(self.nat.router) or self.host_project(project) == project

    def host_project(self, project: str) -> str:
        """Project that owns the network (Shared VPC host): networkProject, a self-link's project, or `project`."""
        if self.network_project:
            return self.network_project
        match = re.search(r"projects/([^/]+)/global/networks/", self.network or "")
        return match.group(1) if match else project

    @property
    def network_name(self) -> str:
        """The network's name (the last part of a self link; `default` when unset): an auto-mode network's
        subnetwork in each region has this name (the NAT's subnetwork when cluster.subnetwork is unset)."""
        return (self.network or "default").rsplit("/", 1)[-1]

    @property
    def region(self) -> str:
        return region_of(self.location)

    @property
    def zonal(self) -> bool:
        return bool(ZONE.match(self.location))


# ClusterConfig fields that only shape a cluster we create: refused with `create: false` (not ignored)
CREATE_ONLY_CLUSTER_FIELDS = ("release_channel", "version", "subnetwork", "deletion_protection", "labels",
                              "maintenance", "pods_range_name", "services_range_name", "autoprovisioning")


class CpuPoolConfig(Model):
    """The CPU node pool that hosts the Pathways head and the JobSet / Kueue controllers."""

    name: NodePoolName = "cpu-np"
    """GKE node-pool name. Default: "cpu-np"."""
    create: bool = True
    """Create the pool (true), or use the existing pool `name` of an adopted cluster (false; e.g. XPK's cpu-np).
    Default: true."""
    machine_type: CpuMachineType = "n2-standard-64"
    """A CPU machine type. Default: "n2-standard-64"."""
    min_nodes: int = Field(default=1, ge=0, le=1000)
    """Autoscaling minimum (0-1000). Default: 1."""
    max_nodes: int = Field(default=4, ge=1, le=1000)
    """Autoscaling maximum (1-1000, at least minNodes). Default: 4."""
    zone: Optional[Zone] = None
    """Zone of the pool; default: the zone of the first TPU pool (required for a regional cluster without TPU pools)."""
    disk_size_gb: int = Field(default=200, ge=10, le=65536)
    """Boot disk size in GB (10-65536). Default: 200."""
    disk_type: Optional[DiskType] = None
    """Boot disk type; default: hyperdisk-balanced for Hyperdisk-only families (n4, c4, c4a, c4d, ...), else
    pd-balanced. Those families refuse pd-* types."""
    spot: bool = False
    """Run the CPU nodes on spot VMs. Default: false."""
    image_streaming: bool = True
    """GKE image streaming (GCFS): the head's containers start before their images are fully pulled. Default: true."""
    image_cache_disk: Optional[DiskImage] = None
    """Pinned disk image (projects/P/global/images/NAME) attached as a container-image-cache secondary boot disk."""
    labels: NodeLabels = Field(default_factory=dict)
    """Extra Kubernetes node labels (values may be Outputs)."""

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

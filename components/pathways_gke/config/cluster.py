"""`pathways-gke:cluster` and `pathways-gke:cpuPool`."""

from __future__ import annotations

import datetime
import ipaddress
import re
from typing import Any, Literal, Optional

from pydantic import Field, ValidationInfo, field_validator, model_validator

from ..catalog import cpu_machine, is_tpu_machine_type
from ..gke_rules import default_disk_type, disk_type_problem, gce_label_problems, node_label_problem
from .access import AuthorizedNetwork, NatConfig, check_project
from .base import Model, fail

GKE_NAME = re.compile(r"^[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?$")
REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")
ZONE = re.compile(r"^[a-z]+-[a-z]+[0-9]+-[a-z]$")
# Kubernetes labels (node pools' `labels` become node labels): [prefix/]name, each name/value <= 63 characters
K8S_LABEL_NAME = re.compile(r"^[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
K8S_LABEL_PREFIX = re.compile(r"^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$")
K8S_LABEL_VALUE = re.compile(r"^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")

ReleaseChannel = Literal["RAPID", "REGULAR", "STABLE", "EXTENDED", "UNSPECIFIED"]
# Cluster DNS: `auto` = Cloud DNS (cluster scope) when the stack has a multi-host slice, else GKE's default.
ClusterDns = Literal["auto", "cloud-dns", "nodelocal-dnscache", "gke-default"]
# A pinned Compute Engine disk image: `global/images/NAME` or `projects/PROJECT/global/images/NAME`
# (an image *family* floats to the newest image, so it is refused: the cache must not change under a pool).
DISK_IMAGE = re.compile(r"^(?:(?:https://www\.googleapis\.com/compute/v1/)?projects/[a-z][-a-z0-9.:]{4,62}/)?"
                        r"global/images/[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?$")


def check_disk_image(value: Optional[str]) -> Optional[str]:
    """A secondary boot disk's image must be one named image (pinned), never a family."""
    if value is None:
        return value
    if "/images/family/" in value:
        raise fail("disk_image", "names an image family, which moves to each new image; give one pinned image, "
                   "projects/PROJECT/global/images/NAME (docs/at-scale.md shows how to build it)")
    if not DISK_IMAGE.match(value):
        raise fail("disk_image", "is not a Compute Engine disk image; write projects/PROJECT/global/images/NAME "
                   "(or global/images/NAME in the stack's project)")
    return value


def region_of(location: str) -> str:
    """`us-east5-b` -> `us-east5`; a region is returned unchanged."""
    return location.rsplit("-", 1)[0] if ZONE.match(location) else location


def check_location(value: str, what: str = "a GCP region or zone") -> str:
    if not (REGION.match(value) or ZONE.match(value)):
        raise fail("location", f"is not {what} (e.g. us-east5 or us-east5-b)")
    return value


def check_gce_labels(labels: dict[str, str]) -> dict[str, str]:
    """Compute Engine's label rules (gke_rules.gce_label_problems)."""
    problems = gce_label_problems(labels)
    if problems:
        raise fail("label", "; ".join(problems))
    return labels


def check_node_labels(labels: dict[str, str]) -> dict[str, str]:
    """Kubernetes label syntax; GKE refuses a node pool whose node labels break it."""
    for key, value in labels.items():
        prefix, slash, name = key.rpartition("/")
        if not K8S_LABEL_NAME.match(name) or (slash and (len(prefix) > 253 or not K8S_LABEL_PREFIX.match(prefix))):
            raise fail("label", f"node label key '{key}' is not a Kubernetes label key: an optional DNS prefix and "
                       "'/', then at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter "
                       "or digit")
        if not K8S_LABEL_VALUE.match(str(value)):
            raise fail("label", f"node label '{key}' value '{value}' is not a Kubernetes label value: at most 63 "
                       "letters, digits, '-', '_' or '.', starting and ending with a letter or digit")
        reserved = node_label_problem(key)
        if reserved:
            raise fail("label", reserved)
    return labels


RFC3339 = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
RRULE = re.compile(r"^FREQ=(DAILY|WEEKLY|MONTHLY)(;[A-Z]+=[A-Z0-9,+-]+)*$")


def _timestamp(value: Any) -> Any:
    """RFC 3339 text; a YAML timestamp PyYAML turned into a datetime is written back as one."""
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text + ("" if value.tzinfo else "Z")
    return value


def _check_rfc3339(value: Optional[str]) -> Optional[str]:
    if value is not None and not RFC3339.match(value):
        raise fail("time", "is not an RFC 3339 time (e.g. 2026-12-01T00:00:00Z)")
    return value


class MaintenanceWindow(Model):
    """A recurring maintenance window: GKE upgrades and repairs only inside it."""

    start_time: str
    end_time: str
    recurrence: str = "FREQ=WEEKLY;BYDAY=SA,SU"

    @field_validator("start_time", "end_time", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return _timestamp(value)

    @field_validator("start_time", "end_time")
    @classmethod
    def _rfc3339(cls, value: str) -> str:
        return _check_rfc3339(value) or value

    @field_validator("recurrence")
    @classmethod
    def _rrule(cls, value: str) -> str:
        if not RRULE.match(value):
            raise fail("recurrence", "is not an RFC 5545 RRULE (e.g. FREQ=WEEKLY;BYDAY=SA,SU)")
        return value


MaintenanceScope = Literal["NO_UPGRADES", "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"]


class MaintenanceExclusion(Model):
    """A maintenance exclusion: no upgrades of `scope` from startTime until endTime (unset: end of support)."""

    name: str
    start_time: str
    end_time: Optional[str] = None
    scope: MaintenanceScope = "NO_MINOR_OR_NODE_UPGRADES"

    @field_validator("start_time", "end_time", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return _timestamp(value)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not re.fullmatch(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?", value):
            raise fail("name", "is not an exclusion name: lower-case letters, digits and '-', at most 63")
        return value

    @field_validator("start_time", "end_time")
    @classmethod
    def _rfc3339(cls, value: Optional[str]) -> Optional[str]:
        return _check_rfc3339(value)

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
    email: Optional[str] = None

    @field_validator("email")
    @classmethod
    def _email(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not re.fullmatch(r"[a-z0-9-]+@[a-z0-9-]+\.iam\.gserviceaccount\.com", value):
            raise fail("email", "is not a service-account email (name@project.iam.gserviceaccount.com)")
        return value


class ClusterConfig(Model):
    name: str
    location: str
    create: bool = True
    release_channel: ReleaseChannel = "REGULAR"
    version: Optional[str] = Field(default=None, description="min_master_version; None lets the channel decide")
    network: Optional[str] = None
    subnetwork: Optional[str] = None
    private_nodes: bool = False
    master_ipv4_cidr_block: Optional[str] = Field(
        default=None, description="private clusters: the control plane's /28; opens tcp:9443 for the webhooks")
    deletion_protection: bool = True
    protect: bool = False
    labels: dict[str, str] = Field(default_factory=dict)
    node_service_account: NodeServiceAccount = Field(default_factory=NodeServiceAccount)
    maintenance: Optional[Maintenance] = None
    project_number: Optional[str] = Field(
        default=None, description="gcp:project's number, for Workload Identity principals in the plan (looked "
        "up at `pulumi up` when unset)")
    network_project: Optional[str] = Field(
        default=None, description="Shared VPC host project of `network` (default: the project named in a "
        "network self-link, else gcp:project); firewall, router and NAT go there")
    nat: NatConfig = Field(default_factory=NatConfig)
    master_authorized_networks: list[AuthorizedNetwork] = Field(default_factory=list)
    dns: ClusterDns = Field(default="auto", description="cluster DNS provider (docs/at-scale.md)")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not GKE_NAME.match(value):
            raise fail("name", "is not a GKE cluster name: lower-case letters, digits and '-', "
                       "starting with a letter, at most 40 characters")
        return value

    @field_validator("location")
    @classmethod
    def _location(cls, value: str) -> str:
        return check_location(value)

    @field_validator("version")
    @classmethod
    def _version(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not re.fullmatch(r"1\.[0-9]+(\.[0-9]+(-gke\.[0-9]+)?)?", value):
            raise fail("version", "is not a GKE version (e.g. 1.34 or 1.34.1-gke.1829001)")
        return value

    @field_validator("master_ipv4_cidr_block")
    @classmethod
    def _master_cidr(cls, value: Optional[str]) -> Optional[str]:
        if value is None:
            return value
        try:
            network = ipaddress.IPv4Network(value)
        except ValueError:
            raise fail("cidr", "is not an IPv4 CIDR block (e.g. 172.16.0.32/28)") from None
        if network.prefixlen != 28 or not network.is_private:
            raise fail("cidr", "must be a private /28 (GKE's control-plane range, e.g. 172.16.0.32/28)")
        return value

    @field_validator("labels")
    @classmethod
    def _labels(cls, value: dict[str, str]) -> dict[str, str]:
        return check_gce_labels(value)

    @field_validator("project_number", mode="before")
    @classmethod
    def _project_number(cls, value: object) -> object:
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
        if value is not None and not (isinstance(value, str) and re.fullmatch(r"[1-9][0-9]{5,18}", value)):
            raise fail("project_number", "is not a GCP project number (digits, e.g. 123456789012)")
        return value

    @field_validator("network_project")
    @classmethod
    def _network_project(cls, value: Optional[str]) -> Optional[str]:
        return check_project(value)

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

    name: str = "cpu-np"
    create: bool = True
    machine_type: str = "n2-standard-64"
    min_nodes: int = Field(default=1, ge=0, le=1000)
    max_nodes: int = Field(default=4, ge=1, le=1000)
    zone: Optional[str] = None
    disk_size_gb: int = Field(default=200, ge=10, le=65536)
    disk_type: Optional[Literal["pd-standard", "pd-balanced", "pd-ssd", "hyperdisk-balanced"]] = None
    spot: bool = False
    image_streaming: bool = True
    image_cache_disk: Optional[str] = Field(default=None, description="secondary boot disk image (image cache)")
    labels: dict[str, str] = Field(default_factory=dict)

    @field_validator("image_cache_disk")
    @classmethod
    def _image_cache_disk(cls, value: Optional[str]) -> Optional[str]:
        return check_disk_image(value)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not GKE_NAME.match(value):
            raise fail("name", "is not a node-pool name: lower-case letters, digits and '-', "
                       "starting with a letter, at most 40 characters")
        return value

    @field_validator("machine_type")
    @classmethod
    def _machine(cls, value: str) -> str:
        if is_tpu_machine_type(value):
            raise fail("machine", "is a TPU machine type; the head pool needs a CPU machine such as n2-standard-64")
        if not re.fullmatch(r"[a-z][a-z0-9]*-[a-z0-9]+(-[a-z0-9]+)*", value):
            raise fail("machine", "is not a GCE machine type (e.g. n2-standard-64)")
        return value

    @field_validator("zone")
    @classmethod
    def _zone(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and not ZONE.match(value):
            raise fail("zone", "is not a GCP zone (e.g. us-east5-b)")
        return value

    @field_validator("disk_type")
    @classmethod
    def _disk_type(cls, value: Optional[str], info: ValidationInfo) -> Optional[str]:
        machine_type = info.data.get("machine_type")
        problem = disk_type_problem(machine_type, value) if machine_type else None
        if problem:
            raise fail("disk_type", problem)
        return value

    @field_validator("labels")
    @classmethod
    def _labels(cls, value: dict[str, str]) -> dict[str, str]:
        return check_node_labels(value)

    @property
    def machine(self):
        return cpu_machine(self.machine_type)

    @property
    def boot_disk_type(self) -> str:
        """The disk type sent to GKE: the given one, else the machine family's (hyperdisk-balanced for N4/C4)."""
        return self.disk_type or default_disk_type(self.machine_type)

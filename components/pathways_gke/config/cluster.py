"""`pathways-gke:cluster` and `pathways-gke:cpuPool`."""

from __future__ import annotations

import ipaddress
import re
from typing import Literal, Optional

from pydantic import Field, field_validator

from ..catalog import cpu_machine, is_tpu_machine_type
from .base import Model, fail

GKE_NAME = re.compile(r"^[a-z](?:[-a-z0-9]{0,38}[a-z0-9])?$")
REGION = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")
ZONE = re.compile(r"^[a-z]+-[a-z]+[0-9]+-[a-z]$")
LABEL_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
LABEL_VALUE = re.compile(r"^[a-z0-9_-]{0,63}$")
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
    for key, value in labels.items():
        if not LABEL_KEY.match(key):
            raise fail("label", f"label key '{key}' must be lower-case letters, digits, '_' or '-', "
                       "start with a letter, at most 63 characters")
        if not LABEL_VALUE.match(str(value)):
            raise fail("label", f"label '{key}' value '{value}' must be lower-case letters, digits, "
                       "'_' or '-', at most 63 characters")
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
    return labels


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

    @property
    def region(self) -> str:
        return region_of(self.location)

    @property
    def zonal(self) -> bool:
        return bool(ZONE.match(self.location))


class CpuPoolConfig(Model):
    """The CPU pool that hosts the Pathways head (and the JobSet/Kueue controllers)."""

    name: str = "cpu-np"
    machine_type: str = "n2-standard-64"
    min_nodes: int = Field(default=1, ge=0, le=1000)
    max_nodes: int = Field(default=4, ge=1, le=1000)
    zone: Optional[str] = None
    disk_size_gb: int = Field(default=200, ge=10, le=65536)
    disk_type: Literal["pd-standard", "pd-balanced", "pd-ssd", "hyperdisk-balanced"] = "pd-balanced"
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

    @field_validator("labels")
    @classmethod
    def _labels(cls, value: dict[str, str]) -> dict[str, str]:
        return check_node_labels(value)

    @property
    def machine(self):
        return cpu_machine(self.machine_type)

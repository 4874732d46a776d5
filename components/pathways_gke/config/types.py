"""One pattern and one field type per kind of name or value the stack config takes.

Each kind is a `Syntax`: the pattern, the length limit and the sentence that says what is allowed, so every
field of that kind accepts the same values and reports a bad one the same way. The `Annotated` types below put
a Syntax (or a small check) on a field as an AfterValidator raising `fail(...)`, which `problems_from` turns
into a Problem at the field's path. A kind whose wording names the field ("a Secret name", "a container name")
is built with its factory: `dns_1123_label("a container name")`.

Sources: Kubernetes object names and labels
(https://kubernetes.io/docs/concepts/overview/working-with-objects/names/,
https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set),
Compute Engine resource names (https://cloud.google.com/compute/docs/naming-resources),
Cloud Storage bucket names (https://cloud.google.com/storage/docs/buckets#naming),
IAM service accounts (https://cloud.google.com/iam/docs/service-accounts-create),
project ids (https://cloud.google.com/resource-manager/docs/creating-managing-projects).
"""

from __future__ import annotations

import datetime
import ipaddress
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Optional, TypeVar

from pydantic import AfterValidator, BeforeValidator, StringConstraints

from ..catalog import cpu_machine_type_problem, is_tpu_machine_type
from ..gke_rules import GKE_VERSION, gce_label_problems, node_label_problem, parse_rrule
from .base import fail

V = TypeVar("V")


@dataclass(frozen=True)
class Syntax:
    """A kind of name or value: the pattern it must match whole, its length limit, the values it may not
    take, and the error that says what is allowed."""

    kind: str
    pattern: re.Pattern[str]
    message: str
    max_length: Optional[int] = None
    reserved: tuple[str, ...] = ()

    def matches(self, value: str) -> bool:
        return (self.pattern.fullmatch(value) is not None and value not in self.reserved
                and (self.max_length is None or len(value) <= self.max_length))

    def __call__(self, value: str) -> str:
        """AfterValidator of one value."""
        if not self.matches(value):
            raise fail(self.kind, self.message)
        return value

    def each(self, values: list[str]) -> list[str]:
        """AfterValidator of a list: the error, at the list's path, quotes the first bad item."""
        for value in values:
            if not self.matches(value):
                raise fail(self.kind, f"'{value}' {self.message}")
        return values

    def keys(self, mapping: dict[str, V]) -> dict[str, V]:
        """AfterValidator of a mapping whose keys are of this kind."""
        self.each(list(mapping))
        return mapping


def _pattern(text: str) -> re.Pattern[str]:
    """Anchored, so `.match` tests the whole value too."""
    return re.compile(f"^(?:{text})$")


# --- Kubernetes and DNS names --------------------------------------------------------------------------------

DNS_1035_LABEL = _pattern(r"[a-z](?:[-a-z0-9]*[a-z0-9])?")  # Services, JobSets, GKE and Compute Engine names
DNS_1123_LABEL = _pattern(r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?")  # namespaces, containers, volumes
DNS_1123_SUBDOMAIN = _pattern(r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*")
_LOWER = "lower-case letters, digits and '-'"


def _note(note: str) -> str:
    return f" ({note})" if note else ""


def dns_1035_label(what: str, max_length: int = 63, note: str = "") -> Syntax:
    """A name that starts with a letter (Services, JobSets, GKE clusters and node pools, Compute Engine)."""
    return Syntax("dns_1035_label", DNS_1035_LABEL, f"is not {what}: {_LOWER}, starting with a letter, at most "
                  f"{max_length} characters{_note(note)}", max_length)


def dns_1123_label(what: str, max_length: int = 63, note: str = "", reserved: tuple[str, ...] = ()) -> Syntax:
    """A Kubernetes label-style name (namespaces, containers, volumes)."""
    refused = "".join(f", not '{name}'" for name in reserved)
    return Syntax("dns_1123_label", DNS_1123_LABEL, f"is not {what}: {_LOWER}, at most {max_length} "
                  f"characters{refused}{_note(note)}", max_length, reserved)


def dns_1123_subdomain(what: str, max_length: int = 253) -> Syntax:
    """A Kubernetes object name that may contain dots (Secrets, ServiceAccounts)."""
    return Syntax("dns_1123_subdomain", DNS_1123_SUBDOMAIN, f"is not {what}: lower-case letters, digits, '-' and "
                  f"'.', at most {max_length} characters", max_length)


NAMESPACE = dns_1123_label("a Kubernetes namespace name")
CLUSTER_NAME = dns_1035_label("a GKE cluster name", 40)
NODE_POOL_NAME = dns_1035_label("a node-pool name", 40)

ClusterName = Annotated[str, AfterValidator(CLUSTER_NAME)]
NodePoolName = Annotated[str, AfterValidator(NODE_POOL_NAME)]
PoolGroupName = Annotated[str, AfterValidator(dns_1035_label("a pool group name", 20))]  # <cluster>-<group>-<i>
ReservationName = Annotated[str, AfterValidator(dns_1035_label("a reservation name"))]
ReservationPartName = Annotated[str, AfterValidator(dns_1035_label("a reservation/block name"))]
RouterName = Annotated[str, AfterValidator(dns_1035_label("a Cloud Router name"))]
RangeName = Annotated[str, AfterValidator(dns_1035_label("a secondary range name"))]
MaintenanceExclusionName = Annotated[str, AfterValidator(dns_1123_label("an exclusion name"))]
Namespace = Annotated[str, AfterValidator(NAMESPACE)]
KubernetesName = Annotated[str, AfterValidator(dns_1123_label("a Kubernetes name"))]
ContainerName = Annotated[str, AfterValidator(dns_1123_label("a container name"))]
SecretNames = Annotated[list[str], AfterValidator(dns_1123_subdomain("a Secret name").each)]
ClientNames = Annotated[list[str], AfterValidator(dns_1123_label(
    "a client name", 40, note="it becomes part of the proxy's Service name").each)]
# Kubernetes port names (IANA service names; k8s.io/apimachinery validation.IsValidPortName): at most 15 characters
# of a-z, 0-9 and '-', at least one letter, no '-' at either end and no two in a row
PortName = Annotated[str, AfterValidator(Syntax(
    "port_name", _pattern(r"(?=.*[a-z])(?!.*--)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"),
    "is not a port name: at most 15 lower-case letters, digits and '-', with at least one letter, no '-' at "
    "either end and no two '-' in a row", 15))]

_SERVICE_ACCOUNT_NAME = dns_1123_subdomain("a Kubernetes service account name")


def _kubernetes_service_account(value: str) -> str:
    if "@" in value:
        raise fail("service_account", "is a GCP service-account email; serviceAccount names the Kubernetes "
                   "service account the pods run as (bound to the GCP one through Workload Identity)")
    return _SERVICE_ACCOUNT_NAME(value)


ServiceAccountName = Annotated[str, AfterValidator(_kubernetes_service_account)]


# --- Kubernetes labels (node pools' `labels` become node labels) -------------------------------------------

_LABEL_TEXT = r"[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?"
_LABEL_ALLOWED = "at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit"
LABEL_NAME = Syntax("label", _pattern(_LABEL_TEXT), f"is not a Kubernetes label name: {_LABEL_ALLOWED}", 63)
LABEL_VALUE = Syntax("label", _pattern(f"(?:{_LABEL_TEXT})?"), f"is not a Kubernetes label value: {_LABEL_ALLOWED}",
                     63)
LabelValue = Annotated[str, AfterValidator(LABEL_VALUE)]


def check_node_labels(labels: dict[str, str]) -> dict[str, str]:
    """Kubernetes label syntax ([prefix/]name, the prefix a DNS subdomain); GKE refuses a node pool whose node
    labels break it, and some keys are GKE's or ours (gke_rules.node_label_problem)."""
    for key, value in labels.items():
        prefix, slash, name = key.rpartition("/")
        if not LABEL_NAME.matches(name) or (slash and (len(prefix) > 253 or not DNS_1123_SUBDOMAIN.match(prefix))):
            raise fail("label", f"node label key '{key}' is not a Kubernetes label key: an optional DNS prefix and "
                       f"'/', then {_LABEL_ALLOWED}")
        if not LABEL_VALUE.matches(str(value)):
            raise fail("label", f"node label '{key}' value '{value}' {LABEL_VALUE.message}")
        reserved = node_label_problem(key)
        if reserved:
            raise fail("label", reserved)
    return labels


def check_gce_labels(labels: dict[str, str]) -> dict[str, str]:
    """Compute Engine's label rules (gke_rules.gce_label_problems)."""
    problems = gce_label_problems(labels)
    if problems:
        raise fail("label", "; ".join(problems))
    return labels


NodeLabels = Annotated[dict[str, str], AfterValidator(check_node_labels)]
GceLabels = Annotated[dict[str, str], AfterValidator(check_gce_labels)]


# --- Google Cloud ------------------------------------------------------------------------------------------

_PROJECT_ID = r"[a-z][-a-z0-9]{4,28}[a-z0-9]"
_SERVICE_ACCOUNT_ID = r"[a-z][-a-z0-9]{4,28}[a-z0-9]"  # IAM: 6-30 characters, starting with a letter
_BUCKET = r"[a-z0-9][a-z0-9._\-]{1,220}[a-z0-9]"
PROJECT_ID = Syntax("project", _pattern(_PROJECT_ID),
                    "is not a GCP project id (6-30 lower-case letters, digits and '-')")
# a user-managed service account; group 1 is its project
SERVICE_ACCOUNT_EMAIL = Syntax(
    "service_account_email", _pattern(rf"{_SERVICE_ACCOUNT_ID}@({_PROJECT_ID})\.iam\.gserviceaccount\.com"),
    "is not a user-managed GCP service-account email (ID@PROJECT.iam.gserviceaccount.com; the ID is 6-30 "
    "characters: lower-case letters, digits and '-', starting with a letter, not ending with '-')")
# the Compute Engine default service account (PROJECT_NUMBER-compute@developer.gserviceaccount.com), which GKE's
# nodes run as unless told otherwise (https://cloud.google.com/compute/docs/access/service-accounts#default_service_account)
COMPUTE_DEFAULT_SERVICE_ACCOUNT = _pattern(r"[1-9][0-9]{5,18}-compute@developer\.gserviceaccount\.com")
BUCKET_NAME = Syntax("bucket", _pattern(_BUCKET),
                     "is not a Cloud Storage bucket name (3-222 lower-case letters, digits, '-', '_', '.')")
REGION = _pattern(r"[a-z]+-[a-z]+[0-9]+")
ZONE = _pattern(r"[a-z]+-[a-z]+[0-9]+-[a-z]")


_GOOGLE_LOOKALIKE = re.compile(r"g[o0][o0]g[l1][e3]")


def bucket_name_problem(name: str) -> Optional[str]:
    """Cloud Storage's bucket-name rules (https://cloud.google.com/storage/docs/buckets#naming), or None: 3-63
    characters of [a-z0-9_.-] starting and ending with a letter or digit, up to 222 with dots when every
    dot-separated part has at most 63; not an IP address; no `goog` prefix; no `google` or a close misspelling."""
    allowed = ("3-63 lower-case letters, digits, '-', '_' and '.', starting and ending with a letter or digit; up "
               "to 222 when it has dots, each dot-separated part at most 63")
    parts = name.split(".")
    if (not BUCKET_NAME.pattern.fullmatch(name) or (len(parts) == 1 and len(name) > 63)
            or any(not part or len(part) > 63 for part in parts)):
        return f"is not a Cloud Storage bucket name: {allowed}"
    try:
        ipaddress.IPv4Address(name)
        return "is an IP address; Cloud Storage refuses bucket names in dotted-decimal form"
    except ValueError:
        pass
    if name.startswith("goog"):
        return "starts with 'goog', which Cloud Storage reserves; choose another name"
    if _GOOGLE_LOOKALIKE.search(name):
        return "contains 'google' or a close misspelling of it, which Cloud Storage refuses; choose another name"
    return None


def _bucket(value: str) -> str:
    if value.startswith("gs://"):
        raise fail("bucket", "is the bucket name only (without gs://)")
    problem = bucket_name_problem(value)
    if problem:
        raise fail("bucket", problem)
    return value


def _gcs_path(value: str) -> str:
    match = re.fullmatch(r"gs://([^/]+)(?:/.*)?", value)
    if not match:
        raise fail("gcs", "is not a GCS location (gs://bucket/path)")
    problem = bucket_name_problem(match[1])
    if problem:
        raise fail("gcs", f"names bucket '{match[1]}', which {problem}")
    return value


def _bucket_location(value: str) -> str:
    if not re.fullmatch(r"[A-Za-z]+(-[A-Za-z]+[0-9]+)?[0-9]*", value):
        raise fail("location", "is not a Cloud Storage location (a region such as us-east5, or US / EU)")
    return value.upper()


def _location(value: str) -> str:
    if not (REGION.match(value) or ZONE.match(value)):
        raise fail("location", "is not a GCP region or zone (e.g. us-east5 or us-east5-b)")
    return value


def _project_number(value: object) -> object:
    """Before the string check: YAML `projectNumber: 123456789012` arrives as an int."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if value is not None and not (isinstance(value, str) and re.fullmatch(r"[1-9][0-9]{5,18}", value)):
        raise fail("project_number", "is not a GCP project number (digits, e.g. 123456789012)")
    return value


def _gke_version(value: str) -> str:
    match = GKE_VERSION.fullmatch(value)
    if not match or match[1] != "1":
        raise fail("version", "is not a GKE version (e.g. 1.34 or 1.34.1-gke.1829001)")
    return value


def _cpu_machine_type(value: str) -> str:
    if is_tpu_machine_type(value):
        raise fail("machine", "is a TPU machine type; the head pool needs a CPU machine such as n2-standard-64")
    problem = cpu_machine_type_problem(value)
    if problem:
        raise fail("machine", problem)
    return value


# A pinned Compute Engine disk image: `global/images/NAME` or `projects/PROJECT/global/images/NAME`
# (an image *family* floats to the newest image, so it is refused: the cache must not change under a pool).
_DISK_IMAGE = _pattern(r"(?:(?:https://www\.googleapis\.com/compute/v1/)?projects/[a-z][-a-z0-9.:]{4,62}/)?"
                       r"global/images/(?P<name>[^/]+)")
_IMAGE_NAME = dns_1035_label("a Compute Engine image name")


def _disk_image(value: str) -> str:
    """A secondary boot disk's image must be one named image (pinned), never a family."""
    if "/images/family/" in value:
        raise fail("disk_image", "names an image family, which moves to each new image; give one pinned image, "
                   "projects/PROJECT/global/images/NAME (docs/at-scale.md shows how to build it)")
    match = _DISK_IMAGE.match(value)
    if not match or not _IMAGE_NAME.matches(match["name"]):
        raise fail("disk_image", "is not a Compute Engine disk image; write projects/PROJECT/global/images/NAME "
                   "(or global/images/NAME in the stack's project)")
    return value


# A network or subnetwork: a name (RFC 1035, at most 63), or a self link, optionally as a full URL
# (https://cloud.google.com/compute/docs/naming-resources; the self links of
# https://cloud.google.com/compute/docs/reference/rest/v1/networks and .../subnetworks)
_COMPUTE_URL = r"(?:https://(?:www\.googleapis\.com|compute\.googleapis\.com)/compute/(?:v1|beta)/)?"
_RESOURCE_NAME = r"[a-z](?:[-a-z0-9]{0,61}[a-z0-9])?"
NETWORK_LINK = _pattern(rf"{_COMPUTE_URL}projects/(?P<project>{_PROJECT_ID})/global/networks/(?P<name>{_RESOURCE_NAME})")
SUBNETWORK_LINK = _pattern(rf"{_COMPUTE_URL}projects/(?P<project>{_PROJECT_ID})/regions/(?P<region>[a-z]+-[a-z]+[0-9]+)"
                           rf"/subnetworks/(?P<name>{_RESOURCE_NAME})")
RESOURCE_NAME = _pattern(_RESOURCE_NAME)


def _network(value: str) -> str:
    if not (RESOURCE_NAME.match(value) or NETWORK_LINK.match(value)):
        raise fail("network", "is not a VPC network: a name (lower-case letters, digits and '-', starting with a "
                   "letter, at most 63 characters) or a self link projects/PROJECT/global/networks/NAME")
    return value


def _subnetwork(value: str) -> str:
    if not (RESOURCE_NAME.match(value) or SUBNETWORK_LINK.match(value)):
        raise fail("network", "is not a subnetwork: a name (lower-case letters, digits and '-', starting with a "
                   "letter, at most 63 characters) or a self link projects/PROJECT/regions/REGION/subnetworks/NAME")
    return value


def _cidr_block(value: str) -> str:
    """An authorized network: IPv4 with an explicit prefix length, no host bits (GKE's
    masterAuthorizedNetworksConfig.cidrBlocks take IPv4 CIDR blocks)."""
    if "/" not in value:
        raise fail("cidr", "has no prefix length; write a CIDR block such as 203.0.113.0/24 (a single address is "
                   "/32)")
    try:
        network = ipaddress.ip_network(value)
    except ValueError:
        raise fail("cidr", "is not an IPv4 CIDR block (e.g. 203.0.113.0/24; no host bits after the prefix)") from None
    if network.version != 4:
        raise fail("cidr", "is an IPv6 block; GKE's authorized networks take IPv4 CIDR blocks only")
    return value


def _control_plane_cidr(value: str) -> str:
    try:
        network = ipaddress.IPv4Network(value)
    except ValueError:
        raise fail("cidr", "is not an IPv4 CIDR block (e.g. 172.16.0.32/28)") from None
    if network.prefixlen != 28 or not network.is_private:
        raise fail("cidr", "must be a private /28 (GKE's control-plane range, e.g. 172.16.0.32/28)")
    return value


ProjectId = Annotated[str, AfterValidator(PROJECT_ID)]
ProjectNumber = Annotated[str, BeforeValidator(_project_number)]
ServiceAccountEmail = Annotated[str, AfterValidator(SERVICE_ACCOUNT_EMAIL)]


def _node_service_account(value: str) -> str:
    if COMPUTE_DEFAULT_SERVICE_ACCOUNT.match(value) or SERVICE_ACCOUNT_EMAIL.matches(value):
        return value
    raise fail("service_account_email", "is not a GCP service-account email a node can run as: "
               "name@project.iam.gserviceaccount.com, or the Compute Engine default "
               "PROJECT_NUMBER-compute@developer.gserviceaccount.com")


NodeServiceAccountEmail = Annotated[str, AfterValidator(_node_service_account)]
BucketName = Annotated[str, AfterValidator(_bucket)]
BucketLocation = Annotated[str, AfterValidator(_bucket_location)]  # upper-cased, as Cloud Storage reports it
GcsPath = Annotated[str, AfterValidator(_gcs_path)]
Location = Annotated[str, AfterValidator(_location)]
Zone = Annotated[str, AfterValidator(Syntax("zone", ZONE, "is not a GCP zone (e.g. us-east5-b)"))]
TpuZone = Annotated[str, AfterValidator(Syntax("zone", ZONE, "is not a GCP zone (e.g. us-east5-b); TPU slices "
                                               "live in one zone"))]
GkeVersion = Annotated[str, AfterValidator(_gke_version)]
CpuMachineType = Annotated[str, AfterValidator(_cpu_machine_type)]
DiskImage = Annotated[str, AfterValidator(_disk_image)]
CidrBlock = Annotated[str, AfterValidator(_cidr_block)]
Network = Annotated[str, AfterValidator(_network)]
Subnetwork = Annotated[str, AfterValidator(_subnetwork)]
ControlPlaneCidr = Annotated[str, AfterValidator(_control_plane_cidr)]
# projects/PROJECT/notificationChannels/ID (what gcp.monitoring.AlertPolicy.notification_channels takes)
NotificationChannels = Annotated[list[str], AfterValidator(Syntax(
    "channel", _pattern(rf"projects/{_PROJECT_ID}/notificationChannels/[0-9]+"),
    "is not a notification channel; write projects/PROJECT/notificationChannels/ID (gcloud beta monitoring "
    "channels list)").each)]


def region_of(location: str) -> str:
    """`us-east5-b` -> `us-east5`; a region is returned unchanged."""
    return location.rsplit("-", 1)[0] if ZONE.match(location) else location


def gsa_project(email: str) -> str:
    """Project of a user-managed service account, from its email."""
    match = SERVICE_ACCOUNT_EMAIL.pattern.match(email)
    if not match:
        raise ValueError(f"{email!r} is not a user-managed service-account email")
    return match.group(1)


# --- times (GKE maintenance policy) -------------------------------------------------------------------------

RFC3339 = _pattern(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})")


def _timestamp(value: Any) -> Any:
    """RFC 3339 text; a YAML timestamp PyYAML turned into a datetime is written back as one."""
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text + ("" if value.tzinfo else "Z")
    return value


Rfc3339 = Annotated[str, BeforeValidator(_timestamp), AfterValidator(Syntax(
    "time", RFC3339, "is not an RFC 3339 time (e.g. 2026-12-01T00:00:00Z)"))]


def _rrule(value: str) -> str:
    """The RRULE subset GKE's maintenance windows take (gke_rules.parse_rrule says what is wrong)."""
    try:
        parse_rrule(value)
    except ValueError as error:
        raise fail("recurrence", f"is not an RFC 5545 RRULE GKE takes: {error} (e.g. FREQ=WEEKLY;BYDAY=SA,SU, "
                   "FREQ=DAILY)") from None
    return value


RRule = Annotated[str, AfterValidator(_rrule)]


# --- images and releases -----------------------------------------------------------------------------------

# The OCI distribution reference grammar (distribution/reference, reference.go): [domain[:port]/]path[:tag][@digest]
# where a path component is [a-z0-9]+ joined by '.', '_', '__' or '-'+, a tag [A-Za-z0-9_][A-Za-z0-9_.-]{0,127},
# the name at most 255 characters, and the first component a domain only when it has '.' or ':' or is localhost.
_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"
_DOMAIN = rf"(?:{_DOMAIN_COMPONENT}(?:\.{_DOMAIN_COMPONENT})*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?"
_PATH_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
IMAGE = _pattern(rf"(?P<name>(?:(?P<domain>{_DOMAIN})/)?{_PATH_COMPONENT}(?:/{_PATH_COMPONENT})*)"
                 r"(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}))?"
                 r"(?:@(?P<digest>[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}))?")
IMAGE_TAG = _pattern(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}")  # a Docker tag
RELEASE_TAG = _pattern(r"v[0-9]+\.[0-9]+\.[0-9]+")


def image_reference_problem(value: str) -> Optional[str]:
    """What the OCI reference grammar refuses in `value`, or None."""
    match = IMAGE.match(value)
    if not match:
        return ("is not a container image reference: [registry[:port]/]path[:tag][@sha256:digest], the path "
                "lower-case letters and digits joined by '.', '_' or '-', the tag at most 128 letters, digits, '_', "
                "'.' or '-' (no scheme such as https://)")
    if len(match["name"]) > 255:
        return "is not a container image reference: the repository name is longer than 255 characters"
    digest = match["digest"]
    if digest and digest.startswith("sha256:") and not re.fullmatch(r"sha256:[0-9a-f]{64}", digest):
        return "has a sha256 digest that is not 64 lower-case hex digits"
    return None


def image_is_pinned(image: str) -> bool:
    """A digest, or a tag other than `latest`."""
    match = IMAGE.match(image)
    if match is None:
        return False
    return bool(match["digest"]) or (match["tag"] is not None and match["tag"] != "latest")


def check_image(value: str) -> str:
    problem = image_reference_problem(value)
    if problem:
        raise fail("image", problem)
    if not image_is_pinned(value):
        raise fail("image", "is not pinned: give an explicit tag other than 'latest', or a @sha256 digest, "
                   "so every pod restart runs the same build")
    return value


ImageRef = Annotated[str, AfterValidator(check_image)]  # pinned: every pod restart runs the same build


# --- containers: environment, quantities, HTTP paths --------------------------------------------------------

ENV_NAME = Syntax("env", _pattern(r"[A-Za-z_][A-Za-z0-9_]*"),
                  "is not an environment variable name (letters, digits, '_', not starting with a digit)")


def check_env(env: dict[str, str]) -> dict[str, str]:
    return ENV_NAME.keys(env)


# values verbatim: the models strip whitespace from strings, but " " is a value a program may read
EnvVars = Annotated[dict[str, Annotated[str, StringConstraints(strip_whitespace=False)]], AfterValidator(check_env)]

# Kubernetes resource.Quantity, the subset a container uses
QUANTITY = _pattern(r"(?P<num>[0-9]+(\.[0-9]+)?)(?P<suffix>m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?")
_SUFFIX: dict[str, int | Decimal] = {"": 1, "m": Decimal("0.001"), "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
                                     "P": 10**15, "E": 10**18, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40,
                                     "Pi": 2**50, "Ei": 2**60}


def parse_quantity(text: str) -> Decimal:
    """`"8Gi"` -> bytes, `"500m"` -> 0.5; raises ValueError on anything Kubernetes would not accept here."""
    match = QUANTITY.match(str(text))
    if not match:
        raise ValueError(text)
    try:
        return Decimal(match["num"]) * Decimal(_SUFFIX[match["suffix"] or ""])
    except InvalidOperation:  # pragma: no cover - the regex already rules this out
        raise ValueError(text) from None


def _number_as_text(value: object) -> object:
    # YAML `cpu: 2` arrives as an int; Kubernetes quantities are strings.
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def positive_quantity(example: str) -> AfterValidator:
    def check(value: str) -> str:
        try:
            positive = parse_quantity(value) > 0
        except ValueError:
            positive = False
        if not positive:
            raise fail("quantity", f"is not a positive Kubernetes quantity (e.g. {example})")
        return value
    return AfterValidator(check)


CpuQuantity = Annotated[str, BeforeValidator(_number_as_text), positive_quantity("500m, 2")]
MemoryQuantity = Annotated[str, BeforeValidator(_number_as_text), positive_quantity("512Mi, 4Gi")]
HttpPath = Annotated[str, AfterValidator(Syntax(
    "path", _pattern(r"/[A-Za-z0-9._~!$&'()*+,;=:@%/\-]*(\?[A-Za-z0-9._~!$&'()*+,;=:@%/?\-]*)?"),
    "is not an HTTP path (starting with '/', no spaces)"))]
GcsFuseMountOptions = Annotated[list[str], AfterValidator(Syntax(
    "option", _pattern(r"[A-Za-z0-9][A-Za-z0-9_.:=\-]*"), "is not a gcsfuse mount option (e.g. implicit-dirs)").each)]

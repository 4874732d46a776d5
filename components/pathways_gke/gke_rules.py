"""The rulebook: what GKE, Compute Engine and the Pulumi engine enforce, as data plus checks.

Each rule is a `Rule` (what it forbids, the error it prevents, its primary source) and a pure check over
plain values that returns a message (what is wrong and how to fix it) or None. The config layer calls the
checks with config paths (config/checks.py, config/cluster.py); docs/gke-rules.md is generated from
`RULES` (python -m pathways_gke.docgen --write). No Pulumi import: tests, the offline plan and the diff all
read the same facts.

Version floors assume what a pinned `cluster.version` says. With no pinned version the release channel
decides, and every channel has served versions above these floors since 2026: an unpinned cluster is
assumed to meet them (GKE refuses the node pool otherwise).
"""

from __future__ import annotations

import bisect
import datetime
import re
from dataclasses import dataclass
from typing import Mapping, Optional

from .capacity import PROVISIONED_ON_DEMAND
from .catalog import ACCELERATOR_NETWORK_PROFILE_MIN_GKE, FLEX_START_TPU_MIN_GKE, GENERATIONS
from .naming import LABEL_PREFIX, MANAGED_GCE_LABELS, MANAGED_NODE_LABELS
from .tokens import GKE_CLUSTER, NODE_POOL


# --- versions ---------------------------------------------------------------------------------------------

# MAJOR.MINOR[.PATCH[-gke.N]]: a GKE version, or a prefix of one such as 1.34 (the config also reads it)
GKE_VERSION = re.compile(r"^([0-9]+)\.([0-9]+)(?:\.([0-9]+)(?:-gke\.([0-9]+))?)?$")


def parse_gke_version(version: str) -> tuple[int, ...]:
    """`1.34.1-gke.1829001` -> (1, 34, 1, 1829001); a prefix such as `1.34` -> (1, 34)."""
    match = GKE_VERSION.match(version.strip())
    if not match:
        raise ValueError(f"'{version}' is not a GKE version")
    return tuple(int(part) for part in match.groups() if part is not None)


# GKE's JobSet kube-state-metrics package, which managed Prometheus collects for the TPU dashboards and alerts
# (https://cloud.google.com/kubernetes-engine/docs/how-to/configure-metrics#jobset-metrics)
JOBSET_METRICS_MIN_GKE = "1.32.1-gke.1357001"


# kube_jobset_restarts (the restart alert) arrived per minor line: 1.32.4-gke.1767000 and 1.33.0-gke.1868000
# (https://cloud.google.com/kubernetes-engine/docs/how-to/kube-state-metrics#jobset-metrics, Required GKE version)
JOBSET_RESTARTS_MIN_GKE = ("1.32.4-gke.1767000", "1.33.0-gke.1868000")
# GCS FUSE volumes on hostNetwork pods (`hostNetworkPodKSA`): gcs-fuse-csi-driver docs/releases.md, GKE
# 1.33.3-gke.1226000 (https://cloud.google.com/kubernetes-engine/docs/how-to/persistent-volumes/cloud-storage-fuse-csi-driver-setup)
GCS_FUSE_HOST_NETWORK_MIN_GKE = "1.33.3-gke.1226000"
# Multi-tier checkpointing: "Multi-Tier Checkpointing requires GKE cluster version 1.32.4-gke.1415000 or later"
# (https://cloud.google.com/kubernetes-engine/docs/how-to/machine-learning/training/multi-tier-checkpointing,
# Requirements; read 2026-11). Autopilot is not supported (same page, Limitations).
MTC_MIN_GKE = "1.32.4-gke.1415000"


def below_line_floors(version: str, floors: tuple[str, ...]) -> bool:
    """True when `version` cannot meet a feature that arrived in several minor lines at once (`floors`, one per
    line): its own line's floor, or no line at all when it is older than the first one. A later line meets it."""
    pinned = parse_gke_version(version)
    lines = sorted(floors, key=parse_gke_version)
    for floor in lines:
        if pinned[:2] == parse_gke_version(floor)[:2]:
            return below_floor(version, floor)
    return pinned[:2] < parse_gke_version(lines[0])[:2]


def below_floor(version: str, floor: str) -> bool:
    """True when every version `version` can mean is older than `floor`.

    A prefix (`1.34`, `1.34.0`) lets GKE pick a patch of it; it is below the floor only when no patch
    can reach it (`1.33` < 1.34.0-gke.2201000, but `1.34` may resolve to 1.34.0-gke.2201000 or later).
    """
    pinned, need = parse_gke_version(version), parse_gke_version(floor)
    return pinned < need[:len(pinned)]


# --- disks by machine family ------------------------------------------------------------------------------

HYPERDISK_ONLY_FAMILIES = ("n4", "n4a", "n4d", "c4", "c4a", "c4d", "h4d", "m4", "x4")
PD_DISK_TYPES = ("pd-standard", "pd-balanced", "pd-ssd")


def machine_family(machine_type: str) -> str:
    return machine_type.split("-", 1)[0]


def hyperdisk_only(machine_type: str) -> bool:
    return machine_family(machine_type) in HYPERDISK_ONLY_FAMILIES


def default_disk_type(machine_type: str) -> str:
    """hyperdisk-balanced where a family supports no Persistent Disk, else pd-balanced."""
    return "hyperdisk-balanced" if hyperdisk_only(machine_type) else "pd-balanced"


def disk_type_problem(machine_type: str, disk_type: Optional[str]) -> Optional[str]:
    if disk_type in PD_DISK_TYPES and hyperdisk_only(machine_type):
        return (f"is a Persistent Disk type; {machine_family(machine_type).upper()} machines ({machine_type}) boot "
                "from Hyperdisk only and GKE refuses the node pool; use hyperdisk-balanced (or leave diskType "
                "unset: it defaults to hyperdisk-balanced for this family)")
    return None


# Boot disks of TPU hosts by generation: Cloud TPU's disk-support table ("Attach durable block storage to a TPU
# VM", https://cloud.google.com/tpu/docs/setup-persistent-disk) gives Hyperdisk Balanced (and Hyperdisk ML, not a
# boot disk) for v6e and Balanced Persistent Disk only for v5p, v5e and v4. tpu7x (not on the Cloud TPU API) boots
# from Hyperdisk Balanced as the Compute Engine TPU7x machine series and Cluster Toolkit's tpu7x blueprints do.
TPU_BOOT_DISK_TYPES: Mapping[str, tuple[str, ...]] = {
    "v4": ("pd-balanced",), "v5e": ("pd-balanced",), "v5p": ("pd-balanced",),
    "v6e": ("hyperdisk-balanced",), "tpu7x": ("hyperdisk-balanced",),
}


def tpu_disk_type_problem(generation: str, disk_type: Optional[str]) -> Optional[str]:
    allowed = TPU_BOOT_DISK_TYPES.get(generation)
    if disk_type is None or allowed is None or disk_type in allowed:
        return None
    return (f"is not a boot disk {generation} TPU hosts take; {generation} supports {' / '.join(allowed)} (Cloud "
            "TPU's disk support by version); use it or leave diskType unset for GKE's default")


# --- release channel and auto-upgrade ---------------------------------------------------------------------

def auto_upgrade_problem(release_channel: Optional[str], auto_upgrade: bool) -> Optional[str]:
    if auto_upgrade or release_channel in (None, "UNSPECIFIED"):
        return None
    return (f"cannot be false while the cluster is on release channel {release_channel}: GKE answers "
            f"'400 Auto_upgrade cannot be false when release_channel {release_channel} is set'. Keep it true and "
            "hold upgrades with cluster.maintenance (exclusions: [{name, startTime}] — scope "
            "NO_MINOR_OR_NODE_UPGRADES until end of support — and a window), or set cluster.releaseChannel: "
            "UNSPECIFIED")


# --- version floors ---------------------------------------------------------------------------------------

def version_floors(generation: str, capacity: str, network_profile: bool) -> list[tuple[str, str]]:
    """(floor, what needs it) for one TPU pool group."""
    out = []
    gen = GENERATIONS[generation]
    if gen.min_gke_version:
        out.append((gen.min_gke_version, f"{gen.name} node pools"))
    if network_profile:
        out.append((ACCELERATOR_NETWORK_PROFILE_MIN_GKE, "the accelerator network profile"))
    if capacity in PROVISIONED_ON_DEMAND:
        out.append((FLEX_START_TPU_MIN_GKE, f"{capacity} TPU pools (flex-start)"))
    return out


def version_floor_problems(version: Optional[str], floors: list[tuple[str, str]]) -> list[str]:
    if version is None:
        return []  # the channel's current versions are assumed to meet the floors (module docstring)
    return [f"'{version}' is below GKE {floor}, the first version that supports {what}; pin cluster.version to "
            f"{floor} or later, or leave it unset to take the release channel's current version"
            for floor, what in floors if below_floor(version, floor)]


# --- maintenance policy ------------------------------------------------------------------------------------
# GKE maintenance windows and exclusions
# (https://cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions,
# https://cloud.google.com/kubernetes-engine/docs/how-to/maintenance-windows-and-exclusions): a window must allow
# at least 48 hours of maintenance in any rolling 32 days, counting only contiguous availability of 4 hours or
# more; day-of-week recurrences are evaluated in UTC. A NO_UPGRADES exclusion lasts at most 30 days; a cluster
# holds at most 3 of them and at most 20 exclusions in all (terraform-provider-google
# resource_container_cluster.go: maintenance_exclusion MaxItems 20); exclusions are keyed by name.

MAINTENANCE_MIN_HOURS = 48
MAINTENANCE_ROLLING_DAYS = 32
MAINTENANCE_MIN_CONTIGUOUS_HOURS = 4
NO_UPGRADES_MAX_DAYS = 30
NO_UPGRADES_MAX_COUNT = 3
MAINTENANCE_EXCLUSIONS_MAX = 20
WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
RRULE_PARTS = ("FREQ", "INTERVAL", "BYDAY", "BYMONTHDAY", "WKST")
_BYDAY = re.compile(r"^([+-]?[1-5])?(MO|TU|WE|TH|FR|SA|SU)$")


@dataclass(frozen=True)
class Recurrence:
    """The subset of an RFC 5545 RRULE a maintenance window uses (FREQ, INTERVAL, BYDAY, BYMONTHDAY)."""

    freq: str
    interval: int = 1
    by_day: tuple[tuple[Optional[int], int], ...] = ()  # (ordinal in the month or None, weekday 0=MO)
    by_month_day: tuple[int, ...] = ()


def parse_rrule(text: str) -> Recurrence:
    """`FREQ=WEEKLY;BYDAY=SA,SU` -> Recurrence; ValueError saying what is allowed otherwise."""
    parts: dict[str, str] = {}
    for item in text.strip().split(";"):
        key, eq, value = item.partition("=")
        if not eq or not value:
            raise ValueError(f"'{item}' is not KEY=VALUE")
        if key not in RRULE_PARTS:
            raise ValueError(f"part '{key}' is not supported; allowed: {', '.join(RRULE_PARTS)}")
        if key in parts:
            raise ValueError(f"part '{key}' is given twice")
        parts[key] = value
    freq = parts.get("FREQ")
    if freq not in ("DAILY", "WEEKLY", "MONTHLY"):
        raise ValueError("needs FREQ=DAILY, FREQ=WEEKLY or FREQ=MONTHLY first")
    if not text.startswith("FREQ="):
        raise ValueError("must start with FREQ=")
    interval = parts.get("INTERVAL", "1")
    if not re.fullmatch(r"[1-9][0-9]{0,2}", interval):
        raise ValueError(f"INTERVAL '{interval}' is not a positive whole number")
    by_day: list[tuple[Optional[int], int]] = []
    for day in parts.get("BYDAY", "").split(",") if "BYDAY" in parts else []:
        match = _BYDAY.match(day)
        if not match:
            raise ValueError(f"BYDAY '{day}' is not a weekday; weekdays are two letters: {', '.join(WEEKDAYS)} "
                             "(FREQ=MONTHLY also takes an ordinal, e.g. 1SA or -1SU)")
        if match[1] and freq != "MONTHLY":
            raise ValueError(f"BYDAY '{day}' has an ordinal, which only FREQ=MONTHLY takes")
        by_day.append((int(match[1]) if match[1] else None, WEEKDAYS.index(match[2])))
    by_month_day: list[int] = []
    for day in parts.get("BYMONTHDAY", "").split(",") if "BYMONTHDAY" in parts else []:
        if not re.fullmatch(r"-?(?:[1-9]|[12][0-9]|3[01])", day):
            raise ValueError(f"BYMONTHDAY '{day}' is not a day of the month (1..31 or -31..-1)")
        by_month_day.append(int(day))
    if by_month_day and freq != "MONTHLY":
        raise ValueError("BYMONTHDAY applies to FREQ=MONTHLY only")
    if "WKST" in parts and parts["WKST"] not in WEEKDAYS:
        raise ValueError(f"WKST '{parts['WKST']}' is not a weekday ({', '.join(WEEKDAYS)})")
    return Recurrence(freq, int(interval), tuple(by_day), tuple(by_month_day))


def parse_rfc3339(text: str) -> datetime.datetime:
    """An RFC 3339 time (the config's `Rfc3339` values) as an aware UTC datetime."""
    value = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=datetime.timezone.utc)
    return value.astimezone(datetime.timezone.utc)


def _occurs_on(rule: Recurrence, first: datetime.date, day: datetime.date) -> bool:
    """Whether a recurrence that starts on `first` has an occurrence on `day` (day >= first)."""
    weekday = day.weekday()
    if rule.freq == "DAILY":
        return (day - first).days % rule.interval == 0 and (
            not rule.by_day or any(w == weekday for _, w in rule.by_day))
    if rule.freq == "WEEKLY":
        week = ((day - datetime.timedelta(days=weekday)) - (first - datetime.timedelta(days=first.weekday()))).days // 7
        days = [w for _, w in rule.by_day] or [first.weekday()]
        return week % rule.interval == 0 and weekday in days
    months = (day.year - first.year) * 12 + day.month - first.month
    if months % rule.interval:
        return False
    last = (datetime.date(day.year + day.month // 12, day.month % 12 + 1, 1) - datetime.timedelta(days=1)).day
    if rule.by_month_day and not any(d == day.day or (d < 0 and last + d + 1 == day.day)
                                     for d in rule.by_month_day):
        return False
    if rule.by_day:
        nth, nth_last = (day.day - 1) // 7 + 1, -((last - day.day) // 7 + 1)
        return any(w == weekday and n in (None, nth, nth_last) for n, w in rule.by_day)
    return bool(rule.by_month_day) or day.day == first.day


def maintenance_availability_hours(start: str, end: str, recurrence: str) -> float:
    """The least maintenance availability, in hours, that any rolling 32 days gets from a recurring window,
    counting only contiguous availability of at least 4 hours (occurrences that touch or overlap are one)."""
    rule = parse_rrule(recurrence)
    first_start, first_end = parse_rfc3339(start), parse_rfc3339(end)
    length = first_end - first_start
    rolling = datetime.timedelta(days=MAINTENANCE_ROLLING_DAYS)
    horizon = 400 + MAINTENANCE_ROLLING_DAYS  # more than a year: every month length, and a leap day
    occurrences: list[list[datetime.datetime]] = []
    for offset in range(horizon):
        day = first_start.date() + datetime.timedelta(days=offset)
        if not _occurs_on(rule, first_start.date(), day):
            continue
        begin = datetime.datetime.combine(day, first_start.timetz())
        if occurrences and begin <= occurrences[-1][1]:
            occurrences[-1][1] = max(occurrences[-1][1], begin + length)
        else:
            occurrences.append([begin, begin + length])
    floor = datetime.timedelta(hours=MAINTENANCE_MIN_CONTIGUOUS_HOURS)
    counted = [(a.timestamp(), b.timestamp()) for a, b in occurrences if b - a >= floor]
    starts, ends = [a for a, _ in counted], [b for _, b in counted]
    cumulative = [0.0]
    for a, b in counted:
        cumulative.append(cumulative[-1] + b - a)
    span = rolling.total_seconds()
    first, last = first_start.timestamp(), (first_start + datetime.timedelta(days=horizon) - rolling).timestamp()

    def covered(at: float) -> float:
        """Seconds of counted availability in [at, at + 32 days] (intervals are sorted and disjoint)."""
        until = at + span
        i, j = bisect.bisect_right(ends, at), bisect.bisect_left(starts, until) - 1
        if i > j:
            return 0.0
        return cumulative[j + 1] - cumulative[i] - max(0.0, at - starts[i]) - max(0.0, ends[j] - until)

    # the coverage of a sliding interval is least where the interval starts as availability ends, or ends as
    # availability starts
    candidates = [first] + ends + [a - span for a in starts]
    return min(covered(at) for at in candidates if first <= at <= last) / 3600


def maintenance_window_problem(start: str, end: str, recurrence: str) -> Optional[str]:
    """GKE's rules for a recurring window (module comment above), or None."""
    length = parse_rfc3339(end) - parse_rfc3339(start)
    if length <= datetime.timedelta(0):
        return f"endTime {end} is not after startTime {start}; the first window's end must follow its start"
    hours = maintenance_availability_hours(start, end, recurrence)
    if hours < MAINTENANCE_MIN_HOURS:
        short = (f"; a window of {length.total_seconds() / 3600:g} h is below the {MAINTENANCE_MIN_CONTIGUOUS_HOURS} h "
                 "GKE counts" if length < datetime.timedelta(hours=MAINTENANCE_MIN_CONTIGUOUS_HOURS) else "")
        return (f"allows {hours:g} h of maintenance in some 32 days ({recurrence}, {length.total_seconds() / 3600:g} h "
                f"from {parse_rfc3339(start):%H:%M} UTC){short}; GKE requires at least {MAINTENANCE_MIN_HOURS} h in any "
                f"rolling {MAINTENANCE_ROLLING_DAYS} days, counting only contiguous windows of "
                f"{MAINTENANCE_MIN_CONTIGUOUS_HOURS} h or more: lengthen the window or add days (e.g. 8 h on "
                "FREQ=WEEKLY;BYDAY=SA,SU gives 64 h)")
    return None


def maintenance_exclusion_problem(scope: str, start: str, end: Optional[str]) -> Optional[str]:
    if end is None:
        return None
    length = parse_rfc3339(end) - parse_rfc3339(start)
    if length <= datetime.timedelta(0):
        return f"endTime {end} is not after startTime {start}"
    if scope == "NO_UPGRADES" and length > datetime.timedelta(days=NO_UPGRADES_MAX_DAYS):
        return (f"makes a NO_UPGRADES exclusion of {length.total_seconds() / 86400:g} days; GKE allows at most "
                f"{NO_UPGRADES_MAX_DAYS} days for that scope: end it by "
                f"{parse_rfc3339(start) + datetime.timedelta(days=NO_UPGRADES_MAX_DAYS):%Y-%m-%dT%H:%M:%SZ}, or use "
                "scope NO_MINOR_UPGRADES / NO_MINOR_OR_NODE_UPGRADES (up to the version's end of support)")
    return None


# --- labels -----------------------------------------------------------------------------------------------

RESERVED_NODE_LABEL_DOMAINS = ("kubernetes.io", "k8s.io", "cloud.google.com")


def node_label_problem(key: str) -> Optional[str]:
    """A node label key GKE refuses or overwrites, or one pathways-gke sets itself."""
    if key in MANAGED_NODE_LABELS:
        return (f"node label '{key}' is set by pathways-gke (the workloads and Kueue select on it) and cannot be "
                "overridden; choose another key")
    if key.startswith(LABEL_PREFIX):
        return (f"node label '{key}' uses the prefix '{LABEL_PREFIX}', which is reserved for the labels pathways-gke "
                f"sets ({', '.join(k for k in MANAGED_NODE_LABELS if k.startswith(LABEL_PREFIX))}, ...); choose "
                "another key")
    prefix, slash, _ = key.rpartition("/")
    if slash:
        for domain in RESERVED_NODE_LABEL_DOMAINS:
            if prefix == domain or prefix.endswith("." + domain):
                return (f"node label '{key}' uses the prefix '{prefix}/', which GKE and Kubernetes manage (GKE "
                        f"refuses or overwrites it); not allowed: {', '.join(d + '/' for d in RESERVED_NODE_LABEL_DOMAINS)} "
                        "and their subdomains; use your own prefix, e.g. example.com/team")
    return None


GCE_LABEL_LIMIT = 64
GCE_LABEL_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
GCE_LABEL_VALUE = re.compile(r"^[a-z0-9_-]{0,63}$")


def gce_label_problems(labels: Mapping[str, object], reserved: int = len(MANAGED_GCE_LABELS)) -> list[str]:
    """Compute Engine label rules; `reserved` labels are added by pathways-gke on every resource."""
    out = []
    if len(labels) + reserved > GCE_LABEL_LIMIT:
        out.append(f"has {len(labels)} labels; GCE allows {GCE_LABEL_LIMIT} per resource and pathways-gke adds "
                   f"up to {reserved} ({', '.join(MANAGED_GCE_LABELS)}): at most {GCE_LABEL_LIMIT - reserved}")
    for key, value in labels.items():
        if key in MANAGED_GCE_LABELS:
            out.append(f"label key '{key}' is set by pathways-gke; choose another key")
        elif not GCE_LABEL_KEY.match(str(key)):
            out.append(f"label key '{key}' must be lower-case letters, digits, '_' or '-', start with a letter, "
                       "at most 63 characters")
        if not GCE_LABEL_VALUE.match(str(value)):
            out.append(f"label '{key}' value '{value}' must be lower-case letters, digits, '_' or '-', at most 63 "
                       "characters")
    return out


# --- fields GKE fills in, timeouts ------------------------------------------------------------------------

# Force-new node-pool inputs that GKE populates on TPU slice pools and reports back: a config that does not
# declare them would plan a replacement of every slice on the next update. One source for the pools'
# ignoreChanges and for the diff's warning. Audited against the provider's force-new list and not ignored:
# shieldedInstanceConfig, metadata, oauthScopes, serviceAccount, spot, flexStart, reservationAffinity,
# hostMaintenancePolicy, maxPodsPerNode, queuedProvisioning, networkConfig (we always send them, and GKE stores
# what we send); kubeletConfig and upgradeSettings (ignored by vllm) update in place, they never replace.
SERVER_FILLED_TPU_FIELDS: Mapping[str, str] = {
    "nodeConfig.advancedMachineFeatures": "GKE sets threads_per_core on ct5*/ct6e/tpu7x hosts "
                                          "(cloud-foundation-fabric#3972, terraform-google-kubernetes-engine#2304)",
    "nodeConfig.guestAccelerators": "ignored on TPU pools by vllm-project/ci-infra workers.tf (unverified)",
}
# tpu7x pools with a workload policy: GKE stores no placement type and derives the topology from the policy.
SERVER_FILLED_WORKLOAD_POLICY_FIELDS: Mapping[str, str] = {
    "placementPolicy.type": "stored empty for a workload-policy pool (vllm-project/ci-infra PR #547)",
    "placementPolicy.tpuTopology": "derived from the workload policy's acceleratorTopology (GKE Ironwood page)",
}

PROVIDER_DEFAULT_TIMEOUT_MINUTES: Mapping[str, int] = {
    NODE_POOL: 120,
    GKE_CLUSTER: 90,
}


def duration_minutes(text: str) -> float:
    """A Pulumi custom-timeout string (`90m`, `2h`, `1h30m`, `45s`) in minutes."""
    total, found = 0.0, False
    for amount, unit in re.findall(r"([0-9.]+)(h|m|s)", text):
        total += float(amount) * {"h": 60, "m": 1, "s": 1 / 60}[unit]
        found = True
    if not found:
        raise ValueError(f"'{text}' is not a duration")
    return total


# --- the rulebook --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Rule:
    id: str
    rule: str  # what we refuse (or do) and where
    prevents: str  # GKE's error / the effect it prevents
    source: str  # primary source


RULES: tuple[Rule, ...] = (
    Rule("auto-upgrade-channel",
         "`tpuPools[i].autoUpgrade: false` only with `cluster.releaseChannel: UNSPECIFIED`; keep slices from being "
         "upgraded with `cluster.maintenance` (exclusion scope NO_MINOR_OR_NODE_UPGRADES until end of support, "
         "and a window)",
         "400 Auto_upgrade cannot be false when release_channel REGULAR is set",
         "https://cloud.google.com/kubernetes-engine/docs/concepts/release-channels ; "
         "terraform-google-kubernetes-engine PR #682"),
    Rule("tpu7x-version", "tpu7x pools need a pinned `cluster.version` of at least "
         f"{GENERATIONS['tpu7x'].min_gke_version}",
         "node-pool create fails", "https://cloud.google.com/kubernetes-engine/docs/concepts/tpus (TPU Ironwood)"),
    Rule("network-profile-version", "the accelerator network profile (`networkProfile`, v6e's default) needs a "
         f"pinned `cluster.version` of at least {ACCELERATOR_NETWORK_PROFILE_MIN_GKE} and Dataplane V2",
         "node-pool create fails",
         "GoogleCloudPlatform/cluster-toolkit modules/compute/gke-node-pool/main.tf (preconditions)"),
    Rule("flex-start-version", "flex-start and queued TPU pools need a pinned `cluster.version` of at least "
         f"{FLEX_START_TPU_MIN_GKE}, and a generation that supports flex-start (not v4)",
         "node-pool create fails",
         "https://cloud.google.com/kubernetes-engine/docs/how-to/tpu-flex-start"),
    Rule("jobset-metrics-version", "`observability.managedPrometheus` (on by default) collects GKE's JobSet "
         f"metrics package, which needs a pinned `cluster.version` of at least {JOBSET_METRICS_MIN_GKE}",
         "cluster update fails: the monitoring component is not available on that version",
         "https://cloud.google.com/kubernetes-engine/docs/how-to/configure-metrics#jobset-metrics"),
    Rule("jobset-restarts-version", "`observability.alerts` (the restart alert reads `kube_jobset_restarts`) needs "
         "a pinned `cluster.version` of at least " + " / ".join(JOBSET_RESTARTS_MIN_GKE) + " (per minor line); an "
         "adopted cluster's running version is checked at preview",
         "an alert policy on a metric the cluster never exports: restarts go unnoticed",
         "https://cloud.google.com/kubernetes-engine/docs/how-to/kube-state-metrics#jobset-metrics"),
    Rule("gcs-fuse-host-network-version", "GCS FUSE volumes on hostNetwork pods (every Pathways JobSet pod: "
         f"`hostNetworkPodKSA`) need a pinned `cluster.version` of at least {GCS_FUSE_HOST_NETWORK_MIN_GKE} (an "
         "adopted cluster's running version at preview)",
         "the FUSE sidecar cannot authenticate: the volume never mounts and the pods stay ContainerCreating",
         "GoogleCloudPlatform/gcs-fuse-csi-driver docs/releases.md, docs/authentication.md"),
    Rule("mtc-version", "multi-tier checkpointing (`cluster.multiTierCheckpointing`) needs a pinned "
         f"`cluster.version` of at least {MTC_MIN_GKE} (an adopted cluster's running version and its "
         "HighScaleCheckpointing add-on at preview)",
         "the add-on is not offered below it: the CheckpointConfiguration kind does not exist and the workloads' "
         "RAM-disk volumes never mount",
         "https://cloud.google.com/kubernetes-engine/docs/how-to/machine-learning/training/multi-tier-checkpointing"),
    Rule("hyperdisk-only", "Hyperdisk-only machine families (" + ", ".join(HYPERDISK_ONLY_FAMILIES) + ") boot from "
         "`hyperdisk-balanced` (the default for them) and refuse `pd-*` disk types",
         "node-pool create fails: the machine type does not support the disk type",
         "https://cloud.google.com/compute/docs/disks/hyperdisks#machine-type-support"),
    Rule("tpu-boot-disk", "TPU pools' `diskType` per generation: "
         + "; ".join(f"{g} {'/'.join(t)}" for g, t in TPU_BOOT_DISK_TYPES.items()),
         "node-pool create fails: the TPU machine type does not support the disk type",
         "https://cloud.google.com/tpu/docs/setup-persistent-disk (TPU support for Hyperdisk and Persistent Disk); "
         "GoogleCloudPlatform/cluster-toolkit tpu7x examples (hyperdisk-balanced)"),
    Rule("node-label-prefix", "node labels may not use the prefixes GKE and Kubernetes manage (`kubernetes.io/`, "
         "`k8s.io/`, `cloud.google.com/`, including subdomains such as `node.kubernetes.io/`) nor a label "
         "pathways-gke manages (" + ", ".join(f"`{k}`" for k in MANAGED_NODE_LABELS) + f"; any `{LABEL_PREFIX}` key)",
         "400 on create; a user label replacing one the workers select on leaves the pods Pending",
         "https://cloud.google.com/kubernetes-engine/docs/how-to/update-existing-nodepools#labels"),
    Rule("gce-labels", "GCE resource labels: at most 64 per resource (ours included), keys start with a "
         "lower-case letter, keys and values at most 63 of `[a-z0-9_-]`; keys pathways-gke sets ("
         + ", ".join(f"`{k}`" for k in MANAGED_GCE_LABELS) + ") are refused",
         "400 invalid label", "https://cloud.google.com/compute/docs/labeling-resources#requirements"),
    Rule("create-only", "with `cluster.create: false` the fields that only shape a created cluster are refused, "
         "and the read cluster's Workload Identity pool, Dataplane V2 (network profile) and GCS FUSE CSI "
         "addon are checked at preview", "a silently ignored setting; pods that cannot start",
         "https://cloud.google.com/kubernetes-engine/docs/how-to/workload-identity"),
    Rule("tpu7x-placement", "tpu7x multi-host pools send the workload policy only (`placementPolicy.policyName`, "
         "type empty), never a COMPACT group placement; GKE's stored type and topology are ignored",
         "MIG error: placement policy with tpu7x is not supported, use workload policy",
         "https://cloud.google.com/kubernetes-engine/docs/concepts/tpus ; AI-Hypercomputer/xpk PR #676"),
    Rule("queued-recipe", "queued-provisioning pools: auto-repair off, autoscaling from 0, location policy ANY, "
         "NO_RESERVATION, flex-start; the ProvisioningRequest manages only the TPU pod set",
         "auto-repair re-creates a node outside its ProvisioningRequest; GKE accepts one PodSet",
         "https://cloud.google.com/kubernetes-engine/docs/how-to/provisioningrequest"),
    Rule("server-filled", "TPU slice pools ignore the force-new fields GKE fills in itself ("
         + ", ".join(f"`{f}`" for f in SERVER_FILLED_TPU_FIELDS) + "; tpu7x workload-policy pools also "
         + ", ".join(f"`{f}`" for f in SERVER_FILLED_WORKLOAD_POLICY_FIELDS) + "); the diff flags a replacement "
         "they would cause",
         "a later update plans a replacement of every slice", "vllm-project/ci-infra terraform/gcp_old/"
         "tpu-inference/k8s/workers.tf; cloud-foundation-fabric#3972"),
    Rule("delete-first", "resources with a fixed physical name that can be replaced are deleted before their "
         "successor is created", "409 already exists", "pulumi/pulumi docs: deleteBeforeReplace"),
    Rule("node-sa", "the node service account's id is `<cluster>-nodes-<hash of cluster and location>` (6-30 "
         "characters); the node pools wait for its role grants; the cluster's transient default pool runs as it "
         "(its nodeConfig drift ignored)", "409 for the same cluster name in a second region; image pulls and log "
         "writes failing before the grants propagate; cluster creation failing where the Compute Engine default "
         "account is disabled", "https://cloud.google.com/iam/docs/service-accounts-create ; Cluster Toolkit "
         "modules/scheduler/gke-cluster/main.tf"),
    Rule("maintenance-window", f"`cluster.maintenance.window` must allow at least {MAINTENANCE_MIN_HOURS} h of "
         f"maintenance in any rolling {MAINTENANCE_ROLLING_DAYS} days, counting only contiguous availability of "
         f"{MAINTENANCE_MIN_CONTIGUOUS_HOURS} h or more (computed from the RRULE and the first window, in UTC); "
         "the window ends after it starts; the RRULE is FREQ=DAILY/WEEKLY/MONTHLY with INTERVAL, BYDAY (two-letter "
         "weekdays MO..SU) and BYMONTHDAY only",
         "400 on cluster create/update: the maintenance policy does not allow enough availability",
         "https://cloud.google.com/kubernetes-engine/docs/how-to/maintenance-windows-and-exclusions ; "
         "RFC 5545 section 3.3.10"),
    Rule("maintenance-exclusions", f"exclusions have distinct names, at most {MAINTENANCE_EXCLUSIONS_MAX} per "
         f"cluster and at most {NO_UPGRADES_MAX_COUNT} of scope NO_UPGRADES, each of those at most "
         f"{NO_UPGRADES_MAX_DAYS} days long (with an endTime); every exclusion ends after it starts; the "
         "NO_MINOR_* scopes only with a release channel (not UNSPECIFIED)",
         "an exclusion silently replaced by another of the same name; 400 on create/update",
         "https://cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions ; "
         "terraform-provider-google resource_container_cluster.go (maintenance_exclusion MaxItems 20)"),
    Rule("input-names", "names GKE and GCP refuse are refused where they are written: authorized networks are IPv4 "
         "CIDR blocks with a prefix length, at most 50; bucket names follow Cloud Storage's rules (3-63 characters, "
         "up to 222 with dots and each part at most 63, not an IP address, no `goog` prefix, no `google` or a close "
         "misspelling); CPU machine types are FAMILY-KIND-VCPUS of a Compute Engine family; networks and "
         "subnetworks are RFC 1035 names or self links; project ids (also a reservation's) are 6-30 characters; "
         "images are OCI references (`[registry[:port]/]path[:tag][@digest]`, tags may be upper-case and end in "
         "`-`); the node service account may be the Compute Engine default",
         "400 on create after other resources were made; valid values refused",
         "https://cloud.google.com/storage/docs/buckets#naming ; https://cloud.google.com/compute/docs/naming-resources "
         "; https://cloud.google.com/kubernetes-engine/quotas ; distribution/reference reference.go"),
    Rule("shared-vpc-network", "`cluster.networkProject` needs `cluster.network` as a self link in that project "
         "(a plain name is looked up in the cluster's project); a subnetwork self link is in the cluster's region "
         "and the network's project; with `network` an Output and private nodes, `networkProject` is required "
         "(the router, NAT and firewall go to the network's project)",
         "a cluster on the wrong network; router, NAT and firewall created in the service project",
         "https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-shared-vpc"),
    Rule("timeouts", "custom timeouts never below the provider defaults (node pools 2 h, clusters 90 min)",
         "Pulumi gives up while GKE carries on", "terraform-provider-google resource_container_node_pool.go, "
         "resource_container_cluster.go"),
)

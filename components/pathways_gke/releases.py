"""Where each controller (JobSet, Kueue, LeaderWorkerSet) is released, the oldest version we support and why,
what each release manifest runs (the manager Deployment's replicas and requests) and the checks of a local copy of
a release manifest.

Pure data and functions at the bottom layer: the config models validate versions and manifests with it,
and addons/install.py builds the installs from it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .naming import JOBSET_CRD, JOBSET_NAMESPACE, KUEUE_NAMESPACE, LWS_CRD, LWS_NAMESPACE


@dataclass(frozen=True)
class Release:
    """One controller's upstream release artifacts (https://github.com/kubernetes-sigs/jobset/releases,
    https://github.com/kubernetes-sigs/kueue/releases)."""

    addon: str  # config section: jobset | kueue | lws
    url: str  # release manifest URL template, {version} = vX.Y.Z
    image: str  # controller image name (last path segment before the tag)
    namespace: str  # namespace the release manifest creates
    crd: str  # the CRD whose presence identifies the manifest
    oldest: str  # oldest version this project supports (see MINIMUM_REASON)
    default: str  # the release a stack gets without `<addon>.version` (the newest patch of a current minor)


RELEASES: dict[str, Release] = {
    "jobset": Release(
        addon="jobset",
        url="https://github.com/kubernetes-sigs/jobset/releases/download/{version}/manifests.yaml",
        image="jobset", namespace=JOBSET_NAMESPACE, crd=JOBSET_CRD, oldest="v0.8.0",
        # v0.12.0 (2026-05, kubernetes-sigs/jobset#1213); v0.13.0 not released as of 2026-09 (jobset#1317). Since
        # v0.10.1: the exclusive-placement race fix (jobset#1077 for #1057), in-place and per-Job restarts.
        default="v0.12.0",
    ),
    "kueue": Release(
        addon="kueue",
        url="https://github.com/kubernetes-sigs/kueue/releases/download/{version}/manifests.yaml",
        image="kueue", namespace=KUEUE_NAMESPACE, crd="clusterqueues.kueue.x-k8s.io", oldest="v0.17.0",
        # v0.19.5 (kubernetes-sigs/kueue#15458, images registry.k8s.io/kueue/kueue:v0.19.5): past v0.18.0, where
        # WorkloadIdentifierAnnotations went on by default (LWS names up to 52 characters, see LWS_LONG_NAMES_SINCE)
        default="v0.19.5",
    ),
    "lws": Release(
        addon="lws",
        url="https://github.com/kubernetes-sigs/lws/releases/download/{version}/manifests.yaml",
        image="lws", namespace=LWS_NAMESPACE, crd=LWS_CRD, oldest="v0.5.0",
        default="v0.10.0",  # the CRD validated in tests (../shared/reference/lws/v0.10.0)
    ),
}

MINIMUM_REASON = {
    "jobset": "v0.7.x release manifests run a kube-rbac-proxy sidecar whose image (gcr.io/kubebuilder/kube-rbac-proxy) "
              "was deleted from gcr.io, so the controller never becomes Ready and every JobSet create fails at the "
              "webhook (v0.8.0 dropped that sidecar); older ones lack the failurePolicy.restartStrategy the Pathways "
              "JobSet writes (v0.7+)",
    "kueue": "the queue objects use kueue.x-k8s.io/v1beta2, validated against the v0.17.1 and v0.19.2 CRDs",
    "lws": "v0.4.x release manifests run a kube-rbac-proxy sidecar whose image (gcr.io/kubebuilder/kube-rbac-proxy) "
           "was deleted from gcr.io, so the controller never becomes Ready and every LeaderWorkerSet create fails "
           "at the webhook; v0.5.0 dropped that sidecar and added the DNS-1035 name check the Service names rely on",
}

def version_key(version: str) -> tuple[int, ...]:
    """`v0.10.0` -> (0, 10, 0): release tags compared as numbers (the digits of each dotted part, e.g. `0-rc1` -> 0)."""
    parts = []
    for part in version.lstrip("v").split("."):
        digits = "".join(ch for ch in part.split("-")[0] if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def default_version(addon: str) -> str:
    """The release installed when the stack pins none (the config models' defaults read this)."""
    return RELEASES[addon].default


def release_description(addon: str, what: str) -> str:
    """The description of a version key, for the schema and generated docs: bounds and default from RELEASES, so a
    bumped default is never described by its predecessor."""
    return f'{what} (vMAJOR.MINOR.PATCH, >= {RELEASES[addon].oldest}; releases.py). Default: "{default_version(addon)}".'



# --- what each release manifest runs ---------------------------------------------------------------
#
# The controllers are installed from the release's manifests.yaml (a yaml/v2 ConfigFile fetched at `pulumi up`), so
# the plan does not hold their Deployments; the pod fit (fit.py) places them from these facts. Each release's
# manifests.yaml is `kustomize build config/default` (the repository's Makefile `artifacts` target): the Deployment
# is the manager component's manager.yaml with config/default's patches applied; only the patches named below add a
# container or change replicas or resources. One entry covers the releases from `since` up to the next entry;
# `through` is the newest tag read with the same numbers. A release newer than every `through` is placed with the
# newest entry's numbers (an upstream change there needs a new entry).


@dataclass(frozen=True)
class ContainerRequests:
    """One container of a controller's manager pod, with its resource requests and limits as the manifest has
    them (Kubernetes quantities; a missing request is its limit, as the API server defaults it)."""

    name: str
    requests: tuple[tuple[str, str], ...]
    limits: tuple[tuple[str, str], ...] = ()

    def resources(self) -> dict[str, dict[str, str]]:
        out = {"requests": dict(self.requests)}
        if self.limits:
            out["limits"] = dict(self.limits)
        return out


@dataclass(frozen=True)
class ControllerManifest:
    """The manager Deployment of one controller's release manifests, for the releases `since`..`through`."""

    addon: str
    since: str
    through: str
    deployment: str  # its name (the kustomize namePrefix + `controller-manager`)
    namespace: str
    replicas: int
    containers: tuple[ContainerRequests, ...]
    source: str  # where it was read (repository, tags, paths)


MANAGER = "manager"  # the controller container of all three manifests (addons/sizing.py sizes it)

CONTROLLER_MANIFESTS: dict[str, tuple[ControllerManifest, ...]] = {
    "jobset": (
        # v0.8.0 dropped the auth proxy patch; config/default's patches touch the manager's args, ports and mounts)
        ControllerManifest(
            addon="jobset", since="v0.8.0", through="v0.12.0", deployment="jobset-controller-manager",
            namespace=JOBSET_NAMESPACE, replicas=1,
            containers=(ContainerRequests(MANAGER, (("cpu", "500m"), ("memory", "128Mi")), (("memory", "4Gi"),)),),
            source="kubernetes-sigs/jobset v0.8.0..v0.12.0 config/components/manager/manager.yaml"),
    ),
    "kueue": (
        # kubernetes-sigs/kueue v0.17.0..v0.19.2 (and release-0.19 at c90ed700): config/components/manager/
        # manager.yaml (replicas 1, manager only; config/default's patches touch its args, ports and mounts)
        ControllerManifest(
            addon="kueue", since="v0.17.0", through="v0.19.2", deployment="kueue-controller-manager",
            namespace=KUEUE_NAMESPACE, replicas=1,
            containers=(ContainerRequests(MANAGER, (("cpu", "500m"), ("memory", "512Mi")),
                                          (("cpu", "2"), ("memory", "512Mi"))),),
            source="kubernetes-sigs/kueue v0.17.0..v0.19.2 config/components/manager/manager.yaml"),
    ),
    "lws": (
        # kubernetes-sigs/lws v0.5.0..v0.10.0: config/manager/manager.yaml (replicas 2, manager only, requests and
        # no limits; v0.5.0 dropped the v0.4 kube-rbac-proxy patch). No pod anti-affinity: both replicas may share
        # a node.
        ControllerManifest(
            addon="lws", since="v0.5.0", through="v0.10.0", deployment="lws-controller-manager",
            namespace=LWS_NAMESPACE, replicas=2,
            containers=(ContainerRequests(MANAGER, (("cpu", "1"), ("memory", "1Gi"))),),
            source="kubernetes-sigs/lws v0.5.0..v0.10.0 config/manager/manager.yaml"),
    ),
}


def controller_manifest(addon: str, version: str) -> ControllerManifest:
    """What the release manifest of `<addon> <version>` runs (the newest entry whose `since` is not newer)."""
    entries = [m for m in CONTROLLER_MANIFESTS[addon] if version_key(m.since) <= version_key(version)]
    if not entries:
        raise ValueError(f"{addon} {version} is older than {CONTROLLER_MANIFESTS[addon][0].since}, the oldest "
                         f"release whose manifest is recorded")
    return max(entries, key=lambda m: version_key(m.since))


# --- Kueue and LeaderWorkerSet names ----------------------------------------------------------------

# Kueue's LWS integration writes `kueue.x-k8s.io/pod-group-name` / `prebuilt-workload-name` labels derived from
# the LWS name ("leaderworkerset-<name>-<group>-<hash>"); for names over 39 characters they pass 63 and every pod
# create fails with `metadata.labels: Invalid value` (kubernetes-sigs/kueue#10032). The fix (kueue#10311, on
# release-0.17 as #11409) moves them to annotations behind the WorkloadIdentifierAnnotations feature gate, off by
# default in v0.17 and on by default (Beta) from v0.18.0 (pkg/features/kube_features.go). The release manifest
# keeps the default gates, so before v0.18.0 an LWS name is limited to this.
KUEUE_LWS_NAME_LIMIT = 39
LWS_LONG_NAMES_SINCE = "v0.18.0"


def kueue_freezes_lws_size(version: str) -> bool:
    """Kueue's LWSImmutableGroupSize gate (beta, on by default) ships in v0.18.5+ and v0.19.1+, not in v0.19.0
    (kubernetes-sigs/kueue pkg/features/kube_features.go at each tag)."""
    v = version_key(version)
    return v >= (0, 19, 1) or (0, 18, 5) <= v < (0, 19, 0)


def kueue_lws_name_problem(kueue_version: str, name: str) -> str | None:
    """Why Kueue `kueue_version` cannot admit the pods of a LeaderWorkerSet named `name` (None when it can)."""
    if version_key(kueue_version) >= version_key(LWS_LONG_NAMES_SINCE) or len(name) <= KUEUE_LWS_NAME_LIMIT:
        return None
    return (f"is {len(name)} characters; Kueue {kueue_version} labels a LeaderWorkerSet's pods with "
            f"'leaderworkerset-<name>-<group>-<hash>', longer than 63 characters for names over "
            f"{KUEUE_LWS_NAME_LIMIT}, and the pods are never created (kubernetes-sigs/kueue#10032, fixed by default "
            f"from {LWS_LONG_NAMES_SINCE}): shorten the name to {KUEUE_LWS_NAME_LIMIT} or raise kueue.version")


# --- changing a pinned release ----------------------------------------------------------------------

@dataclass(frozen=True)
class PinChange:
    """What `pulumi up` does when `<addon>.version` goes from `old` to `new` (release_change)."""

    addon: str
    old: str
    new: str
    refused: str | None  # why the change is refused (None: allowed)
    effects: tuple[str, ...]  # what the update does, in order


def release_change(addon: str, old: str, new: str) -> PinChange:
    """The rule for moving a controller pin (docs/jobset-and-kueue.md "Changing a pinned release").

    The install is a server-side apply of the release manifest (addons/install.py): `pulumi up` updates the CRDs in
    place (new fields, new served versions), the controller Deployment rolls to the new image, and the webhook
    configurations are re-applied with their CA bundle kept (the controllers' cert managers own it). Objects
    already stored stay as written. A downgrade to an older minor release is refused by this product's policy
    (the API server would accept it): its CRDs would prune the fields the newer release wrote into stored objects
    (JobSets, Workloads, LeaderWorkerSets) and its controller cannot reconcile what the newer one left; no
    controller documents a downgrade. An upgrade may cross several minors: Kueue's upgrade policy asks to review
    the `.0` release notes of every minor crossed ("Actions Required Before Upgrading"; kueue
    site/content/en/docs/getting-started/installation.md), which the effects list. A patch change within one minor
    keeps the same API and is allowed both ways.
    """
    o, n = version_key(old), version_key(new)
    if o == n:
        return PinChange(addon, old, new, None, ())
    if n[:2] < o[:2]:
        return PinChange(addon, old, new, (
            f"would downgrade {addon} from {old} to {new}, an older minor release: its CRDs prune the fields {old} "
            f"stores in existing objects and its controller cannot reconcile them. Keep {old} (or a newer release), "
            f"or delete the {addon} objects and the release first"), ())
    effects = [f"{addon}: server-side apply of the {new} release manifest: CRDs updated in place, the controller "
               f"Deployment rolls to {new}, webhook configurations re-applied (CA bundles kept)"]
    if addon == "kueue" and n[:2] > o[:2]:
        crossed = [f"v{n[0]}.{minor}.0" for minor in range(o[1] + 1, n[1] + 1)]
        effects.append("kueue: review \"Actions Required Before Upgrading\" in the release notes of "
                       + ", ".join(crossed) + " (Kueue's upgrade policy: the .0 notes of every minor crossed)")
    if addon == "kueue" and kueue_freezes_lws_size(new) and not kueue_freezes_lws_size(old):
        effects.append("kueue: from v0.19.1 (and v0.18.5) LWSImmutableGroupSize is on: a Kueue-managed "
                       "LeaderWorkerSet's spec.leaderWorkerTemplate.size is immutable (pathways-gke replaces it)")
    if addon == "kueue" and o < version_key(LWS_LONG_NAMES_SINCE) <= n:
        effects.append("kueue: from v0.18.0 WorkloadIdentifierAnnotations is on: LeaderWorkerSet pods are tracked "
                       "by annotations; workloads admitted before keep their labels (read as a fallback since "
                       "kueue#13636)")
    if addon == "jobset" and n[:2] != o[:2]:
        effects.append("jobset: running JobSets keep their spec (it is immutable); the new controller reconciles "
                       "them, and the Pathways JobSets are replaced only when their own spec changes")
    return PinChange(addon, old, new, None, tuple(effects))


# --- local manifest checks --------------------------------------------------------------------

_IMAGE = re.compile(r"""^\s*(?:-\s+)?image:\s*["']?([^\s"']+)["']?\s*$""", re.MULTILINE)
_NAME = re.compile(r"""^\s*name:\s*["']?([^\s"']+)["']?\s*$""", re.MULTILINE)


def controller_image_tags(text: str, image: str) -> list[str]:
    """Tags of every `<registry>/.../<image>:<tag>` image in a manifest (digest-only references give '')."""
    tags = []
    for ref in _IMAGE.findall(text):
        name, _, digest = ref.partition("@")
        last = name.rsplit("/", 1)[-1]
        repo, _, tag = last.partition(":")
        if repo == image:
            tags.append(tag if tag else ("" if digest else "latest"))
    return tags


def manifest_problems(addon: str, version: str, path: str, base: Path | None = None) -> list[str]:
    """Why a local manifest cannot stand for `<addon> <version>` (empty when it can).

    Checks: the file exists and is readable, declares the controller's CRD, and its controller
    image tag (when it has one rather than a digest) is the configured version, so the version the
    plan shows is the version that gets installed.
    """
    release = RELEASES[addon]
    file = Path(path)
    if not file.is_absolute() and base is not None:
        file = base / file
    if not file.is_file():
        return [f"is not an existing file (relative paths are read from the Pulumi project directory, "
                f"{base or Path.cwd()}); download {release.url.format(version=version)} there, or remove "
                f"{addon}.manifest to install that release URL directly"]
    try:
        text = file.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        return [f"cannot be read: {exc}"]
    out = []
    if release.crd not in _NAME.findall(text):
        out.append(f"does not define the CustomResourceDefinition {release.crd}; is it the {addon} release "
                   f"manifests.yaml ({release.url.format(version=version)})?")
    tags = sorted(set(controller_image_tags(text, release.image)))
    other = [t for t in tags if t and t != version]
    if other:
        out.append(f"runs the {release.image} controller image tagged {', '.join(other)}, but {addon}.version is "
                   f"{version}; set {addon}.version to the manifest's version (it is what the plan reports)")
    return out


# --- JobSet feature gates (kubernetes-sigs/jobset pkg/features/features.go per tag) ----------------------------
# The controller reads `featureGates` from its Configuration (ConfigMap `jobset-manager-config`, key
# controller_manager_config.yaml; api/config/v1alpha1 Configuration.FeatureGates, added in v0.11.0) and refuses to
# start on a gate it does not know (main.go: DefaultMutableFeatureGate.SetFromMap). Gate -> default, per minor.
JOBSET_CONFIG_KEY = "controller_manager_config.yaml"
JOBSET_CONFIG_MAP = "jobset-manager-config"
JOBSET_FEATURE_GATES: dict[tuple[int, int], dict[str, bool]] = {
    (0, 11): {"InPlaceRestart": False},
    (0, 12): {"InPlaceRestart": False, "TLSOptions": True, "RestartJob": False, "ElasticJobSet": False},
}
RESTART_JOB_GATE = "RestartJob"  # v0.12.0: the RestartJob / RestartJobAndIgnoreMaxRestarts failure-policy actions
RESTART_JOB_SINCE = "v0.12.0"
IN_PLACE_RESTART_GATE = "InPlaceRestart"
# KEP-467 (jobset keps/467-InPlaceRestart): restartPolicyRules / RestartPod, alpha in Kubernetes 1.34 / 1.35; GKE
# changes feature gates only on alpha clusters ("You can modify Kubernetes feature gates in GKE only with alpha
# clusters", GKE docs concepts/feature-gates), which are deleted after 30 days (pulumi-gcp Cluster
# enableKubernetesAlpha).
IN_PLACE_RESTART_REASON = (
    "JobSet's InPlaceRestart (alpha, KEP-467) restarts pods through the container restartPolicyRules / RestartPod "
    "action, alpha Kubernetes features (1.34/1.35) that GKE turns on only in alpha clusters (deleted after 30 days), "
    "and an agent sidecar the JobSet project does not release as an image; use restart.strategy BlockingRecreate or "
    "restart.perSlice instead")


def jobset_feature_gates(version: str) -> dict[str, bool]:
    """The gates (and their defaults) the JobSet `version` knows; empty before v0.11.0 (no featureGates field)."""
    major, minor = (version_key(version) + (0, 0))[:2]
    return dict(JOBSET_FEATURE_GATES.get((major, minor), {}))

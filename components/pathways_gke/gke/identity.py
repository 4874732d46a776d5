"""Who each rendered pod is to GCP, what it must reach, and the grants that follow. Pure: no Pulumi import.

The identity is read from the rendered pod spec, never assumed per runtime:

- `hostNetwork: true` (every Pathways head and worker, every TPU JAX pod): Workload Identity does not apply;
  Google client libraries in the pod act as the **node's service account**
  (https://cloud.google.com/kubernetes-engine/docs/concepts/workload-identity#limitations).
- otherwise (JAX on the CPU pool): the pod's Kubernetes service account (`serviceAccountName`, else `default`)
  as a Workload Identity principal
  `principal://iam.googleapis.com/projects/<number>/locations/global/workloadIdentityPools/<project>.svc.id.goog/subject/ns/<ns>/sa/<ksa>`,
  or the GCP service account bound to it (`gcpServiceAccount`).
- GCS FUSE volumes are mounted by the driver's sidecar with the pod's Kubernetes service account, also on
  hostNetwork pods (`hostNetworkPodKSA: "true"`; GoogleCloudPlatform/gcs-fuse-csi-driver docs/authentication.md).

What a pod reaches is read from it too: `--gcs_scratch_location=gs://…` on a Pathways server (written:
compilation artifacts, HBM state on suspend/resume), `--enable_metrics_collection=true` (Cloud Monitoring),
its CSI FUSE volumes (read-only or not), plus the workload's declared `buckets`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator, Optional

from .. import naming
from ..config.stack import StackConfig
from ..config.workloads import WorkloadConfig
from .cluster_spec import NODE_SERVICE_ACCOUNT_ROLES, node_service_account_email
from ..render.objects import objects_for
from ..config.placement import Placement

OBJECT_USER = "roles/storage.objectUser"  # read/write objects, no bucket administration
OBJECT_VIEWER = "roles/storage.objectViewer"
# storage.buckets.get, which roles/storage.objectUser lacks: Orbax/TensorStore read the bucket's metadata when they
# write a checkpoint (the role GCS's docs name for it; https://cloud.google.com/storage/docs/access-control/iam-roles)
LEGACY_BUCKET_READER = "roles/storage.legacyBucketReader"
METRIC_WRITER = "roles/monitoring.metricWriter"
WORKLOAD_IDENTITY_USER = "roles/iam.workloadIdentityUser"
GCP_SA_ANNOTATION = "iam.gke.io/gcp-service-account"
FUSE_DRIVER = "gcsfuse.csi.storage.gke.io"
NUMBER = "{number}"  # the project number, where the config does not give it
POOL_MEMBER = "{member-of-node-pool:%s}"
"""Stands for the IAM member an existing node pool's nodes run as (read at preview: `existing_pool_members`)."""
POOL_MEMBER_PATTERN = re.compile(r"\{member-of-node-pool:([a-z0-9-]+)\}")
SCRATCH_FLAG = "--gcs_scratch_location="
METRICS_FLAG = "--enable_metrics_collection=true"
ROLE_SHORT = {OBJECT_USER: "objectuser", OBJECT_VIEWER: "objectviewer", METRIC_WRITER: "metricwriter",
              LEGACY_BUCKET_READER: "bucketreader"}

@dataclass(frozen=True)
class Identity:
    """A GCP principal a pod (or its FUSE sidecar) acts as."""

    kind: str  # "node" | "existing-pool" | "workload-identity" | "gcp-service-account"
    member: str  # IAM member; contains NUMBER where the project number is needed and not configured
    key: str  # fragment of the grant resources' names: "nodes", "ksa-<ns>-<ksa>", "gsa-<account>"
    managed: bool  # the stack may grant to it (not a user-managed node SA, not the Compute Engine default)
    why: str

    def with_number(self, number: str) -> str:
        return self.member.replace(NUMBER, number)

    def text(self, stack: StackConfig) -> str:
        """The member as the plan shows it: PROJECT_NUMBER where cluster.projectNumber is not given (an existing
        pool's member stays a stand-in, which the cluster replaces by what it read at preview)."""
        return self.with_number(stack.cluster.project_number or "PROJECT_NUMBER")


@dataclass(frozen=True)
class Need:
    identity: Identity
    role: str
    bucket: Optional[str]  # None: a project-level role
    why: str


@dataclass(frozen=True)
class PodIdentity:
    replicated_job: str
    host_network: bool
    service_account: str
    identity: Identity
    needs: tuple[Need, ...]


@dataclass(frozen=True)
class Grant:
    """One IAM binding a workload needs: made by the stack (`by_stack`) or listed for the user to make."""

    identity: Identity
    role: str
    bucket: Optional[str]
    project: str  # project of the bucket, or where a project-level role applies
    why: tuple[str, ...]
    by_stack: bool
    covered: bool = False  # already given by the node service account's project roles
    reason: str = ""  # why the stack does not make it

    @property
    def target(self) -> str:
        return f"gs://{self.bucket}" if self.bucket else f"project {self.project}"

    def resource_name(self, component: str) -> str:
        scope = self.bucket or "project"
        return f"{component}-{scope}-{ROLE_SHORT.get(self.role, self.role.rsplit('.', 1)[-1].lower())}-{self.identity.key}"

    def instruction(self, stack: StackConfig) -> str:
        return (f"grant {self.role} on {self.target} to {self.identity.text(stack)} ({'; '.join(self.why)}): "
                f"{self.reason}")


# --- identities ------------------------------------------------------------------------------------------


def node_identity(stack: StackConfig) -> Identity:
    sa = stack.cluster.node_service_account
    if sa.email:
        return Identity("node", f"serviceAccount:{sa.email}", "nodes", False,
                        "hostNetwork: the node's service account (user-managed, cluster.nodeServiceAccount.email)")
    if sa.create:
        email = node_service_account_email(stack)
        return Identity("node", f"serviceAccount:{email}", "nodes", True,
                        "hostNetwork: the node's service account (created by this stack)")
    return Identity("node", f"serviceAccount:{NUMBER}-compute@developer.gserviceaccount.com", "nodes", False,
                    "hostNetwork: the node's service account (the Compute Engine default)")


def existing_pool_identity(pool: str) -> Identity:
    """Who hostNetwork pods on a node pool this stack does not create are: whatever account its nodes run as,
    read at preview. XPK passes no --service-account, so its pools (cpu-np, <cluster>-np-<i>) run as the Compute
    Engine default (xpk v1.16.0 src/xpk/core/nodepool.py); the stack grants what the workloads need to that."""
    return Identity("existing-pool", POOL_MEMBER % pool, f"pool-{pool}", True,
                    f"hostNetwork: the service account of the existing node pool {pool} (read at preview)")


def existing_pool_of(stack: StackConfig, workload: WorkloadConfig, spec: dict[str, Any]) -> Optional[str]:
    """The existing node pool (cpuPool.create: false, or a tpuPools group with create: false) a rendered pod runs
    on, or None when the stack creates its pool. TPU pods (TPU requests or a TPU node selector) run on the
    workload's group, the rest on the CPU pool."""
    selector = spec.get("nodeSelector") or {}
    on_tpu = naming.TPU_ACCELERATOR_LABEL in selector or any(
        naming.TPU_RESOURCE in ((c.get("resources") or {}).get("limits") or {}) for c in _containers(spec))
    if on_tpu:
        group = stack.pool(workload.tpu_pool) if workload.tpu_pool else None
        return group.node_pool_name(stack.cluster.name, 0) if group is not None and not group.create else None
    return None if stack.cpu_pool.create else stack.cpu_pool.name


def ksa_identity(stack: StackConfig, namespace: str, ksa: str, gsa: Optional[str]) -> Identity:
    if gsa:
        return Identity("gcp-service-account", f"serviceAccount:{gsa}", f"gsa-{gsa.split('@')[0]}", True,
                        f"Kubernetes service account {namespace}/{ksa}, bound to {gsa} through Workload Identity")
    principal = (f"principal://iam.googleapis.com/projects/{NUMBER}/locations/global/workloadIdentityPools/"
                 f"{stack.project}.svc.id.goog/subject/ns/{namespace}/sa/{ksa}")
    return Identity("workload-identity", principal, f"ksa-{namespace}-{ksa}", True,
                    f"Workload Identity of Kubernetes service account {namespace}/{ksa}")


def mtc_agent_identity(stack: StackConfig) -> Identity:
    """The multi-tier checkpointing add-on's node agent: Kubernetes service account
    gke-managed-checkpointing/gke-checkpointing-multitier-node as a Workload Identity principal (XPK
    src/xpk/core/mtc.py add_mtc_bucket_iam_member grants it roles/storage.objectUser on the bucket)."""
    principal = (f"principal://iam.googleapis.com/projects/{NUMBER}/locations/global/workloadIdentityPools/"
                 f"{stack.project}.svc.id.goog/subject/ns/{naming.MTC_AGENT_NAMESPACE}/sa/{naming.MTC_AGENT_KSA}")
    return Identity("workload-identity", principal, "mtc-node-agent", True,
                    "multi-tier checkpointing's node agent (GKE add-on HighScaleCheckpointing)")


def gsa_of(stack: StackConfig, ksa: str) -> Optional[str]:
    """The GCP service account a Kubernetes service account is bound to (checks allow one per name)."""
    return next((w.gcp_service_account for w in stack.workloads if w.service_account == ksa), None)


# --- rendered pods ---------------------------------------------------------------------------------------


def workload_pod_templates(stack: StackConfig, workload: WorkloadConfig) -> Iterator[tuple[str, dict[str, Any]]]:
    """(role, pod template) of every pod a workload runs: a JobSet's replicated jobs, or a LeaderWorkerSet's
    leader and workers plus each client's proxy (modes serving and service)."""
    yield from objects_for(workload, Placement.of(stack, workload)).pod_templates()


def _containers(spec: dict[str, Any]) -> list[dict[str, Any]]:
    return [*spec.get("initContainers", []), *spec.get("containers", [])]


def split_gcs(url: str) -> tuple[str, str]:
    """`gs://bucket/a/b` -> (`bucket`, `a/b/`); the bucket root -> (`bucket`, ``)."""
    match = re.fullmatch(r"gs://([^/]+)/?(.*)", url)
    if not match:
        raise ValueError(f"{url!r} is not a gs:// location")
    prefix = match.group(2).strip("/")
    return match.group(1), f"{prefix}/" if prefix else ""


def scratch_locations(spec: dict[str, Any]) -> list[str]:
    return sorted({arg[len(SCRATCH_FLAG):] for c in _containers(spec) for arg in c.get("args", [])
                   if arg.startswith(SCRATCH_FLAG)})


def pod_identity(stack: StackConfig, workload: WorkloadConfig, replicated_job: str,
                 template: dict[str, Any]) -> PodIdentity:
    """Identity and needs of one rendered pod template (see module doc)."""
    spec = template["spec"]
    namespace = Placement.of(stack, workload).namespace
    ksa = spec.get("serviceAccountName", "default")
    ksa_id = ksa_identity(stack, namespace, ksa, gsa_of(stack, ksa))
    host_network = bool(spec.get("hostNetwork"))
    existing = existing_pool_of(stack, workload, spec) if host_network else None
    identity = existing_pool_identity(existing) if existing else node_identity(stack) if host_network else ksa_id
    needs: list[Need] = []
    for url in scratch_locations(spec):
        needs.append(Need(identity, OBJECT_USER, split_gcs(url)[0], "gcsScratch"))
    if any(METRICS_FLAG in c.get("args", []) for c in _containers(spec)):
        needs.append(Need(identity, METRIC_WRITER, None, "pathways.metrics"))
    for volume in spec.get("volumes", []):
        csi = volume.get("csi") or {}
        if csi.get("driver") == FUSE_DRIVER:
            role = OBJECT_VIEWER if csi.get("readOnly") else OBJECT_USER
            needs.append(Need(ksa_id, role, csi["volumeAttributes"]["bucketName"], f"gcsFuse {volume['name']}"))
    for i, declared in enumerate(workload.buckets):
        role = OBJECT_USER if declared.access == "readWrite" else OBJECT_VIEWER
        needs.append(Need(identity, role, declared.bucket, f"buckets[{i}]"))
    # whoever writes objects of a bucket also reads the bucket's metadata (storage.buckets.get)
    needs += [Need(n.identity, LEGACY_BUCKET_READER, n.bucket, n.why) for n in list(needs) if n.role == OBJECT_USER]
    return PodIdentity(replicated_job, host_network, ksa, identity, tuple(needs))


def workload_pods(stack: StackConfig, workload: WorkloadConfig) -> list[PodIdentity]:
    return [pod_identity(stack, workload, name, template)
            for name, template in workload_pod_templates(stack, workload)]


# --- grants ----------------------------------------------------------------------------------------------


@dataclass
class _Pending:
    identity: Identity
    role: str
    bucket: Optional[str]
    why: list[str] = field(default_factory=list)


def grant_plan(stack: StackConfig) -> list[Grant]:
    """Every IAM binding the workloads need, deduplicated; read-write wins over read on the same bucket."""
    pending: dict[tuple[str, str, Optional[str]], _Pending] = {}
    for workload in stack.workloads:
        for pod in workload_pods(stack, workload):
            for need in pod.needs:
                key = (need.identity.member, need.role, need.bucket)
                entry = pending.setdefault(key, _Pending(need.identity, need.role, need.bucket))
                why = f"{workload.name}/{pod.replicated_job}: {need.why}"
                if why not in entry.why:
                    entry.why.append(why)
    mtc = stack.cluster.multi_tier_checkpointing
    if mtc is not None:  # the node agent backs the RAM disks up to the bucket and restores from it
        agent = mtc_agent_identity(stack)
        pending.setdefault((agent.member, OBJECT_USER, mtc.bucket), _Pending(agent, OBJECT_USER, mtc.bucket)).why \
            .append("cluster.multiTierCheckpointing: the node agent's backups")
    for (member, role, bucket) in list(pending):
        if role == OBJECT_VIEWER and (member, OBJECT_USER, bucket) in pending:
            pending[(member, OBJECT_USER, bucket)].why.extend(pending.pop((member, role, bucket)).why)
    declared = {b.name: b for b in stack.buckets}
    grants = []
    for key in sorted(pending, key=lambda k: (k[2] or "", k[1], k[0])):
        entry = pending[key]
        project = stack.project
        reason = ""
        if entry.bucket is not None and entry.bucket in declared and declared[entry.bucket].project:
            project = declared[entry.bucket].project or project
        if project != stack.project:
            reason = f"the bucket is in project {project}, not {stack.project}"
        elif not entry.identity.managed:
            reason = "the node service account is not managed by this stack"
        elif NUMBER in entry.identity.member and not stack.cluster.project_number:
            reason = ("its principal names the project number: set cluster.projectNumber (gcloud projects describe "
                      f"{stack.project} --format='value(projectNumber)') or bind a gcpServiceAccount, and the stack "
                      "grants it")
        # a second IAMMember for a binding the node SA already has would remove it when either is deleted
        covered = (entry.bucket is None and entry.identity.kind == "node" and entry.identity.managed
                   and entry.role in NODE_SERVICE_ACCOUNT_ROLES)
        grants.append(Grant(entry.identity, entry.role, entry.bucket, project, tuple(entry.why),
                            by_stack=not reason and not covered, covered=covered, reason=reason))
    return grants


def ksa_bindings(stack: StackConfig) -> list[dict[str, Any]]:
    """Kubernetes service accounts the workloads name: created unless they exist, bound when a GSA is given."""
    out: dict[str, dict[str, Any]] = {}
    for workload in stack.workloads:
        ksa = workload.service_account
        if ksa is None or ksa in out:
            continue
        out[ksa] = {
            "name": ksa,
            "namespace": stack.namespace,
            "create": not workload.service_account_exists and ksa != "default",
            "gcpServiceAccount": workload.gcp_service_account,
            "member": f"serviceAccount:{stack.project}.svc.id.goog[{stack.namespace}/{ksa}]",
        }
    return [out[k] for k in sorted(out)]


def scratch_prefixes(stack: StackConfig, bucket: str) -> list[str]:
    """Object prefixes of the workloads' scratch locations in `bucket` ('' = the whole bucket)."""
    prefixes = set()
    for workload in stack.workloads:
        if workload.runtime == "pathways" and workload.pathways.gcs_scratch:
            name, prefix = split_gcs(workload.pathways.gcs_scratch)
            if name == bucket:
                prefixes.add(prefix)
    return sorted(prefixes)


# --- what the plan shows ---------------------------------------------------------------------------------


def identities_report(stack: StackConfig) -> dict[str, Any]:
    """Per workload: which identity each pod runs as, and what it can write / read ("runs as …, can write …")."""
    grants = grant_plan(stack)
    report: dict[str, Any] = {}
    for workload in stack.workloads:
        pods = workload_pods(stack, workload)
        members = {p.identity.text(stack) for p in pods}
        writes, reads, metrics = set(), set(), False
        for pod in pods:
            for need in pod.needs:
                if need.role == OBJECT_USER:
                    writes.add(f"gs://{need.bucket}")
                elif need.role == OBJECT_VIEWER:
                    reads.add(f"gs://{need.bucket}")
                elif need.role == METRIC_WRITER:
                    metrics = True
        reads -= writes
        summary = f"runs as {', '.join(sorted(members))}"
        if writes:
            summary += f"; can write {', '.join(sorted(writes))}"
        if reads:
            summary += f"; can read {', '.join(sorted(reads))}"
        if metrics:
            summary += "; writes Cloud Monitoring metrics"
        mine = [g for g in grants if any(w.startswith(f"{workload.name}/") for w in g.why)]
        report[workload.name] = {
            "summary": summary,
            "pods": {p.replicated_job: {"hostNetwork": p.host_network, "serviceAccount": p.service_account,
                                        "runsAs": p.identity.text(stack), "why": p.identity.why} for p in pods},
            "grants": [{"role": g.role, "on": g.target, "to": g.identity.text(stack),
                        "by": "this stack" if g.by_stack else ("node service account roles" if g.covered
                                                               else "you: " + g.reason)} for g in mine],
        }
    return report


def manual_grants(stack: StackConfig) -> list[str]:
    """The grants the stack cannot make, as instructions (shown in the plan and warned at `pulumi up`)."""
    out = [g.instruction(stack) for g in grant_plan(stack) if not g.by_stack and not g.covered]
    for binding in ksa_bindings(stack):
        if binding["gcpServiceAccount"] and not binding["create"]:
            out.append(f"annotate Kubernetes service account {binding['namespace']}/{binding['name']} with "
                       f"{GCP_SA_ANNOTATION}={binding['gcpServiceAccount']} (it exists, so the stack does not "
                       "manage it)")
    return out


def bucket_args(stack: StackConfig, name: str) -> dict[str, Any]:
    """A bucket the stack creates (`buckets[].create`): uniform access (IAM only), hierarchical namespace (folder
    operations for checkpoints), public access prevented, and objects under the workloads' scratch paths deleted
    after `temporaryObjectDays`. The component keeps it on `pulumi destroy` (retainOnDelete): data outlives the
    stack. GCS cannot rename or move a bucket: a new `location` plans a replacement whose create fails (409)
    while the old bucket is kept — move the data and delete the old bucket by hand first."""
    bucket = next(b for b in stack.buckets if b.name == name)
    args: dict[str, Any] = {
        "name": bucket.name,
        "project": stack.project,
        "location": bucket.location or stack.cluster.region.upper(),
        "uniform_bucket_level_access": True,
        "hierarchical_namespace": {"enabled": True},
        "public_access_prevention": "enforced",
        "force_destroy": False,
        "labels": dict(naming.MANAGED_BY_GCE_LABELS),
    }
    prefixes = scratch_prefixes(stack, name)
    if prefixes:
        condition: dict[str, Any] = {"age": bucket.temporary_object_days}
        if "" not in prefixes:
            condition["matches_prefixes"] = prefixes
        args["lifecycle_rules"] = [{"action": {"type": "Delete"}, "condition": condition}]
    return args


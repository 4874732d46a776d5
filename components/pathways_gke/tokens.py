"""Pulumi type tokens (`<package>:<module>:<Type>`) of every resource the package makes, reads or reasons about.

The engine, plan.json, the policy pack and resource transforms all name a resource's type by its token, and the
plan, the policies, the transforms and the timeouts compare against it: a copy with a typo would silently never
match. So each token is written here once. Pure: no Pulumi import.
"""

from __future__ import annotations

import re

from .naming import JOBSET_API_VERSION, KUEUE_API_VERSION, LWS_API_VERSION

# What a type token looks like (a --durations key is checked against it).
TYPE_TOKEN = re.compile(r"[A-Za-z0-9_.-]+:[A-Za-z0-9_./-]*:[A-Za-z0-9_.]+")

# --- our components --------------------------------------------------------------------------------------

PACKAGE = "pathways-gke"
"""Package name: every component token is `pathways-gke:index:<Component>`."""


def component_token(name: str) -> str:
    """The token of one of our components; Pulumi's component provider derives the same from the class name."""
    return f"{PACKAGE}:index:{name}"


PATHWAYS_CLUSTER = component_token("PathwaysCluster")
TPU_SLICE_GROUP = component_token("TpuSliceGroup")
CLUSTER_SERVICES = component_token("ClusterServices")
PATHWAYS_WORKLOAD = component_token("PathwaysWorkload")
JAX_WORKLOAD = component_token("JaxWorkload")
PATHWAYS_SERVING = component_token("PathwaysServing")

# --- the Pulumi engine ------------------------------------------------------------------------------------

STACK = "pulumi:pulumi:Stack"
PROVIDER_PREFIX = "pulumi:providers:"


def provider_type(package: str) -> str:
    """The token of a package's provider resource (`pulumi:providers:kubernetes`)."""
    return f"{PROVIDER_PREFIX}{package}"


KUBERNETES_PROVIDER = provider_type("kubernetes")
GCP_PROVIDER = provider_type("gcp")

# --- pulumi-gcp -------------------------------------------------------------------------------------------

GKE_CLUSTER = "gcp:container/cluster:Cluster"
NODE_POOL = "gcp:container/nodePool:NodePool"
# invokes (data sources) the program reads at preview
GET_CLUSTER = "gcp:container/getCluster:getCluster"
GET_PROJECT = "gcp:organizations/getProject:getProject"
RESOURCE_POLICY = "gcp:compute/resourcePolicy:ResourcePolicy"  # the tpu7x workload policy
FIREWALL = "gcp:compute/firewall:Firewall"
ROUTER = "gcp:compute/router:Router"
ROUTER_NAT = "gcp:compute/routerNat:RouterNat"
SERVICE_ACCOUNT = "gcp:serviceaccount/account:Account"
SERVICE_ACCOUNT_IAM_MEMBER = "gcp:serviceaccount/iAMMember:IAMMember"
PROJECT_IAM_MEMBER = "gcp:projects/iAMMember:IAMMember"
BUCKET = "gcp:storage/bucket:Bucket"
BUCKET_IAM_MEMBER = "gcp:storage/bucketIAMMember:BucketIAMMember"

# --- pulumi-kubernetes ------------------------------------------------------------------------------------

KUBERNETES_PREFIX = "kubernetes:"


def kubernetes_type(api_version: str, kind: str) -> str:
    """The token of a Kubernetes object (`v1` is the `core` group): `kubernetes:apps/v1:Deployment`."""
    return f"{KUBERNETES_PREFIX}{'core/' + api_version if '/' not in api_version else api_version}:{kind}"


def is_kubernetes_type(type_: str) -> bool:
    """A pulumi-kubernetes type: an object, or one of its components (a yaml/v2 ConfigFile)."""
    return type_.startswith(KUBERNETES_PREFIX)


CONFIG_FILE = "kubernetes:yaml/v2:ConfigFile"  # a (remote) component that applies a manifest, not an object

NAMESPACE = kubernetes_type("v1", "Namespace")
CONFIG_MAP = kubernetes_type("v1", "ConfigMap")
SECRET = kubernetes_type("v1", "Secret")
SERVICE = kubernetes_type("v1", "Service")
KUBERNETES_SERVICE_ACCOUNT = kubernetes_type("v1", "ServiceAccount")
DEPLOYMENT = kubernetes_type("apps/v1", "Deployment")
JOB = kubernetes_type("batch/v1", "Job")
ROLE = kubernetes_type("rbac.authorization.k8s.io/v1", "Role")
ROLE_BINDING = kubernetes_type("rbac.authorization.k8s.io/v1", "RoleBinding")
PRIORITY_CLASS = kubernetes_type("scheduling.k8s.io/v1", "PriorityClass")
CRD = kubernetes_type("apiextensions.k8s.io/v1", "CustomResourceDefinition")

JOBSET = kubernetes_type(JOBSET_API_VERSION, "JobSet")
LEADER_WORKER_SET = kubernetes_type(LWS_API_VERSION, "LeaderWorkerSet")
RESOURCE_FLAVOR = kubernetes_type(KUEUE_API_VERSION, "ResourceFlavor")
CLUSTER_QUEUE = kubernetes_type(KUEUE_API_VERSION, "ClusterQueue")
LOCAL_QUEUE = kubernetes_type(KUEUE_API_VERSION, "LocalQueue")
ADMISSION_CHECK = kubernetes_type(KUEUE_API_VERSION, "AdmissionCheck")
PROVISIONING_REQUEST_CONFIG = kubernetes_type(KUEUE_API_VERSION, "ProvisioningRequestConfig")
KUEUE_TOPOLOGY = kubernetes_type(KUEUE_API_VERSION, "Topology")  # tpu7x dynamic slicing
GKE_NETWORK_PARAM_SET = kubernetes_type("networking.gke.io/v1", "GKENetworkParamSet")  # cluster.additionalNetworks
GKE_NETWORK = kubernetes_type("networking.gke.io/v1", "Network")


GCP_PREFIX = "gcp:"


def gcp_module(type_: str) -> str | None:
    """The pulumi-gcp module of a type token (`gcp:container/nodePool:NodePool` -> `container`), else None."""
    if not type_.startswith(GCP_PREFIX):
        return None
    return type_[len(GCP_PREFIX):].split("/", 1)[0].split(":", 1)[0]

"""What Pathways itself is, as every layer needs it: the images, the containers and their sizes, the env each
container gets from us, the grace period and the worker back-off.

Facts, not choices: they come from the peers' common core (XPK's pathways_workload_create.yaml.j2, Cluster
Toolkit, the google/pathways-job operator). The builders write them into pods and the config checks hold user input
against them, so both import them from here (ports and labels live in naming.py).
"""

from __future__ import annotations

SERVER_IMAGE = "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/server"
PROXY_IMAGE = "us-docker.pkg.dev/cloud-tpu-v2-images/pathways/proxy_server"

RM_CONTAINER = "pathways-rm"
PROXY_CONTAINER = "pathways-proxy"
WORKER_CONTAINER = "pathways-worker"
COLOCATED_PYTHON_CONTAINER = "colocated-python-sidecar"
PATHWAYS_CONTAINERS = (RM_CONTAINER, PROXY_CONTAINER, WORKER_CONTAINER, COLOCATED_PYTHON_CONTAINER)
"""The containers pathways-gke adds to Pathways pods: no user container or sidecar may take one of these names."""

COLOCATED_PYTHON_PORT = 50051

SERVER_LIMITS = {RM_CONTAINER: {"cpu": "8", "memory": "32G"}, PROXY_CONTAINER: {"cpu": "16", "memory": "100G"}}
"""The head's Pathways servers, limits only (requests = limits), in XPK's units. A head on a TPU VM scales them
down (config/pathways_checks.tpu_head_server_sizes)."""

WORKER_BACKOFF_PER_VM = 4  # OP/CTK/XPK: the worker Job's backoffLimit is 4 x VMs per slice (non-elastic)
DEFAULT_GRACE_PERIOD = 30  # XPK -tgps / CTK --grace-period default (= the Kubernetes default)

MANAGED_ENV = {
    "server": ("REPLICATED_JOB_NAME", "JOBSET_NAME", "HOST_ADDRESS", "TPU_SKIP_MDS_QUERY"),
    "proxy": ("PATHWAYS_HEAD",),
    "worker": ("TPU_MIN_LOG_LEVEL", "TF_CPP_MIN_LOG_LEVEL", "XCLOUD_ENVIRONMENT", "MEGASCALE_GRPC_ENABLE_XOR_TRACER",
               "MEGASCALE_NUM_SLICES", "JOBSET_NAME", "REPLICATED_JOB_NAME", "MEGASCALE_SLICE_ID", "PATHWAYS_HEAD",
               "MEGASCALE_COORDINATOR_ADDRESS"),
    "user": ("PATHWAYS_HEAD", "JAX_PLATFORMS", "XCLOUD_ENVIRONMENT", "JAX_BACKEND_TARGET"),
}
"""Env names pathways-gke sets per container (server = resource manager, proxy, worker, the user container):
custom env must not repeat them."""

ABSL_FLAGS_ENV = "ABSL_FLAGS"
PIPE_UNREACHABLE_TIMEOUT_FLAG = "--pathways_pipe_unreachable_timeout"
"""Cluster Toolkit's template (cluster-toolkit 7c70d26, PR #5849, pkg/orchestrator/gke/templates/pathways_jobset.tmpl)
sets `ABSL_FLAGS=--pathways_pipe_unreachable_timeout=60s` on the proxy, the resource manager, the user container and
the workers: how long a Pathways pipe may be unreachable before the run fails (a worker slice restarting)."""
CTK_PIPE_UNREACHABLE_TIMEOUT = "60s"
PIPE_TIMEOUT_CONTAINERS = ("server", "proxy", "worker", "user")
"""The containers that get the flag (server = resource manager), in pathways.env's and MANAGED_ENV's names."""


def pipe_timeout_env(timeout: str | None) -> list[dict[str, str]]:
    """The ABSL_FLAGS env entry of `pathways.pipeUnreachableTimeout` (none when it is not set)."""
    return [{"name": ABSL_FLAGS_ENV, "value": f"{PIPE_UNREACHABLE_TIMEOUT_FLAG}={timeout}"}] if timeout else []

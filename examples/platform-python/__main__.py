"""A platform program that brings its own providers and adopts a cluster it does not manage.

The platform team already runs GKE cluster `ml-shared` (created by another team's stack). This
program adds what Pathways needs to it: the head's CPU pool, a v5p TPU pool group of two 2x2x2 slices,
and a Pathways workload, using providers it configures itself (impersonated deployer, its own
kubeconfig). The component creates no provider of its own when it is given them.
"""

import pulumi
import pulumi_gcp as gcp
import pulumi_kubernetes as k8s

from pathways_gke import PathwaysCluster
from pathways_gke.args import Capacity, PathwaysClusterArgs, Runtime
from pathways_gke.gke.kubeconfig import kubeconfig

config = pulumi.Config()
project = pulumi.Config("gcp").require("project")
cluster_name = config.require("clusterName")
location = config.require("location")

# the platform's providers: one GCP identity for everything, one Kubernetes endpoint
gcp_provider = gcp.Provider("platform-gcp", project=project,
                            impersonate_service_account=config.require("impersonate"))
existing = gcp.container.Cluster.get(
    "shared-cluster", f"projects/{project}/locations/{location}/clusters/{cluster_name}",
    opts=pulumi.ResourceOptions(provider=gcp_provider))
k8s_provider = k8s.Provider(
    "platform-k8s",
    kubeconfig=pulumi.Output.all(existing.endpoint, existing.master_auth.cluster_ca_certificate).apply(
        lambda v: kubeconfig(f"gke_{project}_{location}_{cluster_name}", v[0], v[1])),
    cluster_identifier=f"{project}/{location}/{cluster_name}",
    enable_server_side_apply=True,
)

args: PathwaysClusterArgs = {
    "project": project,
    "cluster": {"name": cluster_name, "location": location, "create": False},
    "cpu_pool": {"machine_type": "n2-standard-64", "min_nodes": 1, "max_nodes": 3, "zone": "us-east5-a"},
    "tpu_pools": [{"name": "v5p", "type": "v5p", "topology": "2x2x2", "slices": 2, "zone": "us-east5-a",
                   "capacity": Capacity.SPOT}],
    "workloads": [{"name": "finetune", "runtime": Runtime.PATHWAYS, "tpu_pool": "v5p",
                   "image": "us-docker.pkg.dev/acme-ml-shared/train/finetune:2026-11-20",
                   "command": ["python3", "finetune.py", "--steps=2000"],
                   "pathways": {"version": "jax-0.9.2", "gcs_scratch": "gs://acme-ml-shared-pathways/tmp"}}],
    "namespace": "ml-platform",
}
cluster = PathwaysCluster("ml-shared", args,
                          opts=pulumi.ResourceOptions(providers=[gcp_provider, k8s_provider]))

pulumi.export("cpuPool", cluster.cpu_pool_name)
pulumi.export("tpuPools", cluster.tpu_pool_names)
pulumi.export("kubeconfig", cluster.kubeconfig)

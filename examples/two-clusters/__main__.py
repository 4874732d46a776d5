"""Two PathwaysClusters in one program, on a VPC the same program creates.

Every child name derives from its component's name (`train-…`, `serve-…`), and each JobSet/Kueue install's
yaml/v2 `resourcePrefix` is its ConfigFile's name, so the two clusters never share a resource URN (URNs carry
parent types, not names). The VPC and subnets are created here and passed in as Outputs (`self_link`): the
clusters' `network` / `subnetwork` only flow into properties, so they may be unknown at preview.
"""

import pulumi
import pulumi_gcp as gcp

from pathways_gke import PathwaysCluster
from pathways_gke.args import Capacity, PathwaysClusterArgs

config = pulumi.Config()
project = pulumi.Config("gcp").require("project")
regions = {"train": config.require("trainRegion"), "serve": config.require("serveRegion")}

vpc = gcp.compute.Network("ml-vpc", project=project, auto_create_subnetworks=False)
subnets = {
    role: gcp.compute.Subnetwork(f"ml-{role}", project=project, region=region, network=vpc.self_link,
                                 ip_cidr_range=cidr)
    for (role, region), cidr in zip(regions.items(), ("10.10.0.0/16", "10.20.0.0/16"))
}


def cluster_args(role: str, zone: str, tpu: dict) -> PathwaysClusterArgs:
    return {
        "project": project,
        "cluster": {"name": f"pw-{role}", "location": regions[role], "network": vpc.self_link,
                    "subnetwork": subnets[role].self_link, "labels": {"role": role}},
        "cpu_pool": {"machine_type": "n2-standard-64", "min_nodes": 1, "max_nodes": 2, "zone": zone},
        "tpu_pools": [{"name": "main", "zone": zone, **tpu}],
        "kueue": {"enabled": role == "train"},
        "workloads": [{"name": f"{role}-job", "tpu_pool": "main",
                       "image": f"us-docker.pkg.dev/{project}/ml/{role}:2026-11-20",
                       "command": ["python3", f"{role}.py"],
                       "pathways": {"version": "jax-0.9.2", "gcs_scratch": f"gs://{project}-pathways/{role}"}}],
        "namespace": "ml",
    }


train = PathwaysCluster("train", cluster_args("train", f"{regions['train']}-b",
                                              {"type": "v6e", "topology": "4x4", "slices": 2,
                                               "capacity": Capacity.SPOT}))
serve = PathwaysCluster("serve", cluster_args("serve", f"{regions['serve']}-a",
                                              {"type": "v5e", "topology": "2x4", "slices": 1,
                                               "capacity": Capacity.ON_DEMAND}))

pulumi.export("network", vpc.self_link)
for role, cluster in (("train", train), ("serve", serve)):
    pulumi.export(f"{role}ClusterName", cluster.cluster_name)
    pulumi.export(f"{role}Kubeconfig", cluster.kubeconfig)

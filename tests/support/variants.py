"""Stack variants shared by tests: configs that make every optional child resource appear."""

from __future__ import annotations

from tests.support.stacks import merged


def every_optional_child_config() -> dict:
    """prod plus a queued tpu7x group (workload policy, ProvisioningRequest), private nodes (webhook firewall),
    a secret and a CPU jax workload that reads it, with its own Kubernetes service account bound to a GCP one,
    a data bucket and metrics; a scratch bucket the stack creates."""
    cfg = merged("prod", cluster={"privateNodes": True, "masterIpv4CidrBlock": "172.16.0.32/28"})
    cfg["pathways-gke:tpuPools"].append({"name": "burst", "type": "tpu7x", "topology": "2x2x2",
                                         "zone": "us-east5-b", "capacity": "queued"})
    cfg["pathways-gke:secrets"] = {"hf-token": {"secure": "x"}}
    cfg["pathways-gke:workloads"].append({
        "name": "eval", "runtime": "jax", "image": "us-docker.pkg.dev/acme-ml-prod/train/eval:2026-11-20",
        "command": "python3 eval.py", "jax": {"processes": 2}, "secretEnv": {"HF_TOKEN": "hf-token"},
        "serviceAccount": "eval", "gcpServiceAccount": "eval-runner@acme-ml-prod.iam.gserviceaccount.com",
        "buckets": [{"bucket": "acme-ml-prod-data", "access": "read"}]})
    cfg["pathways-gke:workloads"][0]["pathways"] = {**cfg["pathways-gke:workloads"][0]["pathways"], "metrics": True}
    cfg["pathways-gke:buckets"] = [{"name": "acme-ml-prod-pathways", "create": True}]
    return cfg

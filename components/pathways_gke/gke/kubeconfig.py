"""A kubeconfig that authenticates with gke-gcloud-auth-plugin, so no token lands in state."""

from __future__ import annotations

import yaml


def kubeconfig(context: str, endpoint: str, ca_certificate: str) -> str:
    user = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": "gke-gcloud-auth-plugin",
            "installHint": "Install gke-gcloud-auth-plugin: "
                           "https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl",
            "provideClusterInfo": True,
        }
    }
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": context, "cluster": {"server": f"https://{endpoint}",
                                                   "certificate-authority-data": ca_certificate}}],
        "contexts": [{"name": context, "context": {"cluster": context, "user": context}}],
        "current-context": context,
        "users": [{"name": context, "user": user}],
    }
    return yaml.safe_dump(config, sort_keys=False)

"""The Kubernetes side of the second NIC: per `cluster.additionalNetworks` entry a GKENetworkParamSet and a Network
(networking.gke.io/v1), as GKE's multi-network how-to writes them
(https://cloud.google.com/kubernetes-engine/docs/how-to/setup-multinetwork-support-for-pods). GKE installs their
CRDs on a cluster with multi-networking; the node side (additionalNodeNetworkConfigs) is in gke/nodepools.py."""

from __future__ import annotations

import re
from typing import Any

from ..config.stack import StackConfig
from ..ironwood import NETWORKING_API_VERSION
from ..naming import MANAGED_BY_LABELS


def network_object_name(network: str) -> str:
    """The objects' name: the network's own name (last part of a self link), as a DNS-1123 label."""
    last = network.rstrip("/").rsplit("/", 1)[-1].lower()
    return re.sub(r"[^a-z0-9-]", "-", last).strip("-")[:63] or "network"


def network_objects(stack: StackConfig) -> list[tuple[str, dict[str, Any]]]:
    """(child-name suffix, object) for each extra network: its GKENetworkParamSet, then its Network."""
    out: list[tuple[str, dict[str, Any]]] = []
    for net in stack.cluster.additional_networks:
        name = network_object_name(net.network)
        meta = {"name": name, "labels": dict(MANAGED_BY_LABELS)}
        out.append((f"netparams-{name}", {
            "apiVersion": NETWORKING_API_VERSION, "kind": "GKENetworkParamSet", "metadata": meta,
            "spec": {"vpc": net.network_path(), "vpcSubnet": net.subnetwork_path(stack.cluster.region),
                     "deviceMode": net.device_mode}}))
        out.append((f"network-{name}", {
            "apiVersion": NETWORKING_API_VERSION, "kind": "Network", "metadata": dict(meta),
            "spec": {"type": "Device", "parametersRef": {"group": "networking.gke.io", "kind": "GKENetworkParamSet",
                                                         "name": name}}}))
    return out

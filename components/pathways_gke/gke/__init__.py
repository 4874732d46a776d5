"""GKE layer as plain data: cluster, node pools, kubeconfig."""

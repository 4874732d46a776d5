"""pathways-gke: Pathways on GKE as one typed Pulumi resource graph.

    from pathways_gke import PathwaysCluster, PathwaysClusterArgs

The components are imported on first use, so the CLI and the config models load without Pulumi.
"""

__version__ = "0.1.0"

# public name -> module that defines it (imported lazily)
_EXPORTS = {
    "PathwaysCluster": "cluster",
    "PathwaysClusterArgs": "args",
    "PathwaysWorkload": "workloads.pathways",
    "PathwaysWorkloadArgs": "workloads.pathways",
    "JaxWorkload": "workloads.jax",
    "JaxWorkloadArgs": "workloads.jax",
    "PathwaysServing": "workloads.serving",
    "PathwaysServingArgs": "workloads.serving",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'pathways_gke' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(f".{module}", __name__), name)

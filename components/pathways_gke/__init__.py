"""pathways-gke: Pathways on GKE as one typed Pulumi resource graph."""

__version__ = "0.1.0"

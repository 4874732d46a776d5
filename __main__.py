"""Pulumi entry point (`pulumi up -s <env>`); the program itself lives in the library."""

from pathways_gke.program import main

main()

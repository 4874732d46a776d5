"""The component provider: PathwaysCluster (and the workload components) for TypeScript, Go, C#, Java, YAML.

Other languages reach the components through Pulumi's component provider support: the engine starts
this module as a plugin (provider/PulumiPlugin.yaml + provider/__main__.py), asks it for the schema the
SDK infers from the components' type annotations, and sends `Construct` requests that build the very
same Python components a Python program would.

    python -m pathways_gke.provider <engine address>   # what the plugin host runs

The schema is inferred in process (no CLI): `package_schema()`; `python -m pathways_gke.schema` prints,
writes or checks the committed snapshot.
"""

import json
from typing import Any, Optional

import pulumi

from . import __version__
from .cluster import PathwaysCluster
from .workloads.jax import JaxWorkload
from .workloads.pathways import PathwaysWorkload
from .workloads.serving import PathwaysServing

PACKAGE = "pathways-gke"
"""Package name: every token is `pathways-gke:index:<Component>`."""

COMPONENTS: list[type[pulumi.ComponentResource]] = [PathwaysCluster, PathwaysWorkload, JaxWorkload, PathwaysServing]
"""The components other languages can use (the order is the schema's)."""


def component_provider(version: Optional[str] = None) -> Any:
    """The SDK's ComponentProvider for our components: the analyzer and construct logic the host runs."""
    from pulumi.provider.experimental.component import ComponentProvider

    return ComponentProvider(COMPONENTS, PACKAGE, None, version or __version__)


def package_schema(version: Optional[str] = None) -> dict[str, Any]:
    """The package schema exactly as the plugin serves it over GetSchema."""
    return json.loads(component_provider(version).schema)


def main() -> None:
    from pulumi.provider.experimental import component_provider_host

    component_provider_host(COMPONENTS, name=PACKAGE, version=__version__)


if __name__ == "__main__":
    main()

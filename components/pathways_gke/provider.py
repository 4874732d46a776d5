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
import sys
from functools import partial
from typing import Any, Optional

import pulumi

from . import __version__
from .cluster import PathwaysCluster
from .component import input_properties_error
from .errors import ConfigError
from .tokens import PACKAGE, component_token
from .workloads.jax import JaxWorkload
from .workloads.pathways import PathwaysWorkload
from .workloads.serving import PathwaysServing

COMPONENTS: list[type[pulumi.ComponentResource]] = [PathwaysCluster, PathwaysWorkload, JaxWorkload, PathwaysServing]
"""The components other languages can use (the order is the schema's)."""


SECRET_OUTPUTS = {"PathwaysCluster": ("kubeconfig",)}
"""Outputs the schema marks `secret` (the analyzer infers no secrecy; the values are already Output.secret)."""


def mark_secret_outputs(schema: dict[str, Any]) -> dict[str, Any]:
    for component, names in SECRET_OUTPUTS.items():
        properties = schema["resources"][component_token(component)]["properties"]
        for name in names:
            properties[name]["secret"] = True
    return schema


def component_provider(version: Optional[str] = None) -> Any:
    """The SDK's ComponentProvider for our components (the analyzer and construct logic the host runs), with
    invalid inputs reported per property: the SDK wraps whatever a constructor raises, so the component's
    `InputPropertiesError` (component.py) is unwrapped for the gRPC server to answer INVALID_ARGUMENT."""
    from pulumi.provider.experimental.component import ComponentProvider
    from pulumi.provider.server import ComponentInitError

    class PathwaysComponentProvider(ComponentProvider):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            assert self.schema is not None  # ComponentProvider.__init__ always sets the inferred schema
            self.schema = json.dumps(mark_secret_outputs(json.loads(self.schema)))

        def construct(self, name: str, resource_type: str, inputs: Any, options: Any = None) -> Any:
            try:
                return super().construct(name, resource_type, inputs, options)
            except ComponentInitError as exc:
                inner = getattr(exc, "inner", None)
                if isinstance(inner, ConfigError):  # a component's InvalidArgsError (component.py)
                    raise input_properties_error(inner) from None
                raise

        def get_state(self, instance: Any, component_def: Any) -> dict[str, Any]:
            """The SDK maps an output object's Python names to the schema's, but not the objects inside a list or a
            map output (`tpuPools`: WorkloadPlacement per group); those are mapped here, so other languages read
            the schema's camelCase names (`tpuType`) there too."""
            state = super().get_state(instance, component_def)
            for name, prop in component_def.outputs.items():
                inner = prop.items or prop.additional_properties
                type_def = self.get_type_definition(inner) if inner is not None and inner.ref else None
                if name in state and type_def is not None and not type_def.enum:
                    state[name] = pulumi.Output.from_input(state[name]).apply(partial(_map_each, self, type_def))
            return state

    return PathwaysComponentProvider(COMPONENTS, PACKAGE, None, version or __version__)


def _map_each(provider: Any, type_def: Any, value: Any) -> Any:
    if isinstance(value, list):
        return [provider.map_complex_output(item, type_def) for item in value]
    if isinstance(value, dict):
        return {key: provider.map_complex_output(item, type_def) for key, item in value.items()}
    return value


def package_schema(version: Optional[str] = None) -> dict[str, Any]:
    """The package schema exactly as the plugin serves it over GetSchema."""
    return json.loads(component_provider(version).schema)


def main() -> None:
    """Serve the components (what `component_provider_host` does, with our ComponentProvider)."""
    from pulumi.provider import main as serve
    from pulumi.provider.experimental import host

    if host.is_hosting:  # the analyzer may import this module: never start a second server
        return
    host.is_hosting = True
    serve(component_provider(), sys.argv[1:])


if __name__ == "__main__":
    main()

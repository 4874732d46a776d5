"""Plan an example project offline: its own Pulumi.yaml, stack file and __main__.py, under the offline engine."""

import runpy
from pathlib import Path
from typing import Any, Optional

import yaml

from pathways_gke.plan.engine import Plan
from tests.support.offline import run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


# What the examples' READMEs tell the user to set with `pulumi config set --secret` (the committed stack files carry
# no ciphertext: one made up could not be decrypted by `pulumi preview`); the offline plan never opens it.
USER_SECRETS = {
    ("workloads-only", "dev"): {"ml-workloads:secrets": {"hf-token": {"secure": "v1:set-by-the-user"}}},
    ("yaml", "dev"): {"ml-yaml:hfToken": {"secure": "v1:set-by-the-user"}},
}


def example_config(name: str, stack: str) -> dict[str, Any]:
    """An example's stack config once its user has set the secrets its README names."""
    config = yaml.safe_load((EXAMPLES / name / f"Pulumi.{stack}.yaml").read_text())["config"]
    return {**config, **USER_SECRETS.get((name, stack), {})}


def plan_example(name: str, stack: str, mocks: Optional[Any] = None) -> Plan:
    directory = EXAMPLES / name
    project = yaml.safe_load((directory / "Pulumi.yaml").read_text())["name"]
    config = example_config(name, stack)
    return run(lambda: runpy.run_path(str(directory / "__main__.py"), run_name="__main__"),
               stack=stack, project=project, config=config, mocks=mocks)


def construct_plan(token: str, name: str, inputs: Any, *, stack: str, project: str) -> tuple[Plan, Any]:
    """What the pathways-gke plugin does for a TypeScript / Go / YAML program, under the offline engine.

    The SDK's ComponentProvider.construct: map the wire inputs to Python names, run the component's
    constructor, read its outputs back (get_state). Returns the plan and the ConstructResult.
    `inputs` may be a callable, to build Outputs (secrets) inside the run.
    """
    import pulumi

    from pathways_gke.provider import component_provider

    provider = component_provider()
    result = {}

    def program():
        values = inputs() if callable(inputs) else inputs
        result["construct"] = provider.construct(name, token, values, pulumi.ResourceOptions())

    plan = run(program, stack=stack, project=project)
    return plan, result["construct"]


def as_wire(value: Any) -> Any:
    """Numbers as the engine sends them (floats)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return float(value)
    if isinstance(value, dict):
        return {k: as_wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_wire(v) for v in value]
    return value

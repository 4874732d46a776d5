"""The stack config is one pydantic root model (config/model.py StackConfig) whose validator runs the checks
across sections: validated directly it reports exactly what `parse_stack` reports, and `parse_stack` still
collects every problem (a bad section never hides another's; the checks across sections still run)."""

import pytest
from pydantic import BaseModel, ValidationError, model_validator

from pathways_gke.config import model as stack_model
from pathways_gke.config.base import problems_from
from pathways_gke.config.model import StackConfig
from pathways_gke.config.stack import parse_stack, read_stack_file
from pathways_gke.errors import ConfigError, Problem
from tests.conftest import ROOT

P = "pathways-gke:"


def dev(**sections) -> dict:
    """The dev stack's config mapping (`gcp:project`, `pathways-gke:cluster`, ...) with sections replaced."""
    config = dict(read_stack_file(ROOT / "stacks" / "Pulumi.dev.yaml"))
    config.update({f"{P}{key}": value for key, value in sections.items()})
    return config


def as_model_input(config: dict) -> dict:
    """The same mapping keyed as the root model's fields are (`gcp:project`, `cluster`, `cpuPool`, ...)."""
    return {key.removeprefix(P): value for key, value in config.items()}


def problems_of_parse(config: dict) -> list[Problem]:
    with pytest.raises(ConfigError) as raised:
        parse_stack(config)
    return raised.value.problems


# problems from three different cross-section checks (pools, workloads, ignored keys), so the order is tested too
CROSS_SECTION = dict(cpuPool={"machineType": "n2-standard-64", "minNodes": 3, "maxNodes": 1},
                     observability={"stuckMinutes": 30},
                     workloads=[{"name": "train", "tpuPool": "nope", "image": "us-docker.pkg.dev/p/r/i:1",
                                 "command": "python3 train.py", "pathways": {"version": "jax-0.9.2"}}])


def test_the_cross_section_checks_run_as_the_root_models_validator():
    config = dev(**CROSS_SECTION)
    expected = problems_of_parse(config)
    assert [p.path for p in expected][:1] == ["cpuPool.minNodes"]
    assert {"workloads[0].tpuPool", "observability.stuckMinutes"} <= {p.path for p in expected}

    with pytest.raises(ValidationError) as raised:
        StackConfig.model_validate(as_model_input(config))
    (error,) = raised.value.errors(include_url=False)
    # the ConfigError is a ValueError: pydantic wraps it at the root and keeps the exception itself
    assert error["type"] == "value_error" and error["loc"] == ()
    assert isinstance(error["ctx"]["error"], ConfigError)
    assert error["ctx"]["error"].problems == expected
    assert problems_from(raised.value, StackConfig, []) == expected


def test_a_valid_stack_validates_directly_to_what_parse_stack_returns():
    config = dev()
    assert StackConfig.model_validate(as_model_input(config)) == parse_stack(config)


def test_the_root_model_keeps_only_the_names_of_the_secrets():
    stack = StackConfig.model_validate(as_model_input(dev(secrets={"hf": "s3cr3t", "b": "x"})))
    assert stack.secret_names == ("b", "hf")
    assert "s3cr3t" not in repr(stack)


def test_without_the_checks_the_model_refuses_to_validate(monkeypatch):
    """An exception that is not a ValueError passes through pydantic unchanged: a stack is never silently
    unchecked."""
    monkeypatch.setattr(stack_model, "_cross_section_checks", [])
    with pytest.raises(RuntimeError, match="cross-section checks are not loaded"):
        StackConfig.model_validate(as_model_input(dev()))


def test_pydantic_wraps_a_value_error_and_passes_other_exceptions_through():
    """What the root model's validator relies on (pydantic's documented validator contract)."""
    class Raises(BaseModel):
        kind: str

        @model_validator(mode="after")
        def _raise(self):
            raise ConfigError([Problem("a", "one"), Problem("b", "two", 2)]) if self.kind == "config" else \
                LookupError("other")

    with pytest.raises(ValidationError) as wrapped:
        Raises(kind="config")
    assert problems_from(wrapped.value, Raises, []) == [Problem("a", "one"), Problem("b", "two", 2)]
    assert problems_from(wrapped.value, Raises, ["x", 0]) == [Problem("x[0].a", "one"), Problem("x[0].b", "two", 2)]
    with pytest.raises(LookupError):
        Raises(kind="other")


def test_a_bad_project_namespace_or_secrets_does_not_stop_the_cross_section_checks():
    config = {**dev(**CROSS_SECTION, namespace="Bad_NS", secrets=["x"]), "gcp:project": "X"}
    problems = problems_of_parse(config)
    paths = [p.path for p in problems]
    assert paths[:3] == ["gcp:project", "namespace", "secrets"]
    assert paths[3:] == [p.path for p in problems_of_parse(dev(**CROSS_SECTION))]


def test_a_bad_section_does_not_hide_another_and_parsed_pools_are_still_checked():
    pools = [{"name": "ok", "type": "v6e", "topology": "2x4", "zone": "europe-west4-a"},
             {"name": "bad", "type": "v6e", "topology": "2x4", "zone": "us-east5-b", "slices": 0}]
    problems = problems_of_parse(dev(tpuPools=pools, jobset={"version": "nope"}))
    paths = [p.path for p in problems]
    assert "tpuPools[1].slices" in paths and "jobset.version" in paths
    assert "tpuPools[0].zone" in paths  # the pool that parsed, checked against the cluster's region

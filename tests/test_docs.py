"""docs/components.md tells the truth: generated tables are current, every child resource is listed."""

import re

import pytest

from pathways_gke import docgen
from pathways_gke.plan.engine import plan_config
from tests.conftest import ROOT, STACKS
from tests.support.variants import every_optional_child_config

DOC = ROOT / "docs/components.md"
ROW = re.compile(r"^\| `(?P<name><name>[^`]*)` \| `(?P<type>[^`]+)` \|", re.M)


def documented_children() -> list[tuple[str, str]]:
    return [(m["name"], m["type"]) for m in ROW.finditer(DOC.read_text())]


def matches(pattern: str, type_pattern: str, component: str, name: str, type_: str) -> bool:
    regex = re.escape(pattern).replace(re.escape("<name>"), re.escape(component))
    regex = re.sub(r"<[a-z]+>", "[a-z0-9.-]+", regex.replace("\\<", "<").replace("\\>", ">"))
    type_regex = re.escape(type_pattern).replace(r"\*", "[A-Za-z]+")
    return re.fullmatch(regex, name) is not None and re.fullmatch(type_regex, type_) is not None


@pytest.mark.slow
def test_generated_reference_is_current():
    document = DOC.read_text()
    assert docgen.splice(document, docgen.render()) == document, "run: python -m pathways_gke.docgen --write"


@pytest.mark.slow
def test_every_input_output_and_type_is_in_the_reference(tmp_path):
    from pathways_gke.provider import package_schema

    text = DOC.read_text()
    schema = package_schema()
    for token, resource in schema["resources"].items():
        assert f"(`{token}`)" in text
        for name in [*resource["inputProperties"], *resource["properties"]]:
            assert f"| `{name}` |" in text, name
    for token in schema["types"]:
        assert f"#### {token.rsplit(':', 1)[-1]}" in text


def queued_variant():
    return plan_config(every_optional_child_config(), stack="queued")


@pytest.mark.slow
@pytest.mark.parametrize("label", [*STACKS, "queued"])
def test_every_child_resource_is_documented(label, stack_plans):
    plan = queued_variant() if label == "queued" else stack_plans(label)
    rows = documented_children()
    components = [r for r in plan.resources if r.type == "pathways-gke:index:PathwaysCluster"]
    assert components
    if label == "queued":  # the variant really has the optional children
        names = {r.name for r in plan.resources}
        assert {"pw-prod-burst-wp", "pw-prod-services-admission-check", "pw-prod-eval", "pw-prod-eval-env"} <= names
    for component in components:
        children = [r for r in plan.resources if r.urn.split("::")[2].startswith(component.type)]
        for child in children:
            assert any(matches(p, t, component.name, child.name, child.type) for p, t in rows), \
                f"{child.name} ({child.type}) is not in docs/components.md"

"""The package's layers import downward only, and nothing imports in a circle.

Bottom: the facts (catalog, naming, errors, capacity, releases, the GKE rulebook, type tokens, property paths);
then config/ (the models and their checks); then the pure builders and the components; then the tooling (plan,
CLI). Every import counts, function-level ones included, so a cycle cannot hide behind a late import.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "components" / "pathways_gke"
BOTTOM = {"apply_rules", "bridge_schema", "catalog", "ironwood", "naming", "errors", "capacity", "releases", "gke_rules", "tokens", "property_paths",
          "pathways_facts"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def imports_of(name: str) -> set[str]:
    """The package's modules `name` imports, anywhere in its body."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                out.add(candidate if candidate in MODULES else target)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return {m for m in out if m in MODULES and m != name}


GRAPH = {name: imports_of(name) for name in MODULES}


def layer_of(name: str) -> str:
    parts = name.split(".")
    return "bottom" if len(parts) > 1 and parts[1] in BOTTOM else (parts[1] if len(parts) > 1 else "package")


def test_no_module_imports_in_a_circle():
    seen: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, path: list[str]) -> None:
        seen[name] = 1
        for dep in sorted(GRAPH[name]):
            assert seen.get(dep) != 1, " -> ".join([*path, name, dep])
            if dep not in seen:
                visit(dep, [*path, name])
        seen[name] = 2

    for name in sorted(GRAPH):
        if name not in seen:
            visit(name, [])


def test_the_facts_at_the_bottom_import_only_each_other():
    for name, deps in GRAPH.items():
        if layer_of(name) == "bottom":
            assert {layer_of(d) for d in deps} <= {"bottom"}, (name, sorted(deps))


def test_config_imports_nothing_above_it():
    for name, deps in GRAPH.items():
        if layer_of(name) == "config":
            above = sorted(d for d in deps if layer_of(d) not in ("bottom", "config"))
            assert above == [], f"{name} imports {above}"


def test_builders_never_import_the_tooling():
    for name, deps in GRAPH.items():
        if layer_of(name) in ("gke", "addons", "render", "workloads", "config", "bottom"):
            assert not any(layer_of(d) == "plan" for d in deps), (name, sorted(deps))


def test_the_walk_sees_the_package():
    assert len(MODULES) > 50 and "pathways_gke.config.checks" in GRAPH
    assert "pathways_gke.releases" in GRAPH["pathways_gke.config.addons"]  # a known edge is found


def test_the_architecture_page_places_every_module():
    text = (ROOT / "docs" / "architecture.md").read_text()
    top = [p.name for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")]
    packages = [f"{p.name}/" for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()]
    assert [name for name in top + packages if name not in text] == []


# The pure builders (docs/architecture.md, "builders (pure)"): everything in gke/ (with the identity planner), addons/
# and render/ (the workload objects); workloads/ holds only the three components and their base.
# They import neither Pulumi nor a component module, so the tests, the offline plan and the peer comparisons read the
# same data the components wire into resources.
BUILDER_PACKAGES = ("gke", "addons", "render")
COMPONENT_WORKLOADS = {"base", "jax", "pathways", "serving"}
COMPONENT_MODULES = {"cluster", "services", "access", "component", "deferred", "protection", "args", "args_types"}


def is_builder(name: str) -> bool:
    parts = name.split(".")
    return len(parts) >= 2 and parts[1] in BUILDER_PACKAGES


def is_component(name: str) -> bool:
    parts = name.split(".")
    return (len(parts) == 2 and parts[1] in COMPONENT_MODULES) or (
        len(parts) == 3 and parts[1] == "workloads" and parts[2] in COMPONENT_WORKLOADS)


def third_party_imports(name: str) -> set[str]:
    """Top-level names of every module `name` imports from outside the package, function-level ones included."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[name].read_text())):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            out.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            out.update(alias.name.split(".")[0] for alias in node.names)
    return out


def test_builders_import_neither_pulumi_nor_a_component():
    builders = sorted(name for name in MODULES if is_builder(name))
    assert {"pathways_gke.render.pathways_jobset", "pathways_gke.render.serving_lws", "pathways_gke.render.pod",
            "pathways_gke.render.objects", "pathways_gke.gke.identity", "pathways_gke.gke.nodepools"} <= set(builders)
    for name in builders:
        pulumi = sorted(m for m in third_party_imports(name) if m == "pulumi" or m.startswith("pulumi_"))
        assert pulumi == [], f"{name} imports {pulumi}: builders are pure data"
        components = sorted(d for d in GRAPH[name] if is_component(d))
        assert components == [], f"{name} imports the components {components}"


def test_the_layer_rule_would_catch_a_builder_importing_a_component():
    """The check above is not vacuous: the walk classifies a real component import as one."""
    assert is_component("pathways_gke.workloads.pathways") and is_component("pathways_gke.component")
    assert not is_builder("pathways_gke.workloads.serving") and is_builder("pathways_gke.render.serving_lws")
    assert is_component("pathways_gke.workloads.base") and not is_builder("pathways_gke.workloads.base")
    assert is_builder("pathways_gke.render") and is_builder("pathways_gke.gke.identity")
    assert "pulumi" in third_party_imports("pathways_gke.workloads.pathways")


def test_every_module_of_the_render_package_is_a_builder():
    """render/ holds only pure builders: no module there is exempt from the rule above."""
    render = sorted(name for name in MODULES if name.split(".")[1:2] == ["render"])
    assert len(render) >= 6 and all(is_builder(name) for name in render), render


def test_the_workloads_package_holds_the_three_components_on_their_base_and_nothing_else():
    workloads = {name.split(".")[2] for name in MODULES if name.split(".")[1:2] == ["workloads"] and name.count(".") == 2}
    assert workloads == COMPONENT_WORKLOADS

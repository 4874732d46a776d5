"""Generate the argument and output tables of docs/components.md from the schema and the config models, and
the table of GKE rules in docs/gke-rules.md from the rulebook (gke_rules.RULES).

    python -m pathways_gke.docgen            # print the generated reference
    python -m pathways_gke.docgen --write    # refresh both between their markers
    python -m pathways_gke.docgen --check    # exit 1 when a doc is out of date

Types and descriptions come from the inferred component schema (what other languages see); defaults and
numeric bounds from the pydantic models (what validation enforces). Nothing is typed in twice.
"""

import json
import sys
from pathlib import Path
from typing import Any, Optional, Sequence

from .generated import command

DOC = Path("docs") / "components.md"
BEGIN = "<!-- BEGIN GENERATED REFERENCE (python -m pathways_gke.docgen --write) -->"
END = "<!-- END GENERATED REFERENCE -->"
RULES_DOC = Path("docs") / "gke-rules.md"


def _models() -> dict[str, Any]:
    """Schema type name -> the pydantic model that validates it."""
    from .config import addons, cluster, pathways, serving, tpu, workloads

    return {
        "Cluster": cluster.ClusterConfig, "NodeServiceAccount": cluster.NodeServiceAccount,
        "Maintenance": cluster.Maintenance, "MaintenanceWindow": cluster.MaintenanceWindow,
        "MaintenanceExclusion": cluster.MaintenanceExclusion,
        "CpuPool": cluster.CpuPoolConfig, "TpuPool": tpu.TpuPoolConfig, "Reservation": tpu.Reservation,
        "JobSet": addons.JobSetConfig, "Kueue": addons.KueueConfig, "Workload": workloads.WORKLOAD_MODELS,
        "PathwaysSettings": workloads.PathwaysSettings, "JaxSettings": workloads.JaxSettings,
        "PathwaysImages": pathways.PathwaysImages, "PathwaysFlags": pathways.PathwaysFlags,
        "PathwaysEnv": pathways.PathwaysEnv, "ContainerResources": pathways.ContainerResources,
        "GcsFuseVolume": pathways.GcsFuseVolume, "Lws": addons.LwsConfig,
        "Sidecar": pathways.Sidecar, "SidecarResources": pathways.SidecarResources,
        "ServingSettings": serving.ServingSettings, "ServingPort": serving.ServingPort,
        "ServingProbes": serving.ServingProbes, "ServiceSettings": serving.ServiceSettings,
    }


def _type(prop: dict[str, Any]) -> str:
    if "$ref" in prop:
        name = prop["$ref"].rsplit(":", 1)[-1]
        return f"[{name}](#{name.lower()})"
    kind = prop.get("type", "any")
    if kind == "array":
        return f"list of {_type(prop['items'])}"
    if kind == "object" and "additionalProperties" in prop:
        return f"map of {_type(prop['additionalProperties'])}"
    return kind


def _default(field: Any) -> str:
    if field is None or field.is_required():
        return ""
    if field.default_factory is not None:
        value = field.default_factory()
        if hasattr(value, "model_dump"):
            return ""  # a nested section: see its own table
        return f"`{json.dumps(value)}`" if value else ""
    return "" if field.default is None else f"`{json.dumps(field.default)}`"


def _bounds(field: Any) -> str:
    if field is None:
        return ""
    parts = []
    for item in field.metadata:
        for attr, sign in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<")):
            if getattr(item, attr, None) is not None:
                parts.append(f"{sign} {getattr(item, attr)}")
    return ", ".join(parts)


def _cell(text: str) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def _table(properties: dict[str, Any], required: Sequence[str], model: Any = None,
           with_defaults: bool = True) -> list[str]:
    fields = {}
    if model is not None:
        from .args import camel

        for one in reversed(model if isinstance(model, tuple) else (model,)):  # a union: the first member's wins
            fields.update({camel(name): field for name, field in one.model_fields.items()})
    head = "| Name | Type | Required | Default | Bounds | Description |" if with_defaults else \
        "| Name | Type | Description |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for name, prop in properties.items():
        description = _cell(prop.get("description", ""))
        if with_defaults:
            field = fields.get(name)
            lines.append(f"| `{name}` | {_type(prop)} | {'yes' if name in required else ''} | {_default(field)} | "
                         f"{_bounds(field)} | {description} |")
        else:
            lines.append(f"| `{name}` | {_type(prop)} | {description} |")
    return lines


def render(schema: Optional[dict[str, Any]] = None) -> str:
    from .provider import package_schema

    schema = schema or package_schema()
    models = _models()
    out: list[str] = []
    for token, resource in schema["resources"].items():
        name = token.rsplit(":", 1)[-1]
        out += [f"### {name} (`{token}`)", "", resource.get("description", ""), "", "Inputs:", ""]
        out += _table(resource["inputProperties"], resource.get("requiredInputs", []))
        out += ["", "Outputs:", ""]
        out += _table(resource["properties"], resource.get("required", []), with_defaults=False)
        out += [""]
    enums = {t: v for t, v in schema["types"].items() if "enum" in v}
    objects = {t: v for t, v in schema["types"].items() if "enum" not in v}
    out += ["### Types", ""]
    for token, typ in objects.items():
        name = token.rsplit(":", 1)[-1]
        model = models.get(name)
        members = model if isinstance(model, tuple) else (model,) if model else ()
        note = (" Validated by " + " or ".join(f"`{m.__module__}.{m.__name__}`" for m in members) + "."
                if members else " (output only)")
        out += [f"#### {name}", "", _cell(typ.get("description", "")) + note, ""]
        out += _table(typ["properties"], typ.get("required", []), model, with_defaults=model is not None)
        out += [""]
    out += ["### Enums", ""]
    for token, typ in enums.items():
        name = token.rsplit(":", 1)[-1]
        out += [f"#### {name}", "", _cell(typ.get("description", "")), "", "| Value | Meaning |", "|---|---|"]
        out += [f"| `{e['value']}` | {_cell(e.get('description', ''))} |" for e in typ["enum"]]
        out += [""]
    return "\n".join(out).rstrip() + "\n"


def render_rules() -> str:
    """The rulebook as a Markdown table: rule, what it prevents, source."""
    from .gke_rules import RULES

    lines = ["| Rule | What we check or do | Prevents | Source |", "|---|---|---|---|"]
    lines += [f"| `{r.id}` | {_cell(r.rule)} | {_cell(r.prevents)} | {_cell(r.source)} |" for r in RULES]
    return "\n".join(lines) + "\n"


def splice(document: str, generated: str) -> str:
    if BEGIN not in document or END not in document:
        raise ValueError(f"{DOC} has no generated-reference markers")
    head, rest = document.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{generated}{END}{tail}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    def outputs() -> dict[Path, tuple[str, str]]:
        return {path: (splice(path.read_text(), text), text) for path, text in ((DOC, render()),
                                                                                (RULES_DOC, render_rules()))}

    return command("pathways_gke.docgen", __doc__.split("\n")[0], outputs, argv)


if __name__ == "__main__":
    sys.exit(main())

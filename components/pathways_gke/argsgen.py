"""The components' cross-language argument types (args_types.py), generated from the config models.

    python -m pathways_gke.argsgen            # print the generated module
    python -m pathways_gke.argsgen --write    # rewrite components/pathways_gke/args_types.py
    python -m pathways_gke.argsgen --check    # exit 1 with a diff when the committed module is out of date

One source for every section, for PathwaysCluster's args (the root model `StackConfig`, its fields the sections; each
arg is named by its stack key in snake_case) and for the workload components' args: the pydantic model decides the fields, which
are required, their types, their bounds and (from the docstring under each field) their descriptions;
`config.closed_sets` names each Literal for other languages; `config.deferrable` says which values may be Outputs. The generated TypedDicts and Enums stay
inside what Pulumi's schema analyzer reads (no Union, no Literal, no postponed annotations).

The workload components' Args are generated whole: their placement fields come from the one `Placement` model.
(The analyzer would read an inherited TypedDict's fields and requiredness, but not the descriptions of inherited
fields: it parses only the subclass's own source.)
"""

from __future__ import annotations

import inspect
import re
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Sequence, Union, get_args, get_origin

from pydantic import BaseModel

from .config.closed_sets import CLOSED_SETS, ClosedSet, closed_set_of
from .config.deferrable import deferrable_kind
from .config.model import SECRET_VALUES, STACK_KEYS, StackConfig
from .config.workloads import (CLUSTER_WIRED, WORKLOAD_DESCRIPTION, WORKLOAD_MODELS, JaxWorkloadConfig,
                               WorkloadConfig)
from .generated import command
from .releases import KUEUE_LWS_NAME_LIMIT, LWS_LONG_NAMES_SINCE, release_description
from .config.placement import Placement

TARGET = Path(__file__).with_name("args_types.py")
UNION_NAMES = {id(WorkloadConfig): ("Workload", WORKLOAD_MODELS, WORKLOAD_DESCRIPTION)}
"""Unions of models (told apart by a discriminator) and the one TypedDict other languages see for each."""
QUOTES = '"' * 3

_Members = tuple[type[BaseModel], ...]

ROOT_ARGS = ("PathwaysClusterArgs", "Arguments of PathwaysCluster: the stack config contract, section by section.")
"""PathwaysCluster's Args, generated from the root model `StackConfig`: its name and description."""
SECRET_VALUES_TYPE = "pulumi.Input[Mapping[str, pulumi.Input[str]]]"
"""The arg type of the root model's field marked SECRET_VALUES (the model keeps the names, the arg the values)."""

JAX_WORKLOAD_SPEC = "JaxWorkloadSpec"
"""JaxWorkload's `workload`: JaxWorkloadConfig without `runtime` (the component is jax) and without the keys only
PathwaysCluster honours (CLUSTER_WIRED); image and command are required (the component has no other source)."""


WORKLOAD_PLACEMENT = "WorkloadPlacement"
WORKLOAD_PLACEMENT_DESCRIPTION = ("Where a workload runs: the placement args every workload component takes (PathwaysCluster's\n"
                                  "`tpuPools` output holds one per TPU pool group, to pass to a component unchanged).")


@dataclass(frozen=True)
class Arg:
    """An arg a component takes besides the placement."""

    name: str
    type: str
    description: str
    required: bool = False


@dataclass(frozen=True)
class ComponentArgs:
    """A workload component's Args: its `workload`, the placement fields, then its other args."""

    name: str
    description: str
    workload: Arg
    tpu_required: bool
    """Pathways runs on TPU slices only: tpu_type and slices are required in the schema."""
    rest: tuple[Arg, ...]


TPU_REQUIRED = ("tpu_type", "slices")
"""Placement fields a TPU-only component requires."""


SECRETS = Arg("secrets", "dict[str, pulumi.Input[str]]",
              "Secret values by name (give Pulumi secrets, e.g. config.require_secret), for the workload's\n"
              "secretEnv (ENV_VAR: secret name); stored in a Kubernetes Secret.")
COMPONENT_ARGS = (
    ComponentArgs(
        "PathwaysWorkloadArgs",
        "Inputs of a PathwaysWorkload. Values that shape the JobSet are plain (validated before registering).",
        Arg("workload", "Workload",
            "The workload, exactly as one `pathways-gke:workloads` entry (camelCase or snake_case keys): name, "
            "image,\ncommand, mode, pathways, maxRestarts, priorityClass, env, secretEnv, serviceAccount, resources, "
            "gcsFuse, ...\n(docs/pathways-workloads.md).", required=True),
        tpu_required=True, rest=(SECRETS,)),
    ComponentArgs(
        "JaxWorkloadArgs",
        "Inputs of a JaxWorkload. Values that shape the JobSet are plain (validated before registering).",
        Arg("workload", JAX_WORKLOAD_SPEC, "The workload: what every process runs (docs/jax-workloads.md).",
            required=True),
        tpu_required=False, rest=(SECRETS,)),
    ComponentArgs(
        "PathwaysServingArgs",
        "Inputs of a PathwaysServing. Values that shape the LeaderWorkerSet are plain (validated before "
        "registering).",
        Arg("workload", "dict[str, Any]",
            "The workload, exactly as one `pathways-gke:workloads` entry (camelCase keys) with mode serving (and a\n"
            "serving: block) or service (and a service: block); see docs/serving.md.", required=True),
        tpu_required=True,
        rest=(Arg("lws_version", "str", release_description("lws", "Release of the LWS controller in the cluster")),
              Arg("kueue_version", "str", release_description(
                  "kueue", "Release of the Kueue controller that admits the workload when queue_name is set; before "
                  f"{LWS_LONG_NAMES_SINCE} a LeaderWorkerSet name is limited to {KUEUE_LWS_NAME_LIMIT} characters")),
              SECRETS)),
)
"""The workload components' Args TypedDicts (PathwaysWorkload, JaxWorkload, PathwaysServing)."""


def typed_dict_name(model: type[BaseModel]) -> str:
    """ClusterConfig -> Cluster: the schema's type names carry no `Config`."""
    return model.__name__.removesuffix("Config")


class _Generator:
    def __init__(self) -> None:
        self.classes: dict[str, str] = {}  # TypedDict name -> source, dependencies first
        self.enums: dict[str, ClosedSet] = {}

    # --- types --------------------------------------------------------------------------------------------

    def type_text(self, annotation: Any, path: str) -> str:
        """The TypedDict field type of a model annotation at stack-config `path`."""
        if id(annotation) in UNION_NAMES:
            name, members, description = UNION_NAMES[id(annotation)]
            return self.typed_dict(members, path, name=name, description=description)
        annotation = _strip(annotation)
        origin, params = get_origin(annotation), get_args(annotation)
        if annotation in (str, int, bool, float):
            text = annotation.__name__
            return f"pulumi.Input[{text}]" if deferrable_kind(path) else text
        if origin is Literal:
            closed = closed_set_of(set(params))
            self.enums[closed.name] = closed
            return closed.name
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            return self.typed_dict((annotation,), path)
        if origin is list or (origin is tuple and len(params) == 2 and params[1] is Ellipsis):
            return f"list[{self.type_text(params[0], path + '[0]')}]"
        if origin is dict:
            return f"dict[str, {self.type_text(params[1], path + '.*')}]"
        if origin in (Union, types.UnionType):
            # a value with a short and a full form (`command`: text or list; `reservation`: name or mapping):
            # other languages get the full form, the short one is a stack-file convenience
            full = [p for p in params if _strip(p) is not str]
            if len(full) == 1:
                return self.type_text(full[0], path)
        raise TypeError(f"{path}: no argument type for {annotation!r}")

    def typed_dict(self, members: _Members, path: str, *, name: Optional[str] = None,
                   description: Optional[str] = None, without: frozenset[str] = frozenset(),
                   required_too: frozenset[str] = frozenset()) -> str:
        name = name or typed_dict_name(members[0])
        if name in self.classes:
            return name
        self.classes[name] = ""  # reserved: a recursive reference would name it before it is written
        fields: dict[str, Any] = {}
        for model in reversed(members):  # the first member (the default of a union) wins
            fields.update(model.model_fields)
        required = set.intersection(*({n for n, f in m.model_fields.items() if f.is_required()} for m in members))
        required |= required_too
        lines = [f"class {name}(TypedDict):", _docstring(description or _description(members[0]), "    "), ""]
        lines.extend(self.field_lines(fields, required, path, members, without))
        del self.classes[name]
        self.classes[name] = "\n".join(lines)
        return name

    def field_lines(self, fields: dict[str, Any], required: set[str], path: str, members: _Members,
                    without: frozenset[str] = frozenset()) -> list[str]:
        lines = []
        for field_name, info in fields.items():
            if field_name in without:
                continue
            key = info.alias or field_name
            if field_name == "runtime" and len(members) > 1:  # the discriminator: every member's value
                values = {v for m in members for v in get_args(_strip(m.model_fields["runtime"].annotation))}
                closed = closed_set_of(values)
                self.enums[closed.name] = closed
                text = closed.name
            else:
                text = self.type_text(info.annotation, f"{path}.{key}")
            lines.append(f"    {field_name}: {text if field_name in required else f'NotRequired[{text}]'}")
            if not info.description:
                raise ValueError(f"{members[0].__name__}.{field_name} has no docstring: it is the schema's description")
            lines.append(_docstring(info.description, "    "))
        return lines

    def root_args(self) -> None:
        """PathwaysCluster's Args: the root model's fields, each named by its stack key in snake_case (`project`
        is gcp:project, `cpu_pool` cpuPool), its type, requiredness and description the field's."""
        name, description = ROOT_ARGS
        arg_of = {key: arg for arg, key in STACK_KEYS.items()}
        lines = [f"class {name}(TypedDict):", _docstring(description, "    "), ""]
        for field_name, info in StackConfig.model_fields.items():
            key = info.alias or field_name
            text = (SECRET_VALUES_TYPE if SECRET_VALUES in info.metadata
                    else self.type_text(info.annotation, key))
            if not info.description:
                raise ValueError(f"StackConfig.{field_name} has no docstring: it is the schema's description")
            lines.extend(_arg_lines(Arg(arg_of[key], text, info.description, info.is_required())))
        self.classes[name] = "\n".join(lines)

    def component_args(self, component: ComponentArgs) -> None:
        """A workload component's Args: the placement fields from the one Placement model, between its own."""
        lines = [f"class {component.name}(TypedDict):", _docstring(component.description, "    "), ""]
        lines.extend(_arg_lines(component.workload))
        required = set(TPU_REQUIRED) if component.tpu_required else set()
        lines.extend(self.field_lines(dict(Placement.model_fields), required, "placement", (Placement,)))
        for arg in component.rest:
            lines.extend(_arg_lines(arg))
        self.classes[component.name] = "\n".join(lines)

    # --- the module -----------------------------------------------------------------------------------------

    def module(self) -> str:
        self.root_args()
        self.typed_dict((JaxWorkloadConfig,), "workloads[0]", name=JAX_WORKLOAD_SPEC,
                        description="A multi-controller JAX workload: what every process runs (the user's program on "
                                    "every TPU VM,\none Job per slice, or on CPU processes of the CPU pool).",
                        without=frozenset({"runtime", *CLUSTER_WIRED}), required_too=frozenset({"image", "command"}))
        self.typed_dict((Placement,), "placement", name=WORKLOAD_PLACEMENT, description=WORKLOAD_PLACEMENT_DESCRIPTION)
        for component in COMPONENT_ARGS:
            self.component_args(component)
        out = [HEADER]
        for closed in sorted(self.enums.values(), key=lambda c: [c.name for c in CLOSED_SETS].index(c.name)):
            out.append(_enum(closed))
        out.extend(self.classes.values())
        return "\n\n\n".join(out) + "\n"


HEADER = '''"""Generated by `python -m pathways_gke.argsgen` from the config models: do not edit (tests check it is current).

The TypedDicts and Enums of the components' arguments, the surface other languages see. Pulumi's schema analyzer
reads them: no Union, no Literal, and no postponed annotations here.
"""

from enum import Enum
from typing import Any, Mapping, NotRequired, TypedDict

import pulumi'''


def _arg_lines(arg: Arg) -> list[str]:
    return [f"    {arg.name}: {arg.type if arg.required else f'NotRequired[{arg.type}]'}",
            _docstring(arg.description, "    ")]


def _strip(annotation: Any) -> Any:
    """Annotated[T, ...] -> T and Optional[T] -> T (absence is NotRequired in a TypedDict)."""
    while True:
        if get_origin(annotation) is Annotated:
            annotation = get_args(annotation)[0]
            continue
        if get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation):
            rest = [a for a in get_args(annotation) if a is not type(None)]
            annotation = rest[0] if len(rest) == 1 else Union[tuple(rest)]
            continue
        return annotation


def _description(model: type[BaseModel]) -> str:
    """The first paragraph of a model's docstring: what users read; the rest is for developers."""
    return inspect.cleandoc(model.__doc__ or "").split("\n\n", 1)[0]


def _member_name(value: str) -> str:
    """'on-demand' -> ON_DEMAND, 'IfNotPresent' -> IF_NOT_PRESENT, 'readWrite' -> READ_WRITE."""
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", value).replace("-", "_").upper()


def _enum(closed: ClosedSet) -> str:
    lines = [f"class {closed.name}(str, Enum):", _docstring(closed.doc, "    "), ""]
    for value in closed.values:
        lines.append(f"    {_member_name(value)} = {value!r}".replace("'", '"'))
        if value in closed.meanings:
            lines.append(_docstring(closed.meanings[value], "    "))
    return "\n".join(lines)


def _docstring(text: str, indent: str) -> str:
    """A triple-quoted docstring, its lines as the model's docstring wraps them."""
    body = text.replace(QUOTES, "'" * 3).replace("\n", "\n" + indent)
    return f"{indent}{QUOTES}{body}{QUOTES}"


def generate() -> str:
    return _Generator().module()


def main(argv: Optional[Sequence[str]] = None) -> int:
    return command("pathways_gke.argsgen", __doc__.split("\n")[0], lambda: {TARGET: (generate(),) * 2}, argv)


if __name__ == "__main__":
    sys.exit(main())

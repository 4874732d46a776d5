"""The components' cross-language argument types (args_types.py), generated from the config models.

    python -m pathways_gke.argsgen            # print the generated module
    python -m pathways_gke.argsgen --write    # rewrite components/pathways_gke/args_types.py
    python -m pathways_gke.argsgen --check    # exit 1 with a diff when the committed module is out of date

One source for every section: the pydantic model decides the fields, which are required, their types, their
bounds and (from the docstring under each field) their descriptions; `config.closed_sets` names each Literal for
other languages; `config.deferrable` says which values may be Outputs. The generated TypedDicts and Enums stay
inside what Pulumi's schema analyzer reads (no Union, no Literal, no postponed annotations).
"""

from __future__ import annotations

import argparse
import difflib
import inspect
import re
import sys
import types
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Sequence, Union, get_args, get_origin

from pydantic import BaseModel

from .config.closed_sets import CLOSED_SETS, ClosedSet, closed_set_of
from .config.deferrable import deferrable_kind
from .config.stack import _ROOT_MODELS, _SECTIONS
from .config.workloads import WORKLOAD_DESCRIPTION, WORKLOAD_MODELS, WorkloadConfig

TARGET = Path(__file__).with_name("args_types.py")
UNION_NAMES = {id(WorkloadConfig): ("Workload", WORKLOAD_MODELS, WORKLOAD_DESCRIPTION)}
"""Unions of models (told apart by a discriminator) and the one TypedDict other languages see for each."""
QUOTES = '"' * 3

_Members = tuple[type[BaseModel], ...]


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
        if origin is list:
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
                   description: Optional[str] = None) -> str:
        name = name or typed_dict_name(members[0])
        if name in self.classes:
            return name
        self.classes[name] = ""  # reserved: a recursive reference would name it before it is written
        fields: dict[str, Any] = {}
        for model in reversed(members):  # the first member (the default of a union) wins
            fields.update(model.model_fields)
        required = set.intersection(*({n for n, f in m.model_fields.items() if f.is_required()} for m in members))
        lines = [f"class {name}(TypedDict):", _docstring(description or _description(members[0]), "    "), ""]
        for field_name, info in fields.items():
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
        del self.classes[name]
        self.classes[name] = "\n".join(lines)
        return name

    # --- the module -----------------------------------------------------------------------------------------

    def module(self) -> str:
        for key, (_, _) in _SECTIONS.items():
            root = _ROOT_MODELS[key]
            path = f"{key}[0]" if key in ("tpuPools", "workloads", "buckets") else key
            self.type_text(root, path)
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
from typing import NotRequired, TypedDict

import pulumi'''


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
    parser = argparse.ArgumentParser(prog="python -m pathways_gke.argsgen", description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help=f"write {TARGET.name}")
    mode.add_argument("--check", action="store_true", help="fail (exit 1) when the committed module differs")
    args = parser.parse_args(argv)
    text = generate()
    if args.write:
        TARGET.write_text(text)
        print(f"wrote {TARGET}", file=sys.stderr)
        return 0
    if args.check:
        committed = TARGET.read_text() if TARGET.exists() else ""
        if committed != text:
            print("".join(difflib.unified_diff(committed.splitlines(True), text.splitlines(True),
                                               f"{TARGET.name} (committed)", f"{TARGET.name} (generated)")), end="")
            print(f"{TARGET.name} is out of date: run python -m pathways_gke.argsgen --write", file=sys.stderr)
            return 1
        return 0
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())

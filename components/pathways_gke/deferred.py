"""Outputs in component args: validated when known, swapped in wherever their stand-in ended up.

`config.deferrable` lists the fields that may be Outputs. `Deferred.take` (called while the args are turned
into the config mapping) replaces such an Output by a stand-in that passes validation; the component then
validates and builds everything from plain data as usual. Its `transformation` (a resource transformation on
the component, inherited by every child in this process) replaces each stand-in in the children's inputs by
the Output's value, also inside composed strings (`projects/<project>/reservations/...`), and that value is
first validated with the same models once known: a bad value fails the update naming its config path.
"""

import copy
import functools
import itertools
from typing import Any, Callable, Mapping, Optional

import pulumi

from .args import camel
from .config.deferrable import TOKEN, WORKLOAD_FIELDS, accepted_paths, deferrable_kind, stand_in
from .errors import ConfigError, Problem

_numbers = itertools.count(1)
FAILURES: list["DeferredConfigError"] = []
"""Every apply-time validation failure, in order: the SDK re-wraps an Output's exception in a plain
ValueError ("While processing resource ..."), so the offline plan reads the original from here."""


class ConfigRunError(ConfigError, pulumi.RunError):
    """Invalid config inside a running program: Pulumi ends the program with the message and no traceback
    (RunError); the offline plan and the CLI see a ConfigError (exit 2)."""


class DeferredConfigError(ConfigRunError):
    """An Output's value, once known, is invalid."""


class Deferred:
    """The Outputs taken out of one component's args, by stand-in."""

    def __init__(self, fields: Optional[dict[str, str]] = None):
        self.fields = fields
        self.values: dict[str, tuple[str, pulumi.Output]] = {}  # stand-in -> (config path, validated Output)
        self._validate: Optional[Callable[[Any], object]] = None
        self._mapping: Any = None

    def __bool__(self) -> bool:
        return bool(self.values)

    def accepts(self, path: str) -> bool:
        return deferrable_kind(path, self.fields) is not None

    def take(self, path: str, value: pulumi.Output) -> str:
        """A stand-in for the Output at `path` (which must be a deferrable path)."""
        kind = deferrable_kind(path, self.fields)
        assert kind is not None, path
        placeholder = stand_in(kind, next(_numbers))
        self.values[placeholder] = (path, value)
        return placeholder

    def validate_with(self, mapping: Any, validate: Callable[[Any], object]) -> None:
        """Check each value when known: `validate(mapping with that value in place of its stand-in)`."""
        self._mapping, self._validate = mapping, validate
        for placeholder, (path, output) in list(self.values.items()):
            checked = pulumi.Output.from_input(output).apply(functools.partial(self._check, placeholder, path))
            self.values[placeholder] = (path, checked)

    def _check(self, placeholder: str, path: str, value: Any) -> Any:
        if not isinstance(value, str):
            raise DeferredConfigError([Problem(path, f"must be a string; the Output's value is a "
                                               f"{type(value).__name__}")])
        if self._validate is not None:
            try:
                self._validate(_replace(self._mapping, {placeholder: value}))
            except ConfigError as exc:  # never echo the value: it may be a secret
                failure = DeferredConfigError([
                    Problem(p.path, p.message.replace(value, "<output value>") + " (value from an Output)")
                    for p in exc.problems])
                FAILURES.append(failure)
                raise failure from None
        return value

    # --- resolution --------------------------------------------------------------------------------

    def resolve(self, value: Any) -> Any:
        """`value` with every stand-in replaced by its Output (strings containing one become Outputs)."""
        if isinstance(value, str):
            used = [p for p in self.values if p in value]
            if not used:
                return value
            outputs = [self.values[p][1] for p in used]
            return pulumi.Output.all(*outputs).apply(lambda known: _finish(value, dict(zip(used, known))))
        if isinstance(value, Mapping):
            return {k: self.resolve(v) for k, v in value.items()}  # keys are always plain (deferrable.py)
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.resolve(v) for v in value)
        return value

    def transformation(self, args: pulumi.ResourceTransformationArgs) -> Optional[pulumi.ResourceTransformationResult]:
        """Resource transformation: a child's inputs with the stand-ins resolved (None when it has none)."""
        if not _contains_token(args.props):
            return None
        return pulumi.ResourceTransformationResult(props=self.resolve(args.props), opts=args.opts)


def defer_workload_outputs(workload: Any, deferred: Deferred, path: str = "") -> Any:
    """A workload component's `workload` mapping with each Output at a property-only path (config.deferrable
    WORKLOAD_FIELDS: image, env values, ...) replaced by a stand-in; an Output anywhere else raises ConfigError
    (it shapes the JobSet). Keys may be camelCase or snake_case (what the provider maps them to)."""
    if isinstance(workload, pulumi.Output):
        if deferred.accepts(path):
            return deferred.take(path, workload)
        raise ConfigError([Problem(f"workload.{path}" if path else "workload", "must be a plain value known when "
                                   "the component is created: it shapes the JobSet; an Output was given. Outputs "
                                   f"are accepted for workload.{{{accepted_paths(WORKLOAD_FIELDS)}}}")])
    if isinstance(workload, Mapping):
        return {k: defer_workload_outputs(v, deferred, _join(path, k)) for k, v in workload.items()}
    if isinstance(workload, (list, tuple)):
        return [defer_workload_outputs(v, deferred, f"{path}[{i}]") for i, v in enumerate(workload)]
    return workload


def _join(path: str, key: Any) -> str:
    """Config path of a key: camelCase, except keys of maps that hold user data (env variable names)."""
    in_env = path == "env" or path.startswith("pathways.env") or path.endswith("].env")
    return f"{path}.{key}" if in_env else (f"{path}.{camel(str(key))}" if path else camel(str(key)))


def _finish(text: str, known: Mapping[str, str]) -> str:
    out = text
    for placeholder, value in known.items():
        out = out.replace(placeholder, value)
    if TOKEN.search(out):  # a builder split a stand-in: never send a half-replaced value to the cloud
        raise DeferredConfigError([Problem("args", "an Output value was used in a derived name that cannot "
                                           "be computed before it is known; pass a plain value")])
    return out


def _replace(value: Any, known: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return _finish_partial(value, known)
    if isinstance(value, Mapping):
        return {k: _replace(v, known) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace(v, known) for v in value]
    return copy.copy(value)


def _finish_partial(text: str, known: Mapping[str, str]) -> str:
    for placeholder, value in known.items():
        text = text.replace(placeholder, value)
    return text


def _contains_token(value: Any) -> bool:
    if isinstance(value, str):
        return bool(TOKEN.search(value))
    if isinstance(value, Mapping):
        return any(_contains_token(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(_contains_token(v) for v in value)
    return False


__all__ = ["ConfigRunError", "Deferred", "DeferredConfigError", "defer_workload_outputs"]

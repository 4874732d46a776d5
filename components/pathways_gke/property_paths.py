"""Property paths in Pulumi's own syntax, the one `ignoreChanges` / `replaceOnChanges` and
`pulumi preview --diff` use: `nodeConfig.machineType`, `spec.replicatedJobs[1].replicas`,
`metadata.labels["pathways-gke/tpu-group"]`, `*` / `[*]` as wildcards in patterns.

`value_at` is the one walker that reads a nested value out of resource inputs, plan resources and Kubernetes
objects: the plan, the diff, the policies and the builders read values the same way (a missing key, a short
list or a value of the wrong shape gives the default, never an exception). It sits with the facts so every
layer can use it. Pure: no Pulumi import.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, Iterator, Sequence, Union

Part = Union[str, int]
IDENT = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
WILDCARD = "*"
COMPUTED = "<computed>"
"""A value known only after creation, as a first `pulumi preview` shows it (the offline plan's marker; the
policies and the pod fit skip it, never guess it)."""
_TOKEN = re.compile(r'\.?([A-Za-z_$*][A-Za-z0-9_$-]*)|\[(\d+|\*)\]|\["((?:[^"\\]|\\.)*)"\]')


def format_path(parts: Sequence[Part]) -> str:
    """('spec', 'replicatedJobs', 1, 'replicas') -> 'spec.replicatedJobs[1].replicas'."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif IDENT.match(part) or part == WILDCARD:
            out += f".{part}" if out else part
        else:
            out += '["' + part.replace("\\", "\\\\").replace('"', '\\"') + '"]'
    return out


def parse_path(path: str) -> tuple[Part, ...]:
    """The inverse of format_path; raises ValueError on text that is not a property path."""
    parts: list[Part] = []
    pos = 0
    while pos < len(path):
        match = _TOKEN.match(path, pos)
        if not match or (pos == 0 and path.startswith(".")) or (pos > 0 and match.group(1) and path[pos] != "."):
            raise ValueError(f"{path!r} is not a property path (at character {pos})")
        ident, index, quoted = match.groups()
        if ident is not None:
            parts.append(ident)
        elif index is not None:
            parts.append(WILDCARD if index == "*" else int(index))
        else:
            parts.append(re.sub(r"\\(.)", r"\1", quoted))
        pos = match.end()
    if not parts:
        raise ValueError("an empty property path")
    return tuple(parts)


def covers(pattern: Sequence[Part], changed: Sequence[Part]) -> bool:
    """Does a change at `changed` touch the VALUE `pattern` names (one is a prefix of the other)?

    For comparisons of values, such as a webhook's: a whole `containers[1]` that appeared changes what
    `containers[*].resources` holds. NOT the engine's matching of replaceOnChanges / ignoreChanges, which is
    `contains` (an added ancestor does not match the paths below it). `*` matches any one key or index; a lone
    `*` matches everything.
    """
    if tuple(pattern) == (WILDCARD,):
        return True
    for want, got in zip(pattern, changed):
        if want != WILDCARD and want != got:
            return False
    return True


def contains(pattern: Sequence[Part], path: Sequence[Part]) -> bool:
    """The Pulumi engine's `PropertyPath.Contains` (pulumi/pulumi sdk/go/common/resource/properties_path.go): does
    `pattern` name `path` or a path above it? A pattern matches a changed path equal to it or BELOW it only: an
    added ancestor (a whole `privateClusterConfig` that appeared) does not match `privateClusterConfig.x`. A `*`
    matches any one key or index; a lone `*` matches everything. The engine applies `replaceOnChanges` to the
    provider's detailed diff with it (pkg/resource/deploy/step_generator.go, `applyReplaceOnChanges`), and
    `ignoreChanges` resets exactly the paths it names (`processIgnoreChanges`)."""
    if len(path) < len(pattern):
        return False
    for want, got in zip(pattern, path):
        if want == WILDCARD:
            continue
        if isinstance(want, int) != isinstance(got, int) or want != got:
            return False
    return True


def reset_ignored(old: Any, new: Any, patterns: Sequence[Sequence[Part]]) -> Any:
    """`new` with every value an ignoreChanges pattern names put back to `old`'s (the engine's
    `processIgnoreChanges` / `PropertyPath.Reset`; a wildcard resets every key or index it matches). A value
    that is absent in `old` is dropped from `new`. `new` is not modified."""
    out = copy.deepcopy(new)
    for pattern in patterns:
        out = _reset(old, out, tuple(pattern))
    return out


_MISSING = object()


def _reset(old: Any, new: Any, pattern: tuple[Part, ...]) -> Any:
    if not pattern:
        return copy.deepcopy(old)
    head, rest = pattern[0], pattern[1:]
    if isinstance(new, dict):
        keys = list(set(new) | (set(old) if isinstance(old, dict) else set())) if head == WILDCARD else [head]
        for key in keys:
            before = old.get(key, _MISSING) if isinstance(old, dict) else _MISSING
            after = new.get(key, _MISSING)
            if not rest:
                if before is _MISSING:
                    new.pop(key, None)
                else:
                    new[key] = copy.deepcopy(before)
            elif after is not _MISSING:
                new[key] = _reset(None if before is _MISSING else before, after, rest)
        return new
    if isinstance(new, list):
        indices = range(len(new)) if head == WILDCARD else ([head] if isinstance(head, int) and head < len(new) else [])
        for i in indices:
            before = old[i] if isinstance(old, list) and i < len(old) else None
            new[i] = copy.deepcopy(before) if not rest else _reset(before, new[i], rest)
        return new
    return new


def changed_paths(old: Any, new: Any, prefix: tuple[Part, ...] = ()) -> Iterator[tuple[Part, ...]]:
    """Every leaf-most path at which two JSON values differ (dict keys by name, lists by index)."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            if key not in old or key not in new:
                yield prefix + (key,)
            else:
                yield from changed_paths(old[key], new[key], prefix + (key,))
    elif isinstance(old, list) and isinstance(new, list):
        for i in range(max(len(old), len(new))):
            if i >= len(old) or i >= len(new):
                yield prefix + (i,)
            else:
                yield from changed_paths(old[i], new[i], prefix + (i,))
    elif old != new or isinstance(old, bool) != isinstance(new, bool):
        if prefix:
            yield prefix
        else:  # two different top-level values: the whole thing changed
            yield (WILDCARD,)


def value_at(value: Any, path: Union[str, Sequence[Part]], default: Any = None) -> Any:
    """The value at `path` inside `value`, or `default` when it is not there.

    `path` is a property path (`spec.template.spec.containers`, `metadata.labels["pathways-gke/tpu-group"]`)
    or its parts (`("metadata", "labels", "pathways-gke/tpu-group")`, for keys held in constants). Mappings are
    read by key, lists by index; `*` is a key like any other here (a lookup names one value).
    """
    parts = parse_path(path) if isinstance(path, str) else path
    for part in parts:
        if isinstance(value, Mapping):
            if part not in value:
                return default
            value = value[part]
        elif isinstance(part, int) and _is_list(value) and 0 <= part < len(value):
            value = value[part]
        else:
            return default
    return value


def _is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))

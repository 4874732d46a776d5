"""The tests' one stack builder: a stack's `config:` mapping, keys namespaced as in a stack file, built from a small
valid stack or a shipped stack file, with the sections a test is about written at the call site.

    stack(tpuPools=[V5P], workloads=[TRAIN])         the small stack with a TPU pool group and a workload
    shipped("dev")                                   stacks/Pulumi.dev.yaml as it is (a fresh copy)
    stack("dev", kueue={"enabled": True})            dev with its kueue section replaced
    parsed("prod", tpuPools=QUEUED_POOLS)            prod with other pool groups, as the config layer reads it
    merged("dev", cluster={"version": "1.33"}, tpuPools=[{"capacity": "spot"}])
                                                     dev with one cluster key and the first pool's capacity changed
"""

from __future__ import annotations

import copy
import functools
from typing import Any, Mapping, Union

from pathways_gke.config import StackConfig, parse_stack
from pathways_gke.config.stack import read_stack_file
from tests.conftest import ROOT

P = "pathways-gke:"

# The least a valid stack says: a project, a cluster and where its CPU pool runs. No TPU pools, no workloads.
SMALL = {
    "gcp:project": "acme-ml-dev",
    P + "cluster": {"name": "pw", "location": "us-east5"},
    P + "cpuPool": {"zone": "us-east5-a"},
}


class _Absent:
    """A key merged as ABSENT is removed: merged("dev", cluster={"name": ABSENT})."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()

# prod's pool groups changed to a reserved v6e-16 group and a queued (ProvisioningRequest) v5p group
QUEUED_POOLS = [
    {"name": "train", "type": "v6e-16", "slices": 4, "zone": "us-east5-b", "capacity": "reservation",
     "reservation": "acme-v6e-east5"},
    {"name": "burst", "type": "v5p", "topology": "2x2x2", "slices": 2, "zone": "us-east5-a", "capacity": "queued"},
]

Base = Union[str, Mapping[str, Any], None]


def stack(base: Base = None, /, **sections: Any) -> dict[str, Any]:
    """A copy of `base` with whole sections replaced; a section given as None is removed.

    `base`: None for SMALL, a stack name for stacks/Pulumi.<name>.yaml (read as the Pulumi CLI reads it), or a
    config mapping. Section names are the stack file's keys without the `pathways-gke:` namespace
    (`cpuPool=...`); a key with its own namespace goes in as `**{"gcp:project": ...}`."""
    config = _copy_of(base)
    for name, value in sections.items():
        if value is None:
            config.pop(_key(name), None)
        else:
            config[_key(name)] = copy.deepcopy(value)
    return config


def merged(base: Base = None, /, **sections: Any) -> dict[str, Any]:
    """A copy of `base` with each given section merged one level deep.

    A mapping section gets the given keys (ABSENT removes one; a missing section starts empty); a list section
    (tpuPools, workloads, ...) gets its items merged in order, so `tpuPools=[{"capacity": "spot"}]` changes only
    the first pool (a new list, or a longer one, goes in whole with `stack`); a plain value is set."""
    config = _copy_of(base)
    for name, changes in sections.items():
        current = config.get(_key(name))
        if isinstance(changes, list):
            items = list(current or [])
            if len(changes) > len(items):
                raise ValueError(f"merged: {name} has {len(items)} items, {len(changes)} given; use stack() "
                                 "to write the whole list")
            for index, item_changes in enumerate(changes):
                items[index] = _merge(items[index], item_changes)
            config[_key(name)] = items
        elif isinstance(changes, Mapping):
            config[_key(name)] = _merge(current or {}, changes)
        else:
            config[_key(name)] = changes
    return config


def parsed(base: Base = None, /, **sections: Any) -> StackConfig:
    """`stack(base, **sections)` as the config layer reads it (ConfigError when it is invalid)."""
    return parse_stack(stack(base, **sections))


def shipped(name: str) -> dict[str, Any]:
    """The `config:` mapping of stacks/Pulumi.<name>.yaml (a fresh copy)."""
    return copy.deepcopy(_read(name))


@functools.lru_cache(maxsize=None)
def _read(name: str) -> dict[str, Any]:
    return read_stack_file(ROOT / "stacks" / f"Pulumi.{name}.yaml")


def _copy_of(base: Base) -> dict[str, Any]:
    if base is None:
        return copy.deepcopy(SMALL)
    if isinstance(base, str):
        return shipped(base)
    return copy.deepcopy(dict(base))


def _merge(section: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(section)
    for key, value in changes.items():
        if value is ABSENT:
            out.pop(key, None)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _key(name: str) -> str:
    return name if ":" in name else P + name

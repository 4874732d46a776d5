"""Stack builders shared by the tests/test_services_*.py files."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from pathways_gke.config import StackConfig, parse_stack, read_stack_file

ROOT = Path(__file__).resolve().parents[1]


def stack_values(env: str = "prod", **sections: Any) -> dict[str, Any]:
    """The config mapping of stacks/Pulumi.<env>.yaml with whole sections replaced (None removes one)."""
    values = copy.deepcopy(read_stack_file(ROOT / "stacks" / f"Pulumi.{env}.yaml"))
    for key, value in sections.items():
        full = key if ":" in key else f"pathways-gke:{key}"
        if value is None:
            values.pop(full, None)
        else:
            values[full] = value
    return values


def stack(env: str = "prod", **sections: Any) -> StackConfig:
    return parse_stack(stack_values(env, **sections))


QUEUED_POOLS = [
    {"name": "train", "type": "v6e-16", "slices": 4, "zone": "us-east5-b", "capacity": "reservation",
     "reservation": "acme-v6e-east5"},
    {"name": "burst", "type": "v5p", "topology": "2x2x2", "slices": 2, "zone": "us-east5-a", "capacity": "queued"},
]

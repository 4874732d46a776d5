"""Golden JobSet manifests, one per mode (default, headless, colocated) plus one with every key set
(tests/golden/pathways/*.yaml). Generations, machine types, topologies and capacity modes are not a golden
each: tests/test_pathways_matrix.py renders every catalog shape x mode and checks it against both JobSet CRDs,
the JobSet webhook's rules and the Pod schema; tests/test_pathways_jobset.py asserts what differs per shape
(tpu7x's placement-policy selector, hosts per slice).

A changed manifest is a visible diff in review. Regenerate after an intended change with
`PATHWAYS_GKE_UPDATE_GOLDEN=1 python -m pytest tests/test_pathways_golden.py` and read the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from pathways_gke.render.pathways_jobset import build_pathways_jobset

from .support.crd import jobset_schema_errors
from .support.pathways_cases import EVERYTHING, target, workload

GOLDEN = Path(__file__).parent / "golden" / "pathways"

CASES = {
    "v6e-4x4x4-default": (dict(name="train", maxRestarts=3),
                          dict(queue_name="pathways-queue", capacity="reservation")),
    "v6e-4x4x4-headless": (dict(name="notebook", mode="headless", image=None, command=None), {}),
    "v6e-2x4x1-colocated": (dict(name="infer", mode="colocated"), dict(topology="2x4", slices=1)),
    "v6e-4x4x2-everything": ({k: v for k, v in EVERYTHING.items() if k not in ("runtime", "tpuPool")},
                             dict(slices=2, capacity="queued")),
}


class _Dumper(yaml.SafeDumper):
    """Multi-line strings (the wrapper script, multi-line commands) as literal blocks, for readable diffs."""


_Dumper.add_representer(str, lambda d, s: d.represent_scalar("tag:yaml.org,2002:str", s,
                                                             style="|" if "\n" in s else None))


def render(case: str) -> str:
    overrides, where = CASES[case]
    js = build_pathways_jobset(workload(**overrides), target(**where), secret_name=f"{overrides['name']}-env")
    return yaml.dump(js, Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=120)


@pytest.mark.parametrize("case", sorted(CASES))
def test_golden_manifest(case):
    path = GOLDEN / f"{case}.yaml"
    text = render(case)
    if os.environ.get("PATHWAYS_GKE_UPDATE_GOLDEN"):
        path.write_text(text)
    assert path.exists(), f"missing golden file {path}; run with PATHWAYS_GKE_UPDATE_GOLDEN=1"
    assert text == path.read_text(), f"{case} changed; regenerate with PATHWAYS_GKE_UPDATE_GOLDEN=1 and review"
    assert jobset_schema_errors(yaml.safe_load(text)) == {"v0.8.2": [], "v0.12.0": []}


def test_every_golden_file_has_a_case():
    assert sorted(p.stem for p in GOLDEN.glob("*.yaml")) == sorted(CASES)

"""Our JobSets against what XPK 1.16.0 itself renders, field by field: every difference must be one of the
deliberate ones listed in docs/coming-from-xpk.md (the item number is given for each).

XPK is not a dependency: point PATHWAYS_GKE_XPK_PYTHON at an interpreter that has `xpk==1.16.0` installed
(e.g. `python -m venv /tmp/xpk && /tmp/xpk/bin/pip install xpk==1.16.0`), or install xpk in this one.
Skipped with that reason otherwise.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pathways_gke.render.pathways_jobset import build_pathways_jobset

from .support.pathways_cases import target, workload

pytestmark = pytest.mark.slow  # renders with XPK in a side venv (make test-fast skips it)

RENDER = Path(__file__).parent / "support" / "xpk_render.py"
HEAD = r"spec\.replicatedJobs\.pathways-head\.template\.spec\.template"
WORKER = r"spec\.replicatedJobs\.worker\.template\.spec\.template"
CONTAINER = r"\.spec\.(initContainers|containers)\.[a-z-]+"

# (kind, path regex, docs/coming-from-xpk.md item)
DELIBERATE = [
    ("ours-only", r"metadata\.namespace", 1),
    ("ours-only", r"metadata\.labels\.pathways-gke/workload", 2),
    ("xpk-only", r"metadata\.labels\.xpk\.google\.com/workload", 2),
    ("value", r"metadata\.labels\.kueue\.x-k8s\.io/queue-name", 2),
    ("ours-only", HEAD + r"\.metadata", 2),
    ("ours-only", HEAD + r"\.spec\.affinity", 27),
    ("ours-only", WORKER + r"\.metadata\.labels\.pathways-gke/workload", 2),
    ("xpk-only", WORKER + r"\.metadata\.labels\.xpk\.google\.com/workload", 2),
    ("ours-only", r"spec\.failurePolicy\.maxRestarts", 3),
    ("xpk-only", r"spec\.suspend", 4),
    ("ours-only", r"spec\.coordinator\.(jobIndex|podIndex)", 6),
    ("xpk-only", HEAD + r"\.spec\.volumes", 9),
    ("xpk-only", HEAD + r"\.spec\.containers\.jax-tpu\.volumeMounts", 9),
    ("xpk-only", HEAD + r"\.spec\.containers\.jax-tpu\.securityContext", 10),
    ("ours-only", HEAD + r"\.spec\.containers\.jax-tpu\.resources\.requests", 11),
    ("value", r".*" + CONTAINER + r"\.imagePullPolicy", 12),
    ("value", HEAD + r"\.spec\.containers\.jax-tpu\.command", 13),
    ("ours-only", HEAD + r"\.spec\.(terminationGracePeriodSeconds|priorityClassName|serviceAccountName|"
                         r"imagePullSecrets)", 14),
    ("xpk-only", HEAD + r"\.spec\.containers\.pathways-(rm|proxy)\.restartPolicy", 15),
    ("ours-only", WORKER + r"\.spec\.nodeSelector\.pathways-gke/tpu-group", 17),
    ("value", WORKER + r"\.spec\.tolerations", 18),
    ("xpk-only", WORKER + r"\.spec\.priorityClassName", 19),
    ("xpk-only", WORKER + r"\.spec\.initContainers\.colocated-python-sidecar\.resources", 21),
    ("value", WORKER + r"\.spec\.nodeSelector\.cloud\.google\.com/placement-policy-name", 26),
]

BASE = {"gcs": "gs://acme-pw/tmp", "image": "us-docker.pkg.dev/acme/train/trainer:2026-11-20",
        "command": "python3 train.py --steps=100"}

# id: (XPK config, our workload overrides, our target)
CASES = {
    "v6e-16x4-default": ({"device": "v6e-16", "slices": 4, "max_restarts": 3}, {"maxRestarts": 3},
                         dict(generation="v6e", topology="4x4", slices=4)),
    "v6e-16x4-headless": ({"device": "v6e-16", "slices": 4, "headless": True, "command": None},
                          {"mode": "headless", "image": None, "command": None},
                          dict(generation="v6e", topology="4x4", slices=4)),
    "v6e-1x1-default": ({"device": "v6e-1", "slices": 1}, {}, dict(generation="v6e", topology="1x1", slices=1)),
    "v5e-16x2-default": ({"device": "v5litepod-16", "slices": 2}, {},
                         dict(generation="v5e", topology="4x4", slices=2)),
    "v5p-16x2-default": ({"device": "v5p-16", "slices": 2}, {}, dict(generation="v5p", topology="2x2x2", slices=2)),
    "tpu7x-256x2-default": ({"device": "tpu7x-256", "slices": 2}, {},
                            dict(generation="tpu7x", topology="4x4x8", slices=2, placement_policy="pw-main-wp")),
    "v6e-32x2-elastic-sidecar-args": (
        {"device": "v6e-32", "slices": 2, "elastic_slices": 1, "max_slice_restarts": 3,
         "sidecar": "us-docker.pkg.dev/acme/sidecar/colocated:v1", "proxy_args": "--p=1", "server_args": "--s=1",
         "worker_args": "--w=1", "tgps": 120, "priority": "high"},
        {"terminationGracePeriodSeconds": 120, "priorityClass": "high",
         "pathways": {"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp", "elasticSlices": 1,
                      "maxSliceRestarts": 3, "images": {"colocatedPython": "us-docker.pkg.dev/acme/sidecar/colocated:v1"},
                      "flags": {"proxy": ["--p=1"], "server": ["--s=1"], "worker": ["--w=1"]}}},
        dict(generation="v6e", topology="4x8", slices=2)),
}


@functools.lru_cache(maxsize=None)
def xpk_python() -> str:
    given = os.environ.get("PATHWAYS_GKE_XPK_PYTHON")
    if given:
        return given
    if importlib.util.find_spec("xpk") is not None:
        return sys.executable
    pytest.skip("XPK is not installed: set PATHWAYS_GKE_XPK_PYTHON to a python with xpk==1.16.0 to compare our "
                "JobSets with XPK's")
    return ""


def xpk_jobset(config: dict) -> dict:
    result = subprocess.run([xpk_python(), str(RENDER), json.dumps({**BASE, **config})], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout)


def _keyed(items: list) -> dict | None:
    for key in ("name", "containerPort"):
        if items and all(isinstance(i, dict) and key in i for i in items):
            return {str(i[key]): i for i in items}
    return None


def differences(xpk: object, ours: object, path: str = "") -> list[tuple[str, str]]:
    """(kind, dotted path) of every difference; named lists compare by name (order checked separately)."""
    out: list[tuple[str, str]] = []
    if isinstance(xpk, dict) and isinstance(ours, dict):
        for key in sorted(set(xpk) | set(ours)):
            sub = f"{path}.{key}" if path else key
            if key not in xpk:
                out.append(("ours-only", sub))
            elif key not in ours:
                out.append(("xpk-only", sub))
            else:
                out += differences(xpk[key], ours[key], sub)
    elif isinstance(xpk, list) and isinstance(ours, list) and _keyed(xpk) is not None and _keyed(ours) is not None:
        a, b = _keyed(xpk), _keyed(ours)
        if [k for k in a if k in b] != [k for k in b if k in a]:
            out.append(("order", path))
        out += differences(a, b, path)
    elif xpk != ours and str(xpk) != str(ours):  # XPK's YAML has "4" and 4 for the same quantity
        out.append(("value", path))
    return out


def undocumented(diffs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(k, p) for k, p in diffs if not any(k == kind and re.fullmatch(rx, p) for kind, rx, _ in DELIBERATE)]


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_difference_from_xpk_is_a_documented_one(case):
    xpk_config, overrides, where = CASES[case]
    ours = build_pathways_jobset(workload(name="train", **overrides), target(**where, queue_name="pathways-queue"))
    diffs = differences(xpk_jobset(xpk_config), ours)
    assert undocumented(diffs) == []


def test_the_differences_list_matches_the_docs():
    docs = (Path(__file__).resolve().parents[1] / "docs" / "coming-from-xpk.md").read_text()
    for _, _, item in DELIBERATE:
        assert re.search(rf"^{item}\. \*\*", docs, re.M), f"item {item} is not in docs/coming-from-xpk.md"


def test_the_comparison_catches_an_undocumented_difference():
    ours = build_pathways_jobset(workload(name="train"), target(queue_name="pathways-queue"))
    changed = json.loads(json.dumps(ours))
    changed["spec"]["replicatedJobs"][1]["template"]["spec"]["backoffLimit"] = 99
    changed["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["initContainers"].reverse()
    assert undocumented(differences(ours, changed)) == [
        ("order", f"{HEAD}.spec.initContainers".replace("\\", "")),
        ("value", "spec.replicatedJobs.worker.template.spec.backoffLimit"),
    ]

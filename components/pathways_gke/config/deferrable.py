"""Which config values may be Pulumi Outputs (unknown until apply), and the stand-ins validation sees meanwhile.

Values that only flow into resource properties (a VPC's self link, a service-account email, labels, images,
environment values, a reservation's project) may come from other resources of the same program, so the
components accept `pulumi.Input`s for them. Everything that shapes the resource graph (names, counts, types,
topology, capacity, which features exist) must stay plain: it decides which resources exist before anything
is known.

While an Output is unknown the config is validated with a stand-in that passes the field's own checks and
carries a unique token; the shell (`pathways_gke.deferred`) swaps the real value in wherever the stand-in
ended up (also inside composed strings) and validates the value with the same model once it is known.
Pure data (no Pulumi import).
"""

from __future__ import annotations

import re

# config paths relative to one workload entry (`workloads[i].` in a stack, `workload.` in PathwaysWorkload).
# Not here, because they shape the graph: `serviceAccount` (names the ServiceAccount the stack creates) and
# `pathways.gcsScratch` (names the bucket that gets a grant, and the grant's resource name).
WORKLOAD_FIELDS: dict[str, str] = {
    "image": "image",
    "env.*": "text",
    "pathways.images.*": "image",
    "pathways.env.*.*": "text",
    "sidecars[].image": "image",
    "sidecars[].env.*": "text",
}

# config path pattern -> kind of stand-in; `[]` = any list index, `*` = any one key
STACK_FIELDS: dict[str, str] = {
    "cluster.network": "text",
    "cluster.subnetwork": "text",
    "cluster.labels.*": "text",
    "cluster.nodeServiceAccount.email": "email",
    "cpuPool.labels.*": "text",
    "tpuPools[].labels.*": "text",
    "tpuPools[].reservation.project": "text",
    "tpuPools[].reservations[].project": "text",
    **{f"workloads[].{path}": kind for path, kind in WORKLOAD_FIELDS.items()},
}

# stand-ins per kind: each passes the field's validator; {t} is a unique token of [a-z0-9-]
STAND_INS = {
    "text": "{t}",
    "email": "{t}@{t}.iam.gserviceaccount.com",
    "image": "{t}.invalid/{t}:{t}",
    "gcs": "gs://{t}/{t}",
}
TOKEN_PREFIX = "pgke-output-"
TOKEN = re.compile(TOKEN_PREFIX + r"[0-9]+x")


def _pattern(path: str) -> re.Pattern[str]:
    text = re.escape(path).replace(r"\[\]", r"\[[0-9]+\]").replace(r"\*", r"[^.\[\]]+")
    return re.compile(f"^{text}$")


def deferrable_kind(path: str, fields: dict[str, str] | None = None) -> str | None:
    """The stand-in kind when the config path may be an Output, else None."""
    for pattern, kind in (fields if fields is not None else STACK_FIELDS).items():
        if _pattern(pattern).match(path):
            return kind
    return None


def stand_in(kind: str, number: int) -> str:
    return STAND_INS[kind].format(t=f"{TOKEN_PREFIX}{number}x")


def accepted_paths(fields: dict[str, str] | None = None) -> str:
    """For error messages: the config paths that accept Outputs."""
    return ", ".join(fields if fields is not None else STACK_FIELDS)


__all__ = ["STACK_FIELDS", "TOKEN", "WORKLOAD_FIELDS", "accepted_paths", "deferrable_kind", "stand_in"]

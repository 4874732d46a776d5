"""Every Pathways JobSet over the full TPU catalog x modes is valid: JobSet CRDs (v0.8.2 and v0.12.0), the
JobSet webhook's rules, and the Kubernetes Pod schema for head and worker pod templates.

The JobSet CRD embeds the PodTemplateSpec schema of the Kubernetes API JobSet was built against (k8s.io/api
v0.32 for v0.8.2, v0.36 for v0.12.0), so the CRD check already validates pods against the Kubernetes schema of
that version; the separate Pod check adds the standalone Kubernetes 1.29 / 1.34 OpenAPI schemas.
"""

from __future__ import annotations

import functools
import json
import re

import pytest

from pathways_gke.catalog import GENERATIONS
from pathways_gke.render.pathways_jobset import build_pathways_jobset

from .support.crd import jobset_schema_errors
from .support.jobset_rules import jobset_rule_errors
from .support.k8s_schema import pod_from_template, pod_schema_errors
from .support.pathways_cases import matrix



@functools.lru_cache(maxsize=None)
def rendered() -> tuple[tuple[str, dict], ...]:
    return tuple((case_id, build_pathways_jobset(w, t, secret_name=f"{w.name}-env")) for case_id, w, t in matrix())


def _digits_blind(obj: object) -> str:
    """A key under which two objects validate alike: every digit made 0 (schemas constrain types, enums, lengths
    and patterns here, none of which a digit-for-digit swap changes), so shapes differing only in counts,
    topologies or indexes are schema-checked once."""
    return re.sub(r"[0-9]", "0", json.dumps(obj, sort_keys=True))


def distinct(objs):
    seen: dict[str, tuple[str, dict]] = {}
    for case_id, obj in objs:
        seen.setdefault(_digits_blind(obj), (case_id, obj))
    return list(seen.values())


@pytest.mark.slow
def test_matrix_covers_every_catalog_shape_and_mode():
    ids = [case_id for case_id, _ in rendered()]
    shapes = {(g.name, m.name, t) for g in GENERATIONS.values() for m in g.machine_types for t in m.topologies}
    assert len(shapes) > 200
    for gen, machine, topo in shapes:
        for mode in ("default", "headless", "everything", "colocated"):
            assert f"{gen}-{machine}-{topo}-{mode}" in ids


@pytest.mark.slow
def test_every_jobset_validates_against_both_jobset_crds():
    failures = {}
    for case_id, js in distinct(rendered()):
        errors = {v: e for v, e in jobset_schema_errors(js).items() if e}
        if errors:
            failures[case_id] = errors
    assert failures == {}


@pytest.mark.slow
def test_every_jobset_passes_the_jobset_webhook_rules():
    failures = {case_id: e for case_id, js in rendered() if (e := jobset_rule_errors(js))}
    assert failures == {}


@pytest.mark.slow
def test_every_pod_template_validates_against_the_kubernetes_pod_schema():
    pods = [(f"{case_id}/{rjob['name']}", pod_from_template(rjob["template"]["spec"]["template"], name="p"))
            for case_id, js in rendered() for rjob in js["spec"]["replicatedJobs"]]
    failures = {}
    for pod_id, pod in distinct(pods):
        errors = {v: e for v, e in pod_schema_errors(pod).items() if e}
        if errors:
            failures[pod_id] = errors
    assert failures == {}


@pytest.mark.slow
def test_the_validators_reject_broken_jobsets():
    """The checks above can fail: a typo, a duplicate port and a restartPolicy on a regular container."""
    js = build_pathways_jobset(*matrix()[0][1:], secret_name="x")
    head = js["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    head["spec"]["hostNetwerk"] = True
    assert all(jobset_schema_errors(js).values())
    assert all(pod_schema_errors(pod_from_template(head)).values())
    del head["spec"]["hostNetwerk"]
    head["spec"]["containers"][0]["restartPolicy"] = "Always"
    head["spec"]["initContainers"][0]["ports"].append({"containerPort": 29000, "protocol": "TCP"})
    head["spec"]["serviceAccountName"] = "trainer@acme.iam.gserviceaccount.com"
    errors = jobset_rule_errors(js)
    assert any("restartPolicy is only allowed on init containers" in e for e in errors)
    assert any("duplicate port (29000, 'TCP')" in e for e in errors)
    assert any("serviceAccountName 'trainer@acme.iam.gserviceaccount.com' is not a DNS-1123 subdomain" in e
               for e in errors)
    js["metadata"]["name"] = "a" * 23
    assert any("coordinator endpoint" in e for e in jobset_rule_errors(js))


@pytest.mark.slow
def test_every_head_over_the_matrix_stays_put_and_alone():
    """Every shape x mode: the head carries the head label, safe-to-evict "false" and the required per-node
    anti-affinity on that label (no priority term); no worker carries the label."""
    for case_id, js in rendered():
        head, worker = (r["template"]["spec"]["template"] for r in js["spec"]["replicatedJobs"])
        assert head["metadata"]["labels"]["pathways-gke/head"] == "true", case_id
        assert head["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/safe-to-evict"] == "false", case_id
        assert head["spec"]["affinity"] == {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"pathways-gke/head": "true"}}, "namespaceSelector": {},
             "topologyKey": "kubernetes.io/hostname"}]}}, case_id
        assert "pathways-gke/head" not in worker["metadata"]["labels"], case_id

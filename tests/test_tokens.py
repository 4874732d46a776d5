"""Resource type tokens are written once (tokens.py), and they are the tokens Pulumi uses."""

from __future__ import annotations

import ast

import pytest

from pathways_gke import tokens
from pathways_gke.cluster import PathwaysCluster, TpuSliceGroup
from pathways_gke.services import ClusterServices
from pathways_gke.workloads.jax import JaxWorkload
from pathways_gke.workloads.pathways import PathwaysWorkload
from pathways_gke.workloads.serving import PathwaysServing
from tests.conftest import ROOT

PACKAGE = ROOT / "components" / "pathways_gke"
TOKEN_PREFIXES = ("gcp:", "kubernetes:", "pulumi:", "pathways-gke:")


@pytest.mark.parametrize("api_version, kind, token", [
    ("v1", "Secret", "kubernetes:core/v1:Secret"),
    ("apps/v1", "Deployment", "kubernetes:apps/v1:Deployment"),
    ("jobset.x-k8s.io/v1alpha2", "JobSet", "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"),
])
def test_a_kubernetes_kind_has_the_token_pulumi_kubernetes_gives_it(api_version, kind, token):
    assert tokens.kubernetes_type(api_version, kind) == token


def test_the_tokens_built_from_api_versions_are_the_ones_the_plan_shows():
    assert tokens.JOBSET == "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
    assert tokens.LEADER_WORKER_SET == "kubernetes:leaderworkerset.x-k8s.io/v1:LeaderWorkerSet"
    assert tokens.CLUSTER_QUEUE == "kubernetes:kueue.x-k8s.io/v1beta2:ClusterQueue"
    assert tokens.CRD == "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition"
    assert tokens.KUBERNETES_PROVIDER == "pulumi:providers:kubernetes"


@pytest.mark.parametrize("component, token", [
    (PathwaysCluster, tokens.PATHWAYS_CLUSTER), (TpuSliceGroup, tokens.TPU_SLICE_GROUP),
    (ClusterServices, tokens.CLUSTER_SERVICES), (PathwaysWorkload, tokens.PATHWAYS_WORKLOAD),
    (JaxWorkload, tokens.JAX_WORKLOAD), (PathwaysServing, tokens.PATHWAYS_SERVING),
])
def test_a_component_registers_under_the_token_of_its_class_name(component, token):
    # the component provider answers Construct for `pathways-gke:index:<class name>`
    assert token == f"pathways-gke:index:{component.__name__}"


def _spelled_tokens(source: str) -> list[str]:
    """String literals (f-string pieces included) that are, or build, a type token."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if text.startswith(TOKEN_PREFIXES) and (tokens.TYPE_TOKEN.fullmatch(text) or text.endswith(":")):
                out.append(text)
            elif text.startswith(":index:"):
                out.append(text)
    return out


@pytest.mark.slow
def test_no_module_but_tokens_spells_a_type_token():
    spelled = {p.relative_to(PACKAGE).as_posix(): found for p in sorted(PACKAGE.rglob("*.py"))
               if (found := _spelled_tokens(p.read_text()))}
    assert set(spelled) == {"tokens.py"}, spelled

"""Our Pathways JobSet against Cluster Toolkit's template, field by field.

The template is `pkg/orchestrator/gke/templates/pathways_jobset.tmpl` of GoogleCloudPlatform/cluster-toolkit at
commit 7c70d26 (PR #5849, "Align GCluster JobSet with XPK production defaults"), with --restart-on-exit-codes
rendered by `generatePodFailurePolicy` (pkg/orchestrator/gke/gke_job_orchestrator.go at the same commit). CTK is Go
text/template, not something we can run here, so its facts are written down below as a table (read from the
template at that commit) for the case `gcluster job submit --pathways` on a v6e-16 x 2 slices pool, `--restarts 1`,
`--restart-on-exit-codes 42`, `--pathways-gcs-location gs://acme-pw/tmp`; each is checked against the JobSet we
render for the same stack. A fact is either the same in ours, or differs for the reason given (docs/coming-from-xpk.md
"Cluster Toolkit's template"), and a difference that stopped being one fails the test too.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from pathways_gke.render.pathways_jobset import build_pathways_jobset

from .support.pathways_cases import target, workload

CTK_COMMIT = "7c70d26061ddf56e72fe4df9fffdf49881febab1"
CTK_TEMPLATE = "pkg/orchestrator/gke/templates/pathways_jobset.tmpl"
SAME = "same"
ABSENT = object()

HEAD = ("spec", "replicatedJobs", "name=pathways-head", "template")
WORKER = ("spec", "replicatedJobs", "name=worker", "template")
HEAD_POD = (*HEAD, "spec", "template", "spec")
WORKER_POD = (*WORKER, "spec", "template", "spec")
PROXY = (*HEAD_POD, "initContainers", "name=pathways-proxy")
RM = (*HEAD_POD, "initContainers", "name=pathways-rm")
USER = (*HEAD_POD, "containers", "name=jax-tpu")  # CTK: name=workload-container (see the name fact)
WORKER_CONTAINER = (*WORKER_POD, "containers", "name=pathways-worker")
TIMEOUT = "--pathways_pipe_unreachable_timeout=60s"
UNITS = "memory in XPK's units (G), as the XPK comparison; the same order of size (coming-from-xpk.md)"

# (path in the JobSet, the value CTK's template renders at CTK_COMMIT, SAME or why ours differs)
CTK_FACTS: list[tuple[tuple[str, ...], Any, str]] = [
    (("metadata", "labels", "gcluster.google.com/workload"), "train",
     "our workload label is pathways-gke/workload (coming-from-xpk.md item 2)"),
    (("spec", "ttlSecondsAfterFinished"), 3600,
     "not rendered: a JobSet deleted by its TTL is recreated by the next `pulumi up` (item 5)"),
    (("spec", "network", "enableDNSHostnames"), True, SAME),
    (("spec", "network", "publishNotReadyAddresses"), True, SAME),
    (("spec", "coordinator", "replicatedJob"), "pathways-head", SAME),
    (("spec", "startupPolicy", "startupPolicyOrder"), "InOrder", SAME),
    (("spec", "successPolicy"), {"operator": "All", "targetReplicatedJobs": ["pathways-head"]}, SAME),
    (("spec", "failurePolicy", "maxRestarts"), 1, SAME),
    (("spec", "failurePolicy", "restartStrategy"), "Recreate", SAME),
    (("spec", "failurePolicy", "rules", 0, "action"), "FailJobSet", SAME),
    (("spec", "failurePolicy", "rules", 0, "onJobFailureReasons"), ["PodFailurePolicy"], SAME),
    ((*HEAD, "metadata", "annotations", "alpha.jobset.sigs.k8s.io/exclusive-topology"), "kubernetes.io/hostname",
     SAME),
    ((*HEAD, "spec", "completionMode"), "Indexed", SAME),
    ((*HEAD, "spec", "parallelism"), 1, SAME),
    ((*HEAD, "spec", "completions"), 1, SAME),
    ((*HEAD, "spec", "backoffLimit"), 0, SAME),
    ((*HEAD, "spec", "podFailurePolicy", "rules", 0, "action"), "FailJob",
     "ours first counts an eviction (DisruptionTarget: the run restarts instead of ending on the SIGTERM exit code); "
     "CTK's FailJob rule is our second"),
    ((*HEAD, "spec", "podFailurePolicy", "rules", "has=onExitCodes", "action"), "FailJob", SAME),
    ((*HEAD, "spec", "podFailurePolicy", "rules", "has=onExitCodes", "onExitCodes", "operator"), "NotIn", SAME),
    ((*HEAD, "spec", "podFailurePolicy", "rules", "has=onExitCodes", "onExitCodes", "values"), [42], SAME),
    ((*HEAD_POD, "nodeSelector", "cloud.google.com/gke-nodepool"), "cpu-np", SAME),
    ((*HEAD_POD, "hostNetwork"), True, SAME),
    ((*HEAD_POD, "dnsPolicy"), "ClusterFirstWithHostNet", SAME),
    ((*HEAD_POD, "restartPolicy"), "Never", SAME),
    ((*PROXY, "ports", 0, "containerPort"), 29000, SAME),
    ((*PROXY, "args"), ["--server_port=29000", "--resource_manager_address=$(PATHWAYS_HEAD):29001",
                        "--gcs_scratch_location=gs://acme-pw/tmp"], SAME),
    ((*PROXY, "env", "name=PATHWAYS_HEAD", "valueFrom", "fieldRef", "fieldPath"),
     "metadata.labels['jobset.sigs.k8s.io/coordinator']", SAME),
    ((*PROXY, "env", "name=ABSL_FLAGS", "value"), TIMEOUT, SAME),
    ((*PROXY, "restartPolicy"), "Always", SAME),
    ((*PROXY, "resources", "limits", "cpu"), "16", SAME),
    ((*PROXY, "resources", "limits", "memory"), "100Gi", UNITS),
    ((*RM, "args"), ["--server_port=29001", "--gcs_scratch_location=gs://acme-pw/tmp", "--node_type=resource_manager",
                     "--instance_count=2", "--instance_type=tpuv6e:4x4"], SAME),
    ((*RM, "env", "name=TPU_SKIP_MDS_QUERY", "value"), "true", SAME),
    ((*RM, "env", "name=HOST_ADDRESS", "valueFrom", "fieldRef", "fieldPath"),
     "metadata.labels['jobset.sigs.k8s.io/coordinator']", SAME),
    ((*RM, "env", "name=ABSL_FLAGS", "value"), TIMEOUT, SAME),
    ((*RM, "restartPolicy"), "Always", SAME),
    ((*RM, "resources", "limits", "cpu"), "8", SAME),
    ((*RM, "resources", "limits", "memory"), "32Gi", UNITS),
    ((*HEAD_POD, "containers", 0, "name"), "workload-container",
     "the user container is XPK's jax-tpu (workloads[].containerName)"),
    ((*USER, "securityContext", "privileged"), True, "not privileged unless asked (item 10)"),
    ((*USER, "resources", "requests"), {"cpu": "2", "memory": "8Gi"}, SAME),
    ((*USER, "resources", "limits", "memory"), "100Gi", UNITS),
    ((*USER, "env", "name=JAX_PLATFORMS", "value"), "proxy", SAME),
    ((*USER, "env", "name=XCLOUD_ENVIRONMENT", "value"), "GCP", SAME),
    ((*USER, "env", "name=JAX_BACKEND_TARGET", "value"), "grpc://$(PATHWAYS_HEAD):29000", SAME),
    ((*USER, "env", "name=ABSL_FLAGS", "value"), TIMEOUT, SAME),
    ((*WORKER, "metadata", "annotations", "alpha.jobset.sigs.k8s.io/exclusive-topology"),
     "cloud.google.com/gke-nodepool", SAME),
    ((*WORKER, "spec", "completionMode"), "Indexed", SAME),
    ((*WORKER, "spec", "parallelism"), 4, SAME),
    ((*WORKER, "spec", "completions"), 4, SAME),
    ((*WORKER, "spec", "backoffLimit"), 16, SAME),
    ((*WORKER, "spec", "podFailurePolicy", "rules", 0, "action"), "FailJob",
     "never on the workers: their pods restart OnFailure, and the Job API accepts a podFailurePolicy only with "
     "restartPolicy Never (CTK's template renders both, a Job the API server refuses)"),
    ((*WORKER_POD, "hostNetwork"), True, SAME),
    ((*WORKER_POD, "dnsPolicy"), "ClusterFirstWithHostNet", SAME),
    ((*WORKER_POD, "restartPolicy"), "OnFailure", SAME),
    ((*WORKER_POD, "terminationGracePeriodSeconds"), 30, SAME),
    ((*WORKER_CONTAINER, "ports"), [{"containerPort": p} for p in (29005, 29006, 8471, 8080)],
     "ports carry protocol: TCP (XPK's form; the API's default, written so the plan is canonical)"),
    ((*WORKER_CONTAINER, "args"), ["--server_port=29005", "--resource_manager_address=$(PATHWAYS_HEAD):29001",
                                   "--gcs_scratch_location=gs://acme-pw/tmp"], SAME),
    ((*WORKER_CONTAINER, "env", "name=MEGASCALE_GRPC_ENABLE_XOR_TRACER", "value"), "false", SAME),
    ((*WORKER_CONTAINER, "env", "name=MEGASCALE_SLICE_ID", "valueFrom", "fieldRef", "fieldPath"),
     "metadata.labels['jobset.sigs.k8s.io/job-index']", SAME),
    ((*WORKER_CONTAINER, "env", "name=MEGASCALE_NUM_SLICES", "valueFrom", "fieldRef", "fieldPath"),
     "metadata.labels['jobset.sigs.k8s.io/replicatedjob-replicas']", SAME),
    ((*WORKER_CONTAINER, "env", "name=ABSL_FLAGS", "value"), TIMEOUT, SAME),
    ((*WORKER_CONTAINER, "resources", "limits", "google.com/tpu"), "4", SAME),
]


def value_at(obj: Any, path: tuple[Any, ...]) -> Any:
    """The value at `path` (list items by index, by `name=<name>` or as the first with a key, `has=<key>`), or
    ABSENT."""
    for part in path:
        if isinstance(part, int):
            if not isinstance(obj, list) or part >= len(obj):
                return ABSENT
            obj = obj[part]
        elif isinstance(part, str) and part.startswith("name="):
            obj = next((item for item in obj or [] if item.get("name") == part[5:]), ABSENT)
        elif isinstance(part, str) and part.startswith("has="):  # the first item holding that key
            obj = next((item for item in obj or [] if part[4:] in item), ABSENT)
        elif isinstance(obj, dict) and part in obj:
            obj = obj[part]
        else:
            return ABSENT
        if obj is ABSENT:
            return ABSENT
    return obj


def ours() -> dict:
    """The JobSet we render for CTK's case: same workload name, pool, restarts, exit codes, scratch, timeout."""
    w = workload(maxRestarts=1, restartOnExitCodes=[42],
                 pathways={"version": "jax-0.9.2", "gcsScratch": "gs://acme-pw/tmp", "pipeUnreachableTimeout": "60s"})
    return build_pathways_jobset(w, target("v6e", "4x4", slices=2), secret_name="train-env")


@pytest.mark.parametrize("path, ctk, verdict", CTK_FACTS, ids=[".".join(map(str, p[0][-3:])) for p in CTK_FACTS])
def test_each_fact_of_ctks_template_is_ours_or_a_documented_difference(path, ctk, verdict):
    mine = value_at(ours(), path)
    if verdict == SAME:
        assert mine == ctk, f"{'.'.join(map(str, path))}: CTK {ctk!r}, ours {mine!r}"
    else:
        assert mine != ctk, f"{'.'.join(map(str, path))} is now the same as CTK's; drop the difference: {verdict}"


def test_the_differences_are_the_ones_the_docs_list():
    """docs/coming-from-xpk.md names the commit and, for each difference, its reason."""
    docs = (Path(__file__).parents[1] / "docs" / "coming-from-xpk.md").read_text()
    assert CTK_COMMIT[:7] in docs
    for phrase in ("ttlSecondsAfterFinished", "podFailurePolicy", "privileged", "workload-container",
                   "gcluster.google.com/workload", "OnFailure"):
        assert phrase in docs, phrase


def _mirror() -> Path:
    return Path(os.environ.get("PATHWAYS_GKE_CTK_MIRROR", "/work/.mirror/GoogleCloudPlatform+cluster-toolkit/repo"))


def test_the_table_is_read_from_the_template_at_its_commit():
    """With a clone of cluster-toolkit at hand (PATHWAYS_GKE_CTK_MIRROR), every literal of the table is in the
    template at CTK_COMMIT. Skipped without one: nothing is downloaded at test time."""
    try:
        text = subprocess.run(["git", "--git-dir", str(_mirror()), "show", f"{CTK_COMMIT}:{CTK_TEMPLATE}"],
                              capture_output=True, text=True, check=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        pytest.skip("no cluster-toolkit clone with commit 7c70d26 (set PATHWAYS_GKE_CTK_MIRROR to its git dir)")
    literals = ["ABSL_FLAGS", f'"{TIMEOUT}"', "restartStrategy: Recreate", "- PodFailurePolicy", "action: FailJobSet",
                "podFailurePolicy:", "restartPolicy: OnFailure", "restartPolicy: Never", "workload-container",
                "privileged: true", 'memory: "100Gi"', 'memory: "32Gi"', "ttlSecondsAfterFinished",
                "gcluster.google.com/workload", "--pathways_pipe_unreachable_timeout=60s"]
    assert [x for x in literals if x not in text] == []
    assert text.count("name: ABSL_FLAGS") == 4  # proxy, resource manager, user container, workers
    assert text.count("podFailurePolicy:") == 2  # head and workers: the worker one is CTK's bug

"""Config rules for jobset / kueue / namespace / priorityClass: every error names its path, all together."""

from __future__ import annotations

import pytest

from pathways_gke.errors import ConfigError
from tests.support.stacks import parsed, stack


def problems(**sections) -> dict[str, str]:
    with pytest.raises(ConfigError) as info:
        parsed("prod", **sections)
    return {p.path: str(p) for p in info.value.problems}


@pytest.mark.parametrize("version", ["0.10.1", "v0.10", "latest", "v0.10.1-rc.1", "main"])
def test_a_jobset_version_that_is_not_a_release_tag_names_the_path(version):
    found = problems(jobset={"version": version})
    assert list(found) == ["jobset.version"]
    assert repr(version) in found["jobset.version"] and "vMAJOR.MINOR.PATCH" in found["jobset.version"]


@pytest.mark.parametrize("version", ["v0.6.0", "v0.7.3"])
def test_a_jobset_older_than_the_pathways_jobset_needs_is_refused(version):
    """v0.6 lacks restartStrategy; v0.7's release manifests run the deleted gcr.io kube-rbac-proxy sidecar
    (kubernetes-sigs/jobset v0.7.x config/default/manager_auth_proxy_patch.yaml), so its controller never starts."""
    found = problems(jobset={"version": version})
    assert "older than v0.8.0" in found["jobset.version"] and "restartStrategy" in found["jobset.version"]
    assert "gcr.io/kubebuilder/kube-rbac-proxy" in found["jobset.version"]


def test_a_kueue_version_is_validated_too():
    assert "vMAJOR.MINOR.PATCH" in problems(kueue={"enabled": True, "version": "0.17"})["kueue.version"]
    assert "older than v0.17.0" in problems(kueue={"enabled": True, "version": "v0.9.0"})["kueue.version"]


def test_a_missing_manifest_names_jobset_manifest(tmp_path):
    missing = str(tmp_path / "nope.yaml")
    found = problems(jobset={"version": "v0.10.1", "manifest": missing})
    assert list(found) == ["jobset.manifest"] and "is not an existing file" in found["jobset.manifest"]


def test_a_missing_kueue_manifest_names_kueue_manifest(tmp_path):
    found = problems(kueue={"enabled": True, "manifest": str(tmp_path / "kueue.yaml")})
    assert list(found) == ["kueue.manifest"]


def test_a_url_is_not_a_manifest_path():
    found = problems(jobset={"manifest": "https://example.com/manifests.yaml"})
    assert "local file path" in found["jobset.manifest"]


@pytest.mark.parametrize("namespace,addon", [("kueue-system", "kueue"), ("jobset-system", "jobset")])
def test_a_namespace_clashing_with_a_controller_names_namespace(namespace, addon):
    found = problems(namespace=namespace)
    assert list(found) == ["namespace"]
    assert f"{addon} release manifest installs its controller" in found["namespace"]


def test_other_system_namespaces_are_refused():
    assert "system namespace" in problems(namespace="kube-system")["namespace"]


def test_a_priority_class_off_the_ladder_names_the_workload():
    workloads = [{**w.model_dump(by_alias=True, exclude_none=True), "priorityClass": "urgent"}
                 for w in parsed("prod").workloads]
    found = problems(workloads=workloads)
    assert list(found) == ["workloads[0].priorityClass"]
    assert "very-low, low, medium, high, very-high" in found["workloads[0].priorityClass"]


def test_kueue_needs_a_cpu_machine_whose_shape_is_known():
    found = problems(cpuPool={"machineType": "m3-ultramem-32", "maxNodes": 4})  # a shape the catalog cannot size
    assert "ClusterQueue" in found["cpuPool.machineType"]


def test_all_service_problems_are_reported_together(tmp_path):
    workloads = [{**w.model_dump(by_alias=True, exclude_none=True), "priorityClass": "urgent"}
                 for w in parsed("prod").workloads]
    found = problems(jobset={"manifest": str(tmp_path / "x.yaml")},
                     kueue={"enabled": True, "manifest": str(tmp_path / "y.yaml")}, namespace="kueue-system",
                     workloads=workloads)
    assert set(found) == {"jobset.manifest", "kueue.manifest", "namespace", "workloads[0].priorityClass"}


def test_kueue_settings_while_kueue_is_off_are_refused_not_ignored(tmp_path):
    """Nothing is installed with kueue.enabled false: a manifest (even one that is absent) is refused for that
    reason, never silently dropped."""
    from pathways_gke.errors import ConfigError

    with pytest.raises(ConfigError) as caught:
        parsed("dev", kueue={"enabled": False, "manifest": str(tmp_path / "absent.yaml")})
    assert caught.value.paths == ["kueue.manifest"]
    assert "kueue.enabled is false" in caught.value.render()


# --- the CLI contract: exit 2 naming the path, nothing planned ------------------------------------

@pytest.mark.parametrize("sections,path", [
    ({"jobset": {"version": "v0.10"}}, "jobset.version"),
    ({"namespace": "kueue-system"}, "namespace"),
    ({"jobset": {"manifest": "vendor/absent-jobset.yaml"}}, "jobset.manifest"),
    ({"kueue": {"enabled": True, "manifest": "vendor/absent-kueue.yaml"}}, "kueue.manifest"),
], ids=["version", "namespace", "jobset-manifest", "kueue-manifest"])
def test_plan_exits_2_naming_the_path(tmp_path, capsys, sections, path):
    import yaml

    from pathways_gke.cli import main
    from tests.conftest import ROOT

    config = tmp_path / "Pulumi.bad.yaml"
    config.write_text(yaml.safe_dump({"config": stack("prod", **sections)}))
    try:
        assert main(["plan", "--config", str(config), "--project-dir", str(ROOT)]) == 2
    finally:
        # cli.main closes the SDK's event loop on the way out; later in-process plans need a fresh one
        import asyncio

        asyncio.set_event_loop(asyncio.new_event_loop())
    captured = capsys.readouterr()
    assert f"  - {path}: " in captured.err and "Traceback" not in captured.err
    assert captured.out == ""

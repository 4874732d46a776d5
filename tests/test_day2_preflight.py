"""`pathways-gke preflight --stack S` against Google's REST APIs served on the loopback address.

The recorded answers follow the shapes the APIs document: Service Usage `services.batchGet`
(https://cloud.google.com/service-usage/docs/reference/rest/v1/services/batchGet), Compute Engine `regions.get`
(`quotas[] {metric, limit, usage}`), `reservations.get` (`specificReservation {count, inUseCount,
instanceProperties.machineType}`; int64 fields come as strings), `machineTypes.get`, GKE
`projects.locations.getServerConfig` (`channels[] {channel, defaultVersion, validVersions}`), Cloud Storage
`buckets.get` and Resource Manager `projects.testIamPermissions`. The client is google-api-python-client built
from its bundled discovery documents: the requests it sends are the real REST paths.
"""

from __future__ import annotations

import json
import socket

import pytest
import yaml

pytest.importorskip("googleapiclient", reason="the day2 extra (pip install 'pathways-gke[day2]') is not installed")

from pathways_gke import cli  # noqa: E402
from pathways_gke.day2.google import ENDPOINT_ENV  # noqa: E402
from tests.conftest import ROOT  # noqa: E402
from tests.support.google_api import GoogleApi, error  # noqa: E402
from tests.support.stacks import shipped  # noqa: E402

PROJECT = "acme-ml-dev"
POOLS = [
    {"name": "main", "type": "v5e", "topology": "4x4", "slices": 2, "zone": "us-east5-b", "capacity": "on-demand"},
    {"name": "spot", "type": "v5e", "topology": "2x4", "slices": 1, "zone": "us-east5-b", "capacity": "spot"},
    {"name": "held", "type": "v6e", "topology": "4x4", "slices": 2, "zone": "us-east5-b", "capacity": "reservation",
     "reservation": "res-v6e"},
    {"name": "try", "type": "v6e", "topology": "2x4", "slices": 1, "zone": "us-east5-b", "capacity": "spot"},
]


def project_dir(tmp_path, **sections):
    config = shipped("dev")
    config["pathways-gke:tpuPools"] = POOLS
    config["pathways-gke:buckets"] = [{"name": "acme-ml-dev-ckpt", "create": True}]
    for key, value in sections.items():
        config[f"pathways-gke:{key}"] = value
    (tmp_path / "stacks").mkdir(parents=True)
    (tmp_path / "Pulumi.yaml").write_text((ROOT / "Pulumi.yaml").read_text())
    (tmp_path / "stacks" / "Pulumi.pre.yaml").write_text(yaml.safe_dump({"config": config}))
    return tmp_path


def service(name, state="ENABLED"):
    return {"name": f"projects/123456789012/services/{name}", "parent": "projects/123456789012",
            "config": {"name": name, "title": name.split(".")[0]}, "state": state}


FEATURE_APIS = ("containerfilesystem.googleapis.com", "dns.googleapis.com", "monitoring.googleapis.com")


def record(api: GoogleApi, *, tpu_lite_limit=32, reservation_in_use="2", ct6e_offered=False, granted=None,
           features=FEATURE_APIS):
    api.get(f"/serviceusage/v1/projects/{PROJECT}/services:batchGet", {"services": [
        service("cloudresourcemanager.googleapis.com"), service("compute.googleapis.com"),
        service("container.googleapis.com"), service("iam.googleapis.com"),
        service("storage.googleapis.com", "DISABLED"), *(service(f) for f in features)]})
    api.get(f"/compute/projects/{PROJECT}/regions/us-east5", {
        "kind": "compute#region", "name": "us-east5", "status": "UP",
        "quotas": [{"metric": "CPUS", "limit": 2400, "usage": 64},
                   {"metric": "TPU_LITE_PODSLICE_V5", "limit": tpu_lite_limit, "usage": 8},
                   {"metric": "PREEMPTIBLE_TPU_LITE_PODSLICE_V5", "limit": 64, "usage": 0}]})
    api.get(f"/compute/projects/{PROJECT}/zones/us-east5-b/reservations/res-v6e", {
        "kind": "compute#reservation", "name": "res-v6e", "status": "READY", "specificReservationRequired": True,
        "zone": f"https://www.googleapis.com/compute/v1/projects/{PROJECT}/zones/us-east5-b",
        "specificReservation": {"count": "8", "inUseCount": reservation_in_use,
                                "instanceProperties": {"machineType": "ct6e-standard-4t"}}})
    api.get(f"/compute/projects/{PROJECT}/zones/us-east5-b/machineTypes/ct5lp-hightpu-4t",
            {"kind": "compute#machineType", "name": "ct5lp-hightpu-4t", "zone": "us-east5-b", "guestCpus": 112})
    api.get(f"/compute/projects/{PROJECT}/zones/us-east5-b/machineTypes/n2-standard-64",
            {"kind": "compute#machineType", "name": "n2-standard-64", "zone": "us-east5-b", "guestCpus": 64})
    if ct6e_offered:
        api.get(f"/compute/projects/{PROJECT}/zones/us-east5-b/machineTypes/ct6e-standard-4t",
                {"kind": "compute#machineType", "name": "ct6e-standard-4t", "zone": "us-east5-b", "guestCpus": 180})
    api.get(f"/container/v1/projects/{PROJECT}/locations/us-east5/serverConfig", {
        "defaultClusterVersion": "1.34.1-gke.1829001", "validMasterVersions": ["1.34.1-gke.1829001", "1.33.5-gke.1080000"],
        "channels": [{"channel": "REGULAR", "defaultVersion": "1.34.1-gke.1829001",
                      "validVersions": ["1.34.1-gke.1829001", "1.33.5-gke.1080000"]},
                     {"channel": "RAPID", "defaultVersion": "1.35.0-gke.1000", "validVersions": ["1.35.0-gke.1000"]}]})
    api.get("/storage/b/acme-ml-dev-pathways", {"kind": "storage#bucket", "name": "acme-ml-dev-pathways",
                                                "location": "US-EAST5"})
    api.post(f"/cloudresourcemanager/v1/projects/{PROJECT}:testIamPermissions", {"permissions": granted or []})


@pytest.fixture
def google(monkeypatch):
    with GoogleApi() as api:
        monkeypatch.setenv(ENDPOINT_ENV, api.url)
        yield api


def preflight(capsys, directory, *extra):
    code = cli.main(["preflight", "--stack", "pre", "--project-dir", str(directory), *extra])
    out, err = capsys.readouterr()
    return code, out, err


def by_name(out):
    return {c["check"]: c for c in json.loads(out)["checks"]}


ALL = ["compute.resourcePolicies.create", "container.clusters.create", "container.clusters.get",
       "container.clusters.update", "iam.serviceAccounts.actAs", "iam.serviceAccounts.create",
       "resourcemanager.projects.setIamPolicy", "storage.buckets.create", "storage.buckets.setIamPolicy",
       "iam.serviceAccounts.setIamPolicy"]


@pytest.mark.slow  # plans the stack offline (a few seconds) for the resource types it creates
def test_preflight_reports_each_problem_with_its_fix(google, tmp_path, capsys):
    record(google, granted=["container.clusters.create", "container.clusters.get"])
    directory = project_dir(tmp_path)
    code, out, err = preflight(capsys, directory, "--json")
    assert code == 1, err
    checks = by_name(out)
    assert checks["api container.googleapis.com"]["status"] == "pass"
    storage = checks["api storage.googleapis.com"]
    assert storage["status"] == "fail" and storage["fix"] == f"gcloud services enable storage.googleapis.com --project {PROJECT}"
    od = checks["quota v5e TPU chips in us-east5"]  # 2 x 16 chips at max; 32 - 8 free
    assert od["status"] == "fail" and "needs 32 chips" in od["detail"] and "request 8 more" in od["fix"]
    assert checks["quota preemptible v5e TPU chips in us-east5"]["status"] == "pass"  # 8 of 64
    # the v6e pool consumes a reservation (its quota was counted when the reservation was made): no quota check
    assert not any(name.startswith("quota v6e") for name in checks)
    v6e = checks["quota preemptible v6e TPU chips in us-east5"]  # the spot v6e pool: Compute Engine cannot say
    assert v6e["status"] == "unknown" and "needs 8 chips" in v6e["detail"] and "Cloud Quotas" in v6e["detail"]
    res = checks["reservation res-v6e (held, us-east5-b)"]
    assert res["status"] == "fail" and res["detail"] == "ct6e-standard-4t: 6 of 8 free, the pool needs 8"
    assert checks["machine type ct5lp-hightpu-4t in us-east5-b"]["status"] == "pass"
    assert checks["machine type ct6e-standard-4t in us-east5-b"]["status"] == "fail"
    assert checks["machine type n2-standard-64 in us-east5-b"]["status"] == "pass"  # the CPU pool, beside the slices
    assert checks["GKE version in us-east5"]["detail"] == "REGULAR channel's default is 1.34.1-gke.1829001"
    assert checks["bucket acme-ml-dev-ckpt"]["status"] == "pass"  # free, and created by the stack
    assert checks["bucket acme-ml-dev-pathways"]["status"] == "pass"  # the workload's gcsScratch bucket exists
    perms = checks[f"caller permissions on {PROJECT}"]
    assert perms["status"] == "fail" and "storage.buckets.create" in perms["detail"]
    # the caller was asked about exactly what the planned resources need
    asked = next(body for method, path, body in google.requests if path.startswith("/cloudresourcemanager/"))
    assert "container.clusters.create" in asked["permissions"] and "storage.buckets.create" in asked["permissions"]
    assert set(asked["permissions"]) <= set(ALL)
    # text output: one line per check and the fix under a failure
    code, out, _ = preflight(capsys, directory)
    assert code == 1 and "[   fail] api storage.googleapis.com: DISABLED" in out
    assert f"fix: gcloud services enable storage.googleapis.com --project {PROJECT}" in out
    assert out.rstrip().splitlines()[-1].endswith("unknown")


@pytest.mark.slow
def test_preflight_passes_when_everything_is_in_place_and_pins_are_checked(google, tmp_path, capsys):
    record(google, tpu_lite_limit=64, reservation_in_use="0", ct6e_offered=True, granted=ALL)
    google.get(f"/serviceusage/v1/projects/{PROJECT}/services:batchGet", {"services": [
        service(a) for a in ("cloudresourcemanager.googleapis.com", "compute.googleapis.com",
                             "container.googleapis.com", "iam.googleapis.com", "storage.googleapis.com",
                             *FEATURE_APIS)]})
    code, out, err = preflight(capsys, project_dir(tmp_path), "--json")
    checks = by_name(out)
    assert [c for c in checks.values() if c["status"] == "fail"] == [] and code == 0, out
    # a pin the channel offers (a prefix resolves to its patch), and one it does not (RAPID's version on REGULAR)
    cluster = {**shipped("dev")["pathways-gke:cluster"], "version": "1.34"}
    code, out, _ = preflight(capsys, project_dir(tmp_path / "pinned", cluster=cluster), "--json")
    pinned = by_name(out)["GKE version in us-east5"]
    assert code == 0 and pinned == {"check": "GKE version in us-east5", "status": "pass",
                                    "detail": "1.34 is offered (1.34.1-gke.1829001)", "fix": None}
    cluster = {**cluster, "version": "1.35.0-gke.1000"}
    code, out, _ = preflight(capsys, project_dir(tmp_path / "rapid", cluster=cluster), "--json")
    pinned = by_name(out)["GKE version in us-east5"]
    assert code == 1 and pinned["status"] == "fail" and "1.35.0-gke.1000 is not offered on REGULAR" in pinned["detail"]


@pytest.mark.slow
def test_unreadable_answers_are_unknown_not_pass(monkeypatch, tmp_path, capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv(ENDPOINT_ENV, f"http://127.0.0.1:{port}")  # nothing listens: every call fails
    code, out, _ = preflight(capsys, project_dir(tmp_path), "--json")
    statuses = {c["status"] for c in json.loads(out)["checks"]}
    assert statuses == {"unknown"} and code == 0


@pytest.mark.slow
def test_forbidden_and_missing_reservations(google, tmp_path, capsys):
    record(google, granted=ALL)
    google.get(f"/compute/projects/{PROJECT}/zones/us-east5-b/reservations/res-v6e", error(404, "not found"), 404)
    google.get(f"/compute/projects/{PROJECT}/regions/us-east5", error(403, "Required 'compute.regions.get'"), 403)
    google.get("/storage/b/acme-ml-dev-ckpt", error(403, "no access"), 403)
    code, out, _ = preflight(capsys, project_dir(tmp_path), "--json")
    checks = by_name(out)
    assert checks["reservation res-v6e (held, us-east5-b)"]["status"] == "fail"
    assert "no reservation res-v6e in zone us-east5-b" in checks["reservation res-v6e (held, us-east5-b)"]["detail"]
    assert checks["quota v5e TPU chips in us-east5"]["status"] == "unknown"
    assert "403" in checks["quota v5e TPU chips in us-east5"]["detail"]
    assert not any(name.startswith("reservation block") for name in checks)  # no pool names a block
    bucket = checks["bucket acme-ml-dev-ckpt"]  # the name is someone else's: the stack cannot create it
    assert bucket["status"] == "fail" and bucket["fix"] == "choose another name"


@pytest.mark.slow
def test_a_reservation_block_is_checked_in_the_owners_project(google, tmp_path, capsys):
    record(google, granted=ALL, reservation_in_use="0")
    pools = [dict(p) for p in POOLS]
    pools[2]["reservation"] = {"name": "res-v6e", "project": "acme-capacity", "block": "block-a"}
    base = "/compute/projects/acme-capacity/zones/us-east5-b/reservations/res-v6e"
    google.get(base, google.routes[("GET", f"/compute/projects/{PROJECT}/zones/us-east5-b/reservations/res-v6e")][1])
    google.get(f"{base}/reservationBlocks/block-a", {"kind": "compute#reservationBlock", "name": "block-a",
                                                     "count": 8, "inUseCount": 4, "status": "READY"})
    code, out, _ = preflight(capsys, project_dir(tmp_path, tpuPools=pools), "--json")
    checks = by_name(out)
    assert checks["reservation res-v6e (held, us-east5-b)"]["status"] == "pass"  # read in acme-capacity
    block = checks["reservation block res-v6e/block-a (held)"]
    assert code == 1 and block["status"] == "fail" and block["detail"] == "4 of 8 free, the pool needs 8"


def test_preflight_needs_a_stack_that_exists(tmp_path, capsys):
    code = cli.main(["preflight", "--stack", "nope", "--project-dir", str(tmp_path)])
    assert code == 2 and "no stack file" in capsys.readouterr().err


@pytest.mark.slow
def test_the_channels_default_is_held_to_the_rulebooks_floors(google, tmp_path, capsys):
    """Offline, an unpinned cluster is assumed to meet the floors (gke_rules.py); live, the channel's default is
    known and checked: a v6e multi-host pool's accelerator network profile needs 1.34.1-gke.1829001."""
    record(google, granted=ALL)
    google.get(f"/container/v1/projects/{PROJECT}/locations/us-east5/serverConfig", {
        "defaultClusterVersion": "1.33.5-gke.1080000", "validMasterVersions": ["1.33.5-gke.1080000"],
        "channels": [{"channel": "REGULAR", "defaultVersion": "1.33.5-gke.1080000",
                      "validVersions": ["1.33.5-gke.1080000"]}]})
    code, out, _ = preflight(capsys, project_dir(tmp_path), "--json")
    floor = by_name(out)["GKE floor for held"]
    assert code == 1 and floor["status"] == "fail"
    assert floor["detail"] == "1.33.5-gke.1080000 is below 1.34.1-gke.1829001, needed by the accelerator network profile"
    assert "GKE floor for main" not in by_name(out)  # v5e pools here need no newer version


# --- what the plan needs, in the project each resource lands in ---------------------------------------------------


@pytest.mark.slow  # plans the stack offline
def test_preflight_asks_for_the_feature_apis_the_plans_actions_required_lists(google, tmp_path, capsys):
    record(google, granted=ALL, features=())
    code, out, _ = preflight(capsys, project_dir(tmp_path, observability={"alerts": True}), "--json")
    checks = by_name(out)
    for api, why in (("containerfilesystem.googleapis.com", "image streaming"), ("dns.googleapis.com", "Cloud DNS"),
                     ("monitoring.googleapis.com", "alert policies (observability.alerts)")):
        assert checks[f"api {api}"]["status"] == "fail" and why in checks[f"api {api}"]["detail"], api
        assert checks[f"api {api}"]["fix"] == f"gcloud services enable {api} --project {PROJECT}"
    # the same facts as the plan's actionsRequired (gke/cluster_spec.required_apis: one place)
    from pathways_gke.config.stack import load_stack_file
    from pathways_gke.gke.cluster_spec import required_apis

    stack = load_stack_file(tmp_path / "stacks" / "Pulumi.pre.yaml")
    assert {c[len("api "):] for c, v in checks.items() if c.startswith("api ") and v["status"] == "fail"} == \
        set(required_apis(stack)) | {"storage.googleapis.com"}


@pytest.mark.slow  # plans the stack offline
def test_on_a_shared_vpc_the_firewall_permission_is_asked_of_the_host_project(google, tmp_path, capsys):
    host = "acme-net-host"
    record(google, granted=ALL)
    google.post(f"/cloudresourcemanager/v1/projects/{host}:testIamPermissions", {"permissions": []})
    google.get(f"/serviceusage/v1/projects/{host}/services:batchGet", {"services": [
        service("compute.googleapis.com")]})
    cluster = {**shipped("dev")["pathways-gke:cluster"], "networkProject": host, "network": f"projects/{host}/global/networks/shared-net",
               "subnetwork": f"projects/{host}/regions/us-east5/subnetworks/gke-subnet", "podsRangeName": "pods", "servicesRangeName": "services",
               "privateNodes": True, "masterIpv4CidrBlock": "172.16.0.0/28"}  # the webhook firewall, in the host
    code, out, err = preflight(capsys, project_dir(tmp_path, cluster=cluster), "--json")
    checks = by_name(out)
    assert f"caller permissions on {host}" in checks, (out, err)
    on_host = checks[f"caller permissions on {host}"]
    assert on_host["status"] == "fail" and "compute.firewalls.create" in on_host["detail"]
    from urllib.parse import urlparse

    asked = {urlparse(path).path: body for method, path, body in google.requests
             if path.startswith("/cloudresourcemanager/")}
    assert "compute.firewalls.create" in asked[f"/cloudresourcemanager/v1/projects/{host}:testIamPermissions"][
        "permissions"]
    assert "compute.firewalls.create" not in asked[f"/cloudresourcemanager/v1/projects/{PROJECT}:testIamPermissions"][
        "permissions"]
    assert checks[f"api compute.googleapis.com in {host}"]["status"] == "pass"


@pytest.mark.slow  # plans the stack offline
def test_without_a_release_channel_the_default_cluster_version_is_checked(google, tmp_path, capsys):
    record(google, granted=ALL)
    cluster = {**shipped("dev")["pathways-gke:cluster"], "releaseChannel": "UNSPECIFIED"}
    code, out, _ = preflight(capsys, project_dir(tmp_path, cluster=cluster), "--json")
    version = by_name(out)["GKE version in us-east5"]
    assert version["status"] == "pass" and "1.34.1-gke.1829001 (defaultClusterVersion)" in version["detail"]


@pytest.mark.slow  # plans the stack offline
def test_a_transient_google_api_error_is_retried_not_a_failed_check(google, tmp_path, capsys):
    record(google, granted=ALL)
    google.flaky(f"/compute/projects/{PROJECT}/regions/us-east5", 503)
    code, out, _ = preflight(capsys, project_dir(tmp_path), "--json")
    quota = by_name(out)["quota v5e TPU chips in us-east5"]
    assert quota["status"] != "unknown" and "limit 32" in quota["detail"]
    assert sum(path.startswith(f"/compute/projects/{PROJECT}/regions/us-east5") for _, path, _ in google.requests) == 2
@pytest.mark.slow  # plans the stack offline
def test_a_reservation_per_slice_is_checked_for_the_slice_that_consumes_it(google, tmp_path, capsys):
    record(google)  # res-v6e: 8 VMs, 2 in use
    google.get(f"/compute/projects/{PROJECT}/zones/us-east5-b/reservations/res-v6e-b", {
        "kind": "compute#reservation", "name": "res-v6e-b", "status": "READY", "specificReservationRequired": True,
        "specificReservation": {"count": "4", "inUseCount": "1",
                                "instanceProperties": {"machineType": "ct6e-standard-4t"}}})
    pools = [dict(p) for p in POOLS]
    held = next(p for p in pools if p["name"] == "held")
    held.pop("reservation")
    held["reservations"] = ["res-v6e", "res-v6e-b"]  # slice 0 and slice 1, 4 VMs each (v6e 4x4)
    code, out, err = preflight(capsys, project_dir(tmp_path, tpuPools=pools), "--json")
    checks = by_name(out)
    first, second = checks["reservation res-v6e (held, us-east5-b)"], checks["reservation res-v6e-b (held, us-east5-b)"]
    assert first["status"] == "pass" and first["detail"] == "ct6e-standard-4t: 6 of 8 free, the pool needs 4"
    assert second["status"] == "fail" and second["detail"] == "ct6e-standard-4t: 3 of 4 free, the pool needs 4"

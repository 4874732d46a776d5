"""GKE, network and input rules, round 2 (issue 23): the variants platform teams write next. Each is refused with the
config path, the value and what is allowed, or accepted because GKE/GCP accept it."""

import re

import pytest
import yaml

from pathways_gke import gke_rules as R
from pathways_gke.config import parse_stack
from pathways_gke.errors import ConfigError
from tests.conftest import ROOT
from tests.support.stacks import ABSENT, P, SMALL, merged, stack


def dev(**sections) -> dict:
    """The dev stack (its v6e pool without the network profile, so older pinned versions pass its floor)."""
    sections.setdefault("tpuPools", [{"networkProfile": False}])
    return merged("dev", **sections)


def window(start: str, end: str, recurrence: str) -> dict:
    return dev(cluster={"maintenance": {"window": {"startTime": start, "endTime": end, "recurrence": recurrence}}})


def exclusions(*items: dict) -> dict:
    return dev(cluster={"maintenance": {"exclusions": list(items)}})


def problems_of(config: dict) -> list[str]:
    try:
        parse_stack(config)
    except ConfigError as error:
        return [str(p) for p in error.problems]
    return []


def refused_at(config: dict, path: str, *fragments: str) -> str:
    problems = problems_of(config)
    at_path = [p for p in problems if p.startswith(f"{path}:")]
    assert at_path, f"no problem at {path}: {problems}"
    line = next((p for p in at_path if all(f in p for f in fragments)), None)
    assert line is not None, f"no problem at {path} says all of {fragments}: {at_path}"
    return line


# --- maintenance windows: 48 h in any 32 days, counting contiguous windows of 4 h or more ----------------------

@pytest.mark.parametrize("start, end, recurrence, hours", [
    ("2026-12-05T02:00:00Z", "2026-12-05T10:00:00Z", "FREQ=WEEKLY;BYDAY=SA", 32),  # 4 Saturdays fit in 32 days
    ("2026-12-05T02:00:00Z", "2026-12-05T10:00:00Z", "FREQ=WEEKLY;BYDAY=SA,SU", 64),
    ("2026-12-05T02:00:00Z", "2026-12-05T04:00:00Z", "FREQ=DAILY", 0),  # 2 h windows are not counted at all
    ("2026-12-05T02:00:00Z", "2026-12-05T05:59:00Z", "FREQ=DAILY", 0),  # nor 3 h 59 min ones
    ("2026-12-05T02:00:00Z", "2026-12-05T06:00:00Z", "FREQ=DAILY", 128),
    ("2026-12-05T00:00:00Z", "2026-12-06T00:00:00Z", "FREQ=DAILY", 768),  # back to back: always open
    ("2026-12-05T00:00:00Z", "2026-12-05T12:00:00Z", "FREQ=WEEKLY;INTERVAL=2;BYDAY=SA,SU", 48),
    ("2026-12-07T22:00:00Z", "2026-12-08T00:00:00Z", "FREQ=DAILY", 0),
    # Friday and Saturday, 26 h from Friday 00:00: the two overlap into one 50 h block a week (4 of them in the worst 32 days)
    ("2026-12-04T00:00:00Z", "2026-12-05T02:00:00Z", "FREQ=WEEKLY;BYDAY=FR,SA", 4 * 50),
    # first Saturday of the month, 48 h: first Saturdays are 28 or 35 days apart, so some 32 days have none
    ("2026-12-05T00:00:00Z", "2026-12-07T00:00:00Z", "FREQ=MONTHLY;BYDAY=1SA", 0),
    ("2026-12-31T00:00:00Z", "2027-01-03T00:00:00Z", "FREQ=MONTHLY;BYMONTHDAY=31", 0),  # February has no 31st
])
def test_the_availability_gke_counts_is_computed_from_the_rrule_and_the_window(start, end, recurrence, hours):
    assert R.maintenance_availability_hours(start, end, recurrence) == pytest.approx(hours)


def test_the_docs_example_of_8_hours_on_saturdays_was_below_gke_s_48_hours():
    refused_at(window("2026-12-05T02:00:00Z", "2026-12-05T10:00:00Z", "FREQ=WEEKLY;BYDAY=SA"),
               "cluster.maintenance.window.recurrence", "32 h", "48 h", "32 days", "4 h", "FREQ=WEEKLY;BYDAY=SA,SU")


@pytest.mark.parametrize("recurrence", ["FREQ=DAILY", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR"])
def test_short_daily_windows_are_refused_however_many_there_are(recurrence):
    refused_at(window("2026-12-05T02:00:00Z", "2026-12-05T05:00:00Z", recurrence),
               "cluster.maintenance.window.recurrence", "3 h", "below the 4 h")


@pytest.mark.parametrize("start, end, recurrence", [
    ("2026-12-05T02:00:00Z", "2026-12-05T10:00:00Z", "FREQ=WEEKLY;BYDAY=SA,SU"),
    ("2026-12-05T02:00:00Z", "2026-12-05T06:00:00Z", "FREQ=DAILY"),
    ("2026-12-05T00:00:00Z", "2026-12-05T12:00:00Z", "FREQ=WEEKLY;INTERVAL=2;BYDAY=SA,SU"),
    ("2026-12-05T02:00:00+01:00", "2026-12-05T14:00:00+01:00", "FREQ=WEEKLY;BYDAY=SA"),  # 12 h: 48 h in 4 weeks
    ("2026-12-05T00:00:00Z", "2026-12-07T00:00:00Z", "FREQ=WEEKLY;BYDAY=SA;WKST=MO"),
])
def test_windows_with_enough_availability_are_accepted(start, end, recurrence):
    assert problems_of(window(start, end, recurrence)) == []


def test_a_window_must_end_after_it_starts():
    refused_at(window("2026-12-05T10:00:00Z", "2026-12-05T02:00:00Z", "FREQ=DAILY"),
               "cluster.maintenance.window.endTime", "not after startTime")


@pytest.mark.parametrize("recurrence, fragment", [
    ("FREQ=WEEKLY;BYDAY=SAT", "two letters"),
    ("FREQ=WEEKLY;BYDAY=sa", "two letters"),
    ("FREQ=WEEKLY;BYDAY=1SA", "only FREQ=MONTHLY"),
    ("FREQ=WEEKLY;BYHOUR=2", "not supported"),
    ("FREQ=WEEKLY;COUNT=3", "not supported"),
    ("FREQ=HOURLY", "FREQ=DAILY"),
    ("BYDAY=SA;FREQ=WEEKLY", "start with FREQ="),
    ("FREQ=DAILY;INTERVAL=0", "INTERVAL"),
    ("FREQ=WEEKLY;BYMONTHDAY=1", "FREQ=MONTHLY only"),
    ("FREQ=WEEKLY;BYDAY=SA;BYDAY=SU", "twice"),
])
def test_rrules_gke_does_not_take_are_refused_with_what_is_allowed(recurrence, fragment):
    refused_at(window("2026-12-05T00:00:00Z", "2026-12-06T00:00:00Z", recurrence),
               "cluster.maintenance.window.recurrence", fragment)


# --- maintenance exclusions ---------------------------------------------------------------------------------

def test_a_no_upgrades_exclusion_is_limited_to_30_days():
    refused_at(exclusions({"name": "freeze", "startTime": "2026-12-01T00:00:00Z", "endTime": "2027-01-01T00:00:01Z",
                           "scope": "NO_UPGRADES"}),
               "cluster.maintenance.exclusions[0].endTime", "NO_UPGRADES", "at most 30 days", "2026-12-31T00:00:00Z")
    assert problems_of(exclusions({"name": "freeze", "startTime": "2026-12-01T00:00:00Z",
                                   "endTime": "2026-12-31T00:00:00Z", "scope": "NO_UPGRADES"})) == []
    # the NO_MINOR_* scopes run up to the version's end of support
    assert problems_of(exclusions({"name": "hold", "startTime": "2026-12-01T00:00:00Z",
                                   "endTime": "2027-06-01T00:00:00Z", "scope": "NO_MINOR_UPGRADES"})) == []


def test_an_exclusion_must_end_after_it_starts():
    refused_at(exclusions({"name": "hold", "startTime": "2026-12-01T00:00:00Z", "endTime": "2026-11-01T00:00:00Z"}),
               "cluster.maintenance.exclusions[0].endTime", "not after startTime")


def test_exclusions_are_keyed_by_name():
    refused_at(exclusions({"name": "hold", "startTime": "2026-12-01T00:00:00Z"},
                          {"name": "other", "startTime": "2026-12-01T00:00:00Z"},
                          {"name": "hold", "startTime": "2027-01-01T00:00:00Z"}),
               "cluster.maintenance.exclusions[2].name", "'hold'", "exclusions[0]", "own name")


def test_at_most_three_no_upgrades_exclusions_and_twenty_in_all():
    no_upgrades = [{"name": f"f{i}", "startTime": f"2027-0{i + 1}-01T00:00:00Z", "endTime": f"2027-0{i + 1}-10T00:00:00Z",
                    "scope": "NO_UPGRADES"} for i in range(4)]
    refused_at(exclusions(*no_upgrades), "cluster.maintenance.exclusions", "4 NO_UPGRADES", "at most 3")
    assert problems_of(exclusions(*no_upgrades[:3])) == []
    many = [{"name": f"h{i}", "startTime": "2026-12-01T00:00:00Z"} for i in range(21)]
    refused_at(exclusions(*many), "cluster.maintenance.exclusions", "21 exclusions", "at most 20")
    assert problems_of(exclusions(*many[:20])) == []


def test_every_yaml_example_in_the_rules_doc_passes_the_rules():
    document = (ROOT / "docs" / "gke-rules.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", document, re.S)
    assert blocks
    for block in blocks:
        sections = yaml.safe_load(block)
        config = stack(None, **{k.removeprefix(P): v for k, v in sections.items()})
        assert problems_of(config) == [], block


# --- inputs GKE and GCP refuse ---------------------------------------------------------------------------------

def authorized(*blocks: str) -> dict:
    return dev(cluster={"masterAuthorizedNetworks": [{"cidrBlock": b} for b in blocks]})


@pytest.mark.parametrize("block, fragment", [
    ("203.0.113.7", "no prefix length"),
    ("2001:db8::/32", "IPv6"),
    ("203.0.113.7/24", "no host bits"),
    ("203.0.113.0/33", "IPv4 CIDR"),
    ("example.com/24", "IPv4 CIDR"),
])
def test_authorized_networks_are_ipv4_cidr_blocks_with_a_prefix(block, fragment):
    refused_at(authorized(block), "cluster.masterAuthorizedNetworks[0].cidrBlock", f"'{block}'", fragment)


def test_at_most_50_authorized_networks():
    blocks = [f"203.0.{i}.0/24" for i in range(51)]
    refused_at(authorized(*blocks), "cluster.masterAuthorizedNetworks", "51 CIDR blocks", "at most 50")
    assert problems_of(authorized(*blocks[:50])) == []
    assert problems_of(authorized("203.0.113.7/32", "0.0.0.0/0")) == []


@pytest.mark.parametrize("name, fragment", [
    ("ab", "3-63"),
    ("a" * 64, "3-63"),
    ("-abc", "starting and ending"),
    ("abc-", "starting and ending"),
    ("Abc", "lower-case"),
    ("a..b", "each dot-separated part"),
    (".".join(["a" * 63] * 3) + ".abcdefghijklmnopqrstuvwxyz0123456789ab", "up to 222"),
    ("a" * 64 + ".com", "at most 63"),
    ("192.168.5.4", "IP address"),
    ("goog-checkpoints", "'goog'"),
    ("my-google-data", "'google'"),
    ("my-g00gle-data", "misspelling"),
    ("acme-go0gl3", "misspelling"),
])
def test_bucket_names_follow_cloud_storage_s_naming_rules(name, fragment):
    refused_at(stack("dev", buckets=[{"name": name}]), "buckets[0].name", fragment)


@pytest.mark.parametrize("name", ["abc", "a" * 63, "acme_ckpt.example.com", ".".join(["a" * 63] * 3) + ".ab",
                                  "goo-data", "192.168.5", "ckpt-2026"])
def test_bucket_names_cloud_storage_accepts_are_accepted(name):
    assert problems_of(stack("dev", buckets=[{"name": name}])) == []


def test_a_scratch_location_names_a_bucket_cloud_storage_accepts():
    refused_at(dev(workloads=[{"pathways": {"gcsScratch": "gs://goog-scratch/tmp"}}]),
               "workloads[0].pathways.gcsScratch", "names bucket 'goog-scratch'", "'goog'")


@pytest.mark.parametrize("machine, fragment", [
    ("n2-standard64", "FAMILY-KIND-VCPUS"),
    ("n2_standard_64", "FAMILY-KIND-VCPUS"),
    ("n2-standard-0", "FAMILY-KIND-VCPUS"),
    ("n9-standard-64", "family 'n9'"),
    ("n2-highgpu-8g", "accelerator-optimized"),
    ("a3-highgpu-8", "FAMILY-KIND-VCPUS"),
    ("custom-8", "FAMILY-KIND-VCPUS"),
    ("n2-medium", "shared-core"),
    ("ct5p-hightpu-4t", "TPU machine type"),
])
def test_cpu_machine_types_are_well_formed_and_of_a_known_family(machine, fragment):
    refused_at(dev(cpuPool={"machineType": machine}), "cpuPool.machineType", fragment)


@pytest.mark.parametrize("machine", ["n2-standard-64", "n2d-highmem-32", "c4-standard-48-lssd", "e2-medium",
                                     "n2-custom-8-32768", "c3-highcpu-176", "m3-ultramem-32", "t2d-standard-60",
                                     "custom-8-32768", "a2-ultragpu-1g"])
def test_cpu_machine_types_compute_engine_offers_are_accepted(machine):
    """The name is Compute Engine's (with no Pathways head on the pool: whether a head fits, and whether the catalog
    can size the machine at all, is tests/test_inputs_round3.py's)."""
    config = dev(cpuPool={"machineType": machine})
    config.pop(P + "workloads")
    assert problems_of(config) == []


@pytest.mark.parametrize("key, value, fragment", [
    ("network", "My_VPC", "not a VPC network"),
    ("network", "vpc-", "not a VPC network"),
    ("network", "projects/acme/global/networks/vpc", "not a VPC network"),  # 'acme' is not a project id
    ("network", "projects/acme-host/regions/us-east5/subnetworks/s", "not a VPC network"),
    ("network", "a" * 64, "at most 63"),
    ("subnetwork", "1subnet", "not a subnetwork"),
    ("subnetwork", "projects/acme-host/global/networks/vpc", "not a subnetwork"),
])
def test_network_and_subnetwork_are_names_or_self_links(key, value, fragment):
    refused_at(dev(cluster={key: value}), f"cluster.{key}", fragment)


RANGES = {"podsRangeName": "gke-pods", "servicesRangeName": "gke-services"}


@pytest.mark.parametrize("cluster", [
    {"network": "vpc-main", "subnetwork": "nodes-east5"},
    {"network": "projects/acme-host/global/networks/vpc", "subnetwork":
     "https://www.googleapis.com/compute/v1/projects/acme-host/regions/us-east5/subnetworks/nodes", **RANGES},
    {"network": "https://www.googleapis.com/compute/v1/projects/acme-host/global/networks/vpc",
     "networkProject": "acme-host", "subnetwork": "projects/acme-host/regions/us-east5/subnetworks/s", **RANGES,
     "privateNodes": True, "masterIpv4CidrBlock": "172.16.0.32/28"},  # networkProject: where the firewall goes
])
def test_networks_gke_takes_are_accepted(cluster):
    assert problems_of(dev(cluster=cluster)) == []


def test_a_subnetwork_lives_in_the_cluster_s_region_and_its_network_s_project():
    refused_at(dev(cluster={"subnetwork": "projects/acme-ml-dev/regions/us-central1/subnetworks/s"}),
               "cluster.subnetwork", "us-central1", "us-east5")
    refused_at(dev(cluster={"network": "projects/acme-host/global/networks/vpc",
                            "subnetwork": "projects/acme-other/regions/us-east5/subnetworks/s"}),
               "cluster.subnetwork", "acme-other", "acme-host")


def test_network_project_needs_a_network_self_link_that_agrees():
    refused_at(dev(cluster={"networkProject": "acme-host"}), "cluster.networkProject",
               "cluster.network is not set")
    refused_at(dev(cluster={"networkProject": "acme-host", "network": "vpc"}), "cluster.network",
               "plain network name", "projects/acme-host/global/networks/vpc")
    refused_at(dev(cluster={"networkProject": "acme-host", "network": "projects/acme-other/global/networks/vpc"}),
               "cluster.networkProject", "contradicts", "acme-other")


@pytest.mark.parametrize("project", ["Acme-Proj", "acme", "acme-project-", "1acme-proj", "acme_proj",
                                     "a" * 31])
def test_project_ids_are_checked_wherever_they_appear(project):
    refused_at(dev(tpuPools=[{"capacity": "reservation", "reservation": {"name": "r1", "project": project}}]),
               "tpuPools[0].reservation.project", "not a GCP project id")
    refused_at(dev(cluster={"network": "vpc", "networkProject": project}), "cluster.networkProject",
               "not a GCP project id")


@pytest.mark.parametrize("image", ["https://us-docker.pkg.dev/p/r/i:1", "a:b:c", "gcr.io//x:1", "gcr.io/x/:1",
                                   "gcr.io/X/y:1", "gcr.io/x:-tag", "gcr.io/x:" + "t" * 129, "gcr.io/x y:1",
                                   "gcr.io/x@sha256:abc", "gcr.io/x:1@sha256:" + "A" * 64, "/x:1", "x:"])
def test_image_references_that_are_not_oci_references_are_refused(image):
    refused_at(dev(workloads=[{"image": image}]), "workloads[0].image", "container image reference"
               if "sha256:A" not in image and "sha256:abc" not in image else "")


@pytest.mark.parametrize("image", ["us-docker.pkg.dev/acme/train/trainer:V1.2-", "gcr.io/x:Latest_build",
                                   "localhost:5000/team/img:1", "registry.example.com:443/a/b__c/d-e:2026.11",
                                   "gcr.io/x@sha256:" + "a" * 64, "gcr.io/x:1@sha256:" + "0" * 64,
                                   "ubuntu:24.04", "gcr.io/x:" + "t" * 128])
def test_valid_oci_references_are_accepted(image):
    assert problems_of(dev(workloads=[{"image": image}])) == []


def test_the_compute_engine_default_service_account_is_accepted_as_the_node_service_account():
    email = "123456789012-compute@developer.gserviceaccount.com"
    assert problems_of(dev(cluster={"nodeServiceAccount": {"create": False, "email": email}})) == []
    refused_at(dev(cluster={"nodeServiceAccount": {"create": False, "email": "12-compute@developer.gserviceaccount.com"}}),
               "cluster.nodeServiceAccount.email", "PROJECT_NUMBER-compute@developer.gserviceaccount.com")
    # a workload's Workload Identity account stays a user-managed one
    refused_at(dev(workloads=[{"serviceAccount": "trainer", "gcpServiceAccount": email}]),
               "workloads[0].gcpServiceAccount", "user-managed")


def test_small_stack_still_parses():
    assert problems_of(stack(None)) == [] and SMALL


# --- version floors of the features the workloads and alerts use ------------------------------------------------

@pytest.mark.parametrize("version, below", [
    ("1.31", True), ("1.32.4-gke.1766999", True), ("1.32.4-gke.1767000", False), ("1.32", False),
    ("1.33.0-gke.1867999", True), ("1.33.0-gke.1868000", False), ("1.33.0", False), ("1.34.0-gke.1", False),
    ("1.32.3-gke.9999999", True),
])
def test_the_restart_metric_floor_is_per_minor_line(version, below):
    assert R.below_line_floors(version, R.JOBSET_RESTARTS_MIN_GKE) is below


def test_the_restart_alert_needs_a_cluster_that_exports_kube_jobset_restarts():
    alerts = {"alerts": True}
    refused_at(dev(cluster={"version": "1.33.0-gke.1700000"}, observability=alerts), "cluster.version",
               "kube_jobset_restarts", "1.33.0-gke.1868000", "observability.alerts: false")
    assert problems_of(dev(cluster={"version": "1.33.0-gke.1868000"}, observability=alerts)) == []
    assert not any("kube_jobset_restarts" in p for p in problems_of(dev(cluster={"version": "1.33.0-gke.1700000"})))


FUSE = [{"name": "data", "bucket": "acme-data", "mountPath": "/data"}]


def test_gcs_fuse_on_host_network_pods_needs_the_driver_that_supports_it():
    refused_at(dev(cluster={"version": "1.33.2-gke.9"}, workloads=[{"gcsFuse": FUSE}]), "cluster.version",
               "1.33.3-gke.1226000", "hostNetworkPodKSA", "workloads[0].gcsFuse")
    assert problems_of(dev(cluster={"version": "1.33.3-gke.1226000"}, workloads=[{"gcsFuse": FUSE}])) == []
    assert problems_of(dev(cluster={"version": "1.33"}, workloads=[{"gcsFuse": FUSE}])) == []  # GKE picks a patch
    assert problems_of(dev(cluster={"version": "1.33.2-gke.9"})) == []  # no FUSE volume, no floor


# --- the stuck alert is completion-aware -----------------------------------------------------------------------

def _evaluate(query: str, series: dict[str, list[tuple[dict, float]]]) -> bool:
    """Evaluate the stuck alert's PromQL shape (sums and a max of label-matched gauges, '-', '> 0', '== 1',
    'unless on()') over samples: True when the alert's condition holds."""
    def select(name: str, matchers: str) -> list[float]:
        wanted = re.findall(r'(\w+)(=~|=)"([^"]*)"', matchers)
        return [value for labels, value in series.get(name, [])
                if all(re.fullmatch(v, labels.get(k, "")) if op == "=~" else labels.get(k) == v for k, op, v in wanted)]

    text = re.sub(r"sum\((\w+)\{([^}]*)\}\)", lambda m: repr(sum(select(m[1], m[2]))), query)
    text = re.sub(r"max\((\w+)\{([^}]*)\}\)", lambda m: repr(max(select(m[1], m[2]), default=-1.0)), text)
    left, _, right = text.partition(" unless on() ")
    return eval(left) and not (right and eval(right))  # noqa: S307 - numbers and operators only, built above


def _jobset(specified=4, ready=0, succeeded=0, suspended=0, conditions=()) -> dict:
    labels = {"cluster": "pw-prod", "namespace": "ml", "jobset_name": "llm-pretrain", "replicated_job_name": "worker"}
    series = {f"kube_jobset_{kind}_replicas": [(labels, float(n))] for kind, n in (
        ("specified", specified), ("ready", ready), ("succeeded", succeeded), ("suspended", suspended))}
    series["kube_jobset_status_condition"] = [({**labels, "condition": c}, 1.0) for c in conditions]
    return series


def test_the_stuck_alert_fires_for_missing_workers_but_not_after_success_or_while_suspended():
    from pathways_gke.config import parse_stack as parse
    from pathways_gke.gke.observability import alert_policy_specs

    specs = dict(alert_policy_specs(parse(merged("prod", observability={"alerts": True}))))
    query = specs["llm-pretrain-stuck-alert"]["conditions"][0]["condition_prometheus_query_language"]["query"]
    assert _evaluate(query, _jobset(ready=2))  # two of four slices never became ready
    assert not _evaluate(query, _jobset(ready=4))
    assert not _evaluate(query, _jobset(succeeded=4, conditions=("Completed",)))  # done: nothing is ready any more
    assert not _evaluate(query, _jobset(succeeded=4))  # before the condition is scraped
    assert not _evaluate(query, _jobset(ready=0, conditions=("Suspended",)))  # Kueue holds it: suspended on purpose
    assert not _evaluate(query, _jobset(suspended=4))
    assert not _evaluate(query, _jobset(ready=1, conditions=("Failed",)))  # failed: the restart alert's business
    assert _evaluate(query, _jobset(ready=2, succeeded=1))  # one Job done, one missing


# --- checkpoints: the bucket's metadata, and a lifecycle rule that never covers declared data ------------------

@pytest.mark.slow
def test_who_writes_a_bucket_also_reads_its_metadata():
    from pathways_gke.plan.engine import plan_config

    config = dev()
    config[P + "workloads"][0]["buckets"] = [{"bucket": "acme-ckpt"}, {"bucket": "acme-data", "access": "read"}]
    plan = plan_config(config, stack="ckpt")
    granted = {(r.inputs["bucket"], r.inputs["role"]) for r in plan.resources
               if r.type == "gcp:storage/bucketIAMMember:BucketIAMMember"}
    for bucket in ("acme-ckpt", "acme-ml-dev-pathways"):  # a declared checkpoint bucket and the scratch bucket
        assert {(bucket, "roles/storage.objectUser"), (bucket, "roles/storage.legacyBucketReader")} <= granted
    assert ("acme-data", "roles/storage.objectViewer") in granted
    assert ("acme-data", "roles/storage.legacyBucketReader") not in granted  # read-only: objects only


def _created_bucket(scratch: str, **workload) -> dict:
    config = stack("dev", buckets=[{"name": "acme-ckpt", "create": True}])
    config[P + "workloads"][0]["pathways"]["gcsScratch"] = scratch
    config[P + "workloads"][0].update(workload)
    return config


def test_a_created_bucket_s_root_is_no_scratch_location_when_it_holds_declared_data():
    refused_at(_created_bucket("gs://acme-ckpt", buckets=[{"bucket": "acme-ckpt"}]),
               "workloads[0].pathways.gcsScratch", "root of bucket acme-ckpt", "7 days", "workloads[0].buckets[0]",
               "gs://acme-ckpt/scratch")
    refused_at(_created_bucket("gs://acme-ckpt/", gcsFuse=[{"name": "d", "bucket": "acme-ckpt", "mountPath": "/d"}]),
               "workloads[0].pathways.gcsScratch", "workloads[0].gcsFuse[0]")


@pytest.mark.slow
def test_a_scratch_path_scopes_the_lifecycle_rule_and_a_scratch_only_bucket_may_expire_whole():
    from pathways_gke.plan.engine import plan_config

    plan = plan_config(_created_bucket("gs://acme-ckpt/tmp", buckets=[{"bucket": "acme-ckpt"}]), stack="b")
    [rule] = plan.named("pw-dev-bucket-acme-ckpt").inputs["lifecycleRules"]
    assert rule["condition"] == {"age": 7, "matchesPrefixes": ["tmp/"]}
    plan = plan_config(_created_bucket("gs://acme-ckpt"), stack="b")  # nothing else lives there
    [rule] = plan.named("pw-dev-bucket-acme-ckpt").inputs["lifecycleRules"]
    assert rule["condition"] == {"age": 7}


# --- image streaming and Cloud DNS: the APIs and the role they need ---------------------------------------------

NODE_SA_ROLE = "gcp:projects/iAMMember:IAMMember"


def _node_sa_roles(plan) -> set[str]:
    return {r.inputs["role"] for r in plan.resources if r.type == NODE_SA_ROLE and "-node-sa-" in r.name}


@pytest.mark.slow
def test_image_streaming_gives_the_created_node_service_account_service_usage_and_lists_the_api():
    from pathways_gke.plan.engine import plan_config

    plan = plan_config(dev(), stack="gcfs")  # image streaming is on by default
    assert "roles/serviceusage.serviceUsageConsumer" in _node_sa_roles(plan)
    [api] = [a for a in plan.outputs["actionsRequired"] if a.startswith("enable ")]
    assert "containerfilesystem.googleapis.com" in api and "cpuPool" in api and "tpuPools[0]" in api
    assert "dns.googleapis.com: Cloud DNS (cluster.dns: auto)" in api  # dev's v6e 2x4 slice is multi-host

    off = dev(cpuPool={"imageStreaming": False}, tpuPools=[{"imageStreaming": False, "networkProfile": False}])
    plan = plan_config(off, stack="gcfs")
    assert "roles/serviceusage.serviceUsageConsumer" not in _node_sa_roles(plan)
    assert not [a for a in plan.outputs["actionsRequired"] if "containerfilesystem" in a]


@pytest.mark.slow
def test_cloud_dns_lists_its_api():
    from pathways_gke.plan.engine import plan_config

    plan = plan_config(dev(cluster={"dns": "cloud-dns"}), stack="dns")
    [api] = [a for a in plan.outputs["actionsRequired"] if a.startswith("enable ")]
    assert "dns.googleapis.com: Cloud DNS" in api and "gcloud services enable" in api
    plan = plan_config(dev(cluster={"dns": "gke-default"}), stack="dns")
    assert not [a for a in plan.outputs["actionsRequired"] if "dns.googleapis.com" in a]


# --- Cloud NAT and the webhook firewall ---------------------------------------------------------------------

PRIVATE = {"privateNodes": True, "masterIpv4CidrBlock": "172.16.0.32/28"}


def _plan(config: dict, name: str = "net"):
    from pathways_gke.plan.engine import plan_config

    return plan_config(config, stack=name)


@pytest.mark.slow
def test_the_firewall_opens_the_ports_of_the_controllers_the_stack_installs():
    firewall = _plan(dev(cluster=PRIVATE)).named("pw-dev-webhooks")
    assert firewall.inputs["allows"] == [{"protocol": "tcp", "ports": ["9443"]}]
    firewall = _plan(dev(cluster=PRIVATE, kueue={"enabled": True})).named("pw-dev-webhooks")
    assert firewall.inputs["allows"] == [{"protocol": "tcp", "ports": ["8082", "9443"]}]  # Kueue's visibility API


@pytest.mark.slow
def test_fixed_names_are_unique_per_location_and_replaced_delete_first():
    east, central = (_plan(dev(cluster={**PRIVATE, "location": loc}, cpuPool={"zone": f"{loc}-a"},
                               tpuPools=[{"zone": f"{loc}-b", "networkProfile": False}]), loc)
                     for loc in ("us-east5", "us-central1"))
    for child in ("pw-dev-webhooks", "pw-dev-router", "pw-dev-nat"):
        a, b = east.named(child), central.named(child)
        assert a.inputs["name"] != b.inputs["name"], child  # firewall rules are global: no 409 in a second region
        assert a.options["deleteBeforeReplace"] and a.urn.endswith(f"::{child}")  # logical names kept
    # two zonal clusters of one name in one region get two routers (routers are per region)
    zonal = [_plan(dev(cluster={**PRIVATE, "location": f"us-east5-{z}"}, cpuPool={"zone": f"us-east5-{z}"},
                       tpuPools=[{"zone": f"us-east5-{z}", "networkProfile": False}]), z).named("pw-dev-router")
             for z in ("a", "b")]
    assert zonal[0].inputs["name"] != zonal[1].inputs["name"]


@pytest.mark.slow
def test_the_nat_covers_the_cluster_s_subnetwork_only():
    nat = _plan(dev(cluster={**PRIVATE, "network": "vpc-main", "subnetwork": "gke-nodes"})).named("pw-dev-nat")
    assert nat.inputs["sourceSubnetworkIpRangesToNat"] == "LIST_OF_SUBNETWORKS"
    assert nat.inputs["subnetworks"] == [{"name": "projects/acme-ml-dev/regions/us-east5/subnetworks/gke-nodes",
                                          "sourceIpRangesToNats": ["ALL_IP_RANGES"]}]
    link = "https://www.googleapis.com/compute/v1/projects/acme-ml-dev/regions/us-east5/subnetworks/s"
    nat = _plan(dev(cluster={**PRIVATE, "network": "vpc-main", "subnetwork": link})).named("pw-dev-nat")
    assert nat.inputs["subnetworks"][0]["name"] == link


@pytest.mark.slow
def test_no_nat_is_created_in_another_project_s_network_unless_asked():
    shared = {**PRIVATE, "network": "projects/acme-net-host/global/networks/shared",
              "subnetwork": "projects/acme-net-host/regions/us-east5/subnetworks/gke", **RANGES}
    plan = _plan(dev(cluster=shared))
    assert not plan.of_type("gcp:compute/routerNat:RouterNat") and not plan.of_type("gcp:compute/router:Router")
    plan = _plan(dev(cluster={**shared, "nat": {"enabled": True}}))
    assert plan.named("pw-dev-nat").inputs["project"] == "acme-net-host"
    plan = _plan(dev(cluster={**shared, "nat": {"router": "host-router"}}))  # a named router means: put it there
    assert plan.named("pw-dev-nat").inputs["router"] == "host-router"


def test_a_network_given_as_an_output_needs_its_project_and_subnetwork_for_the_nat():
    from pathways_gke.config.deferrable import stand_in

    out = stand_in("text", 1)
    refused_at(dev(cluster={**PRIVATE, "network": out}), "cluster.networkProject", "Output")
    refused_at(dev(cluster={**PRIVATE, "network": out, "networkProject": "acme-ml-dev"}), "cluster.subnetwork",
               "Output")
    assert problems_of(dev(cluster={**PRIVATE, "network": out, "networkProject": "acme-ml-dev",
                                    "subnetwork": "gke-nodes"})) == []
    assert problems_of(dev(cluster={"network": out})) == []  # public: nothing goes to the network's project


# --- Shared VPC: user-managed secondary ranges and the host project's grants ----------------------------------

SHARED = {"network": "projects/acme-net-host/global/networks/shared",
          "subnetwork": "projects/acme-net-host/regions/us-east5/subnetworks/gke"}


@pytest.mark.slow
def test_a_cluster_on_a_host_project_s_subnetwork_names_its_secondary_ranges():
    refused_at(dev(cluster=SHARED), "cluster.podsRangeName", "acme-net-host", "Shared VPC", "servicesRangeName")
    refused_at(dev(cluster={**SHARED, "podsRangeName": "gke-pods"}), "cluster.servicesRangeName",
               "podsRangeName")
    refused_at(dev(cluster={"podsRangeName": "p", "servicesRangeName": "s"}), "cluster.podsRangeName",
               "cluster.subnetwork")
    refused_at(dev(cluster={**SHARED, "podsRangeName": "Pods_1", "servicesRangeName": "s"}),
               "cluster.podsRangeName", "secondary range name")
    plan = _plan(dev(cluster={**SHARED, **RANGES}))
    assert plan.named("pw-dev-cluster").inputs["ipAllocationPolicy"] == {
        "stackType": "IPV4", "clusterSecondaryRangeName": "gke-pods", "servicesSecondaryRangeName": "gke-services"}
    # the stack's own network: GKE-managed ranges unless named
    plan = _plan(dev())
    assert plan.named("pw-dev-cluster").inputs["ipAllocationPolicy"] == {"stackType": "IPV4"}


@pytest.mark.slow
def test_the_host_project_grants_of_gke_and_cloud_services_agents_are_listed():
    plan = _plan(dev(cluster={**SHARED, **RANGES, "projectNumber": "123456789012"}))
    actions = plan.outputs["actionsRequired"]
    agent = "serviceAccount:service-123456789012@container-engine-robot.iam.gserviceaccount.com"
    assert any(a.startswith(f"grant roles/container.hostServiceAgentUser on project acme-net-host to {agent}")
               for a in actions)
    [network_user] = [a for a in actions if a.startswith("grant roles/compute.networkUser")]
    assert "projects/acme-net-host/regions/us-east5/subnetworks/gke" in network_user
    assert agent in network_user and "123456789012@cloudservices.gserviceaccount.com" in network_user
    assert not [a for a in _plan(dev()).outputs["actionsRequired"] if "hostServiceAgentUser" in a]


def test_secondary_ranges_only_shape_a_created_cluster():
    refused_at(stack("dev", cluster={"name": "pw-dev", "location": "us-east5", "create": False, **SHARED, **RANGES}),
               "cluster.podsRangeName", "cluster.create: false")


# --- TPU boot disks by generation ---------------------------------------------------------------------------

@pytest.mark.parametrize("pool, disk, ok", [
    ({"type": "v6e", "topology": "2x4"}, "pd-balanced", False),
    ({"type": "v6e", "topology": "2x4"}, "hyperdisk-balanced", True),
    ({"type": "v6e-16", "topology": ABSENT}, "pd-ssd", False),
    ({"type": "v5p", "topology": "2x2x2"}, "hyperdisk-balanced", False),
    ({"type": "v5p", "topology": "2x2x2"}, "pd-balanced", True),
    ({"type": "v5p", "topology": "2x2x2"}, "pd-standard", False),
    ({"type": "v5e", "topology": "2x4"}, "pd-ssd", False),
    ({"type": "v4", "topology": "2x2x2", "capacity": "on-demand"}, "hyperdisk-balanced", False),
    ({"type": "tpu7x", "topology": "2x2x2", "capacity": "on-demand"}, "pd-balanced", False),
    ({"type": "tpu7x", "topology": "2x2x2", "capacity": "on-demand"}, "hyperdisk-balanced", True),
])
def test_tpu_boot_disks_follow_the_generation_s_disk_support(pool, disk, ok):
    config = dev(tpuPools=[{**pool, "diskType": disk, "networkProfile": False}])
    if ok:
        assert not [p for p in problems_of(config) if "diskType" in p]
    else:
        refused_at(config, "tpuPools[0].diskType", f"'{disk}'", "Cloud TPU")


# --- adopting an XPK / Cluster Toolkit cluster --------------------------------------------------------------

ADOPT = {"name": "pw-dev", "location": "us-east5", "create": False}
PRIORITY = "kubernetes:scheduling.k8s.io/v1:PriorityClass"


def _adopted_xpk_plan():
    """dev adopted the way an XPK cluster is: its cpu-np head pool, Kueue on, a workload with a priority."""
    config = stack("dev", cluster=ADOPT, cpuPool={"create": False}, kueue={"enabled": True})
    config[P + "workloads"][0]["priorityClass"] = "medium"
    return _plan(config, "adopted")


# What `xpk cluster create` / `create-pathways` leaves in a cluster that this stack also declares (xpk 1.16.0:
# core/cluster.py applies the JobSet release manifest, core/kueue_manager.py the Kueue one, and
# templates/kueue_config.yaml.j2 the very-low..very-high PriorityClasses).
XPK_OBJECTS = {
    ("CustomResourceDefinition", "jobsets.jobset.x-k8s.io"),
    ("Deployment", "jobset-system/jobset-controller-manager"),
    ("Deployment", "kueue-system/kueue-controller-manager"),
    ("CustomResourceDefinition", "clusterqueues.kueue.x-k8s.io"),
    *{("PriorityClass", name) for name in ("very-low", "low", "medium", "high", "very-high")},
}


def _destroy_deletes(plan, obj: tuple[str, str]) -> bool:
    """Whether `pulumi destroy` of `plan` deletes an object XPK created: a PriorityClass resource of the plan
    (deleted unless retainOnDelete), or an object of a release install (deleted unless the install's transforms,
    run the way the engine runs them on each child, retain it)."""
    import pulumi

    from pathways_gke import tokens
    from pathways_gke.addons import services_spec
    from pathways_gke.config import parse_stack as parse
    from pathways_gke.addons.install import resource_prefix
    from pathways_gke.services import install_transforms

    kind, name = obj
    if kind == "PriorityClass":
        [resource] = [r for r in plan.of_type(PRIORITY) if r.inputs["metadata"]["name"] == name]
        return not resource.options["retainOnDelete"]
    spec = services_spec(parse(stack("dev", cluster=ADOPT, cpuPool={"create": False}, kueue={"enabled": True})))
    addon = "kueue" if "kueue" in name else "jobset"
    install = plan.named(f"pw-dev-services-{addon}")
    source = getattr(spec, addon)
    # the engine registered the install with the adopted transforms (one more than a created cluster's)
    registered = {len(install_transforms(spec, addon, False, resource_prefix(install.name), source.legacy_prefix,
                                         adopted)): adopted for adopted in (True, False)}
    adopted = registered[install.options["transforms"]]
    token = tokens.CRD if kind == "CustomResourceDefinition" else tokens.DEPLOYMENT
    opts = pulumi.ResourceOptions()
    props = {"apiVersion": "v1", "kind": kind, "metadata": {"name": name.split("/")[-1]}, "spec": {}}
    for transform in install_transforms(spec, addon, adopted=adopted):
        result = transform(pulumi.ResourceTransformArgs(True, token, name, props, opts))
        if result is not None:
            props, opts = result.props, result.opts
    return not opts.retain_on_delete


@pytest.mark.slow
def test_an_adopted_cluster_takes_over_xpk_s_priority_classes_and_keeps_them():
    plan = _adopted_xpk_plan()
    upsert = plan.named("pw-dev-kubernetes-installs")
    classes = plan.of_type(PRIORITY)
    assert {c.inputs["metadata"]["name"] for c in classes} == {"very-low", "low", "medium", "high", "very-high"}
    for c in classes:
        # created strictly they would fail with AlreadyExists; upserted (server-side apply) they are taken over
        assert c.options["provider"] == upsert.urn and c.options["retainOnDelete"] is True
    # a cluster the stack creates owns its ladder: strict creation, deleted on destroy
    created = _plan(merged("dev", kueue={"enabled": True}, workloads=[{"priorityClass": "medium"}]), "created")
    for c in created.of_type(PRIORITY):
        assert c.options["provider"] != upsert.urn and c.options["retainOnDelete"] is False


@pytest.mark.slow
def test_destroying_an_adopt_stack_removes_only_what_the_stack_created():
    plan = _adopted_xpk_plan()
    deleted = {obj for obj in XPK_OBJECTS if _destroy_deletes(plan, obj)}
    assert deleted == set(), f"pulumi destroy would delete what XPK installed: {sorted(deleted)}"
    # what the stack itself created goes: its node pool, queues and readiness ConfigMap
    own = [r for r in plan.resources if r.custom and not r.read and r.type != PRIORITY
           and not r.type.startswith("pulumi:providers:")]
    assert own and all(not r.options["retainOnDelete"] for r in own if r.type != "gcp:storage/bucket:Bucket")


def test_the_install_objects_are_retained_only_on_an_adopted_cluster():
    import pulumi

    from pathways_gke import tokens
    from pathways_gke.addons import services_spec
    from pathways_gke.config import parse_stack as parse
    from pathways_gke.services import install_transforms

    spec = services_spec(parse(dev()))
    for adopted in (True, False):
        opts, props = pulumi.ResourceOptions(), {"kind": "CustomResourceDefinition",
                                                 "metadata": {"name": "jobsets.jobset.x-k8s.io"}}
        for transform in install_transforms(spec, "jobset", adopted=adopted):
            result = transform(pulumi.ResourceTransformArgs(True, tokens.CRD, "x", props, opts))
            if result is not None:
                props, opts = result.props, result.opts
        assert bool(opts.retain_on_delete) is adopted


def test_no_minor_scopes_need_a_release_channel():
    hold = {"name": "hold", "startTime": "2026-12-01T00:00:00Z"}
    config = dev(cluster={"releaseChannel": "UNSPECIFIED", "maintenance": {"exclusions": [hold]}})
    refused_at(config, "cluster.maintenance.exclusions[0].scope", "NO_MINOR_OR_NODE_UPGRADES", "release channel")
    freeze = {**hold, "endTime": "2026-12-20T00:00:00Z", "scope": "NO_UPGRADES"}
    assert problems_of(dev(cluster={"releaseChannel": "UNSPECIFIED", "maintenance": {"exclusions": [freeze]}})) == []
    assert problems_of(dev(cluster={"maintenance": {"exclusions": [hold]}})) == []  # REGULAR


def _xpk_priority_classes() -> list[dict]:
    """The PriorityClasses `xpk cluster create` applies: the plain-YAML documents of xpk 1.16.0's
    templates/kueue_config.yaml.j2, read from the installed package (skipped when XPK is not installed)."""
    import json
    import subprocess

    from tests.test_pathways_vs_xpk import xpk_python

    script = ("import importlib.resources, json; print(json.dumps((importlib.resources.files('xpk') / "
              "'templates' / 'kueue_config.yaml.j2').read_text()))")
    result = subprocess.run([xpk_python(), "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    documents = json.loads(result.stdout).split("\n---")
    return [yaml.safe_load(d) for d in documents if re.search(r"^kind: PriorityClass$", d, re.M)]


def test_the_adopt_plan_applies_xpk_s_priority_classes_unchanged_where_kubernetes_forbids_changes():
    """PriorityClass `value` and `preemptionPolicy` are immutable: taking XPK's over only works when they agree."""
    theirs = {p["metadata"]["name"]: p for p in _xpk_priority_classes()}
    ours = {r.inputs["metadata"]["name"]: r.inputs for r in _adopted_xpk_plan().of_type(PRIORITY)}
    assert set(ours) == set(theirs)
    for name, xpk in theirs.items():
        assert ours[name]["value"] == xpk["value"], name
        assert ours[name]["globalDefault"] == xpk.get("globalDefault", False), name
        # XPK leaves preemptionPolicy to Kubernetes' default, PreemptLowerPriority
        assert ours[name]["preemptionPolicy"] == xpk.get("preemptionPolicy", "PreemptLowerPriority"), name


def test_an_adopted_cluster_is_checked_against_the_feature_floors_at_preview():
    from pathways_gke.config import parse_stack as parse
    from pathways_gke.gke.adopt import adopted_cluster_problems

    config = stack("dev", cluster=ADOPT, cpuPool={"create": False}, observability={"alerts": True})
    config[P + "tpuPools"][0]["networkProfile"] = False
    config[P + "workloads"][0]["gcsFuse"] = FUSE
    adopted = parse(config)
    problems = adopted_cluster_problems({"masterVersion": "1.33.0-gke.1700000"}, adopted)
    assert any("kube_jobset_restarts" in p for p in problems)
    assert any("1.33.3-gke.1226000" in p and "train" in p for p in problems)
    assert adopted_cluster_problems({"masterVersion": "1.34.1-gke.1829001"}, adopted) == []


def _brute_force_hours(start: str, hours: int, recurrence: str) -> float:
    """The same rule by enumeration, hour by hour: mark the hours inside any window, keep runs of 4 or more, and
    take the least sum over every 32-day span starting on an hour of the following 8 weeks."""
    import datetime as dt

    first = R.parse_rfc3339(start)
    rule = R.parse_rrule(recurrence)
    total = 24 * 140
    open_hours = [False] * total
    for day in range(total // 24):
        date = first.date() + dt.timedelta(days=day)
        if R._occurs_on(rule, first.date(), date):  # noqa: SLF001 - the expansion under test is the other half
            begin = day * 24
            for h in range(begin, min(begin + hours, total)):
                open_hours[h] = True
    counted = [False] * total
    run = 0
    for h in range(total + 1):
        if h < total and open_hours[h]:
            run += 1
            continue
        if run >= 4:
            counted[h - run:h] = [True] * run
        run = 0
    span = 32 * 24
    return min(sum(counted[s:s + span]) for s in range(0, 8 * 7 * 24))


@pytest.mark.parametrize("hours, recurrence", [
    (8, "FREQ=WEEKLY;BYDAY=SA"), (8, "FREQ=WEEKLY;BYDAY=SA,SU"), (4, "FREQ=DAILY"), (3, "FREQ=DAILY"),
    (24, "FREQ=WEEKLY;BYDAY=FR,SA"), (30, "FREQ=WEEKLY;BYDAY=MO,WE"), (12, "FREQ=WEEKLY;INTERVAL=2;BYDAY=SA,SU"),
    (6, "FREQ=DAILY;INTERVAL=3"), (48, "FREQ=MONTHLY;BYDAY=1SA"), (20, "FREQ=MONTHLY;BYDAY=SA"),
])
def test_the_availability_agrees_with_an_hour_by_hour_count(hours, recurrence):
    import datetime as dt

    start = "2026-12-05T00:00:00Z"
    end = (R.parse_rfc3339(start) + dt.timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert R.maintenance_availability_hours(start, end, recurrence) == pytest.approx(
        _brute_force_hours(start, hours, recurrence))

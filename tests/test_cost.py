"""Cost in the plan and the diff: per node pool chips or vCPUs x nodes (min..max) x the unit price of its basis, the
cluster fee and the total range, from the dated price table shipped in the package. A price the table lacks is null
and marks the estimate incomplete, never 0; the table's refresh script talks to the Cloud Billing Catalog API's real
REST path (here a loopback server answering upstream-shaped SKU objects)."""

import csv
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from pathways_gke.cli import main as cli_main
from pathways_gke.cost import cost_change, estimate, load_prices
from pathways_gke.cost.prices import parse_prices
from pathways_gke.cost.tools import from_skypilot, refresh_prices
from pathways_gke.plan import plan_config
from tests.support.stacks import merged

# A table for the arithmetic only (test input, not a price claim; the shipped table's prices are tested below).
TEST_TABLE = parse_prices({
    "currency": "USD", "asOf": "2026-01-01", "source": "test",
    "prices": [
        {"kind": "cluster", "key": "gke-cluster-management-fee", "unit": "cluster-hour", "price": 0.1,
         "source": "t", "read": "2026-01-01"},
        {"kind": "tpu", "key": "v6e", "region": "us-east5", "basis": "spot", "unit": "chip-hour", "price": 1.5,
         "source": "t", "read": "2026-01-01"},
        {"kind": "tpu", "key": "v6e", "region": "us-east5", "basis": "queued", "unit": "chip-hour", "price": 2.0,
         "source": "t", "read": "2026-01-01"},
        {"kind": "machine", "key": "n2-standard-64", "region": "us-east5", "basis": "on-demand", "unit": "node-hour",
         "price": 3.0, "source": "t", "read": "2026-01-01"},
    ]})


def cost_json(capsys, stack):
    assert cli_main(["plan", "--stack", stack, "--cost", "--json", "--skip-policy"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "resources" in out  # still the plan.json contract
    return out["cost"]


def line(cost, resource):
    return next(item for item in cost["lines"] if item["resource"] == resource)


SKYPILOT_CSV = "https://github.com/skypilot-org/skypilot-catalog/blob/017e2502fb63c7a28757acd94002b2d6099d3e3d/" \
    "catalogs/v7/gcp/vms.csv"


@pytest.mark.slow
def test_dev_cost_json_has_the_spot_tpu_line_dated_and_sourced(capsys):
    cost = cost_json(capsys, "dev")
    assert cost["currency"] == "USD" and cost["asOf"] == "2026-11-27" and "Cloud Billing Catalog" in cost["source"]
    tpu = line(cost, "pw-dev-main-0")
    assert (tpu["kind"], tpu["machineType"], tpu["chips"], tpu["nodes"], tpu["basis"]) == (
        "tpu-node-pool", "ct6e-standard-4t", 4, {"min": 2, "max": 2}, "spot")
    spot = load_prices().find("tpu", "v6e", "us-east5", "spot")
    assert tpu["unitPrice"] == spot.price > 0 and tpu["unit"] == "chip-hour"
    assert tpu["hourly"]["min"] == tpu["hourly"]["max"] == pytest.approx(spot.price * 4 * 2)
    assert tpu["hourly"]["min"] > 0
    assert (tpu["priceSource"], tpu["priceRead"]) == (SKYPILOT_CSV, "2026-11-27")
    cpu = line(cost, "pw-dev-cpu")
    assert cpu["unitPrice"] > 0 and cpu["basis"] == "on-demand" and cpu["priceSource"] == SKYPILOT_CSV
    assert cpu["hourly"]["max"] == pytest.approx(2 * cpu["hourly"]["min"])  # 1..2 nodes
    fee = line(cost, "pw-dev-cluster")
    assert fee["unitPrice"] == 0.1 and fee["priceSource"] == "https://cloud.google.com/kubernetes-engine/pricing"
    assert cost["complete"] is True
    assert cost["hourly"]["min"] == pytest.approx(0.1 + cpu["hourly"]["min"] + tpu["hourly"]["min"])


@pytest.mark.slow
def test_prod_reserved_lines_say_they_are_billed_whether_used_or_not(capsys):
    cost = cost_json(capsys, "prod")
    reserved = [item for item in cost["lines"] if item["basis"] == "reservation"]
    assert len(reserved) == 4
    on_demand = load_prices().find("tpu", "v6e", "us-east5", "on-demand")
    for item in reserved:
        assert "billed whether or not nodes use it" in item["note"]
        assert item["nodes"] == {"min": 4, "max": 4}
        # No source read gives a reservation's rate (it depends on its commitment): null, and the note says what
        # Compute Engine bills and the on-demand rate it starts from.
        assert item["unitPrice"] is None and item["hourly"] is None
        assert "no reservation rate in the table" in item["note"]
        assert f"${on_demand.price:g}/chip-hour" in item["note"] and SKYPILOT_CSV in item["note"]
    assert cost["complete"] is False
    assert line(cost, "pw-prod-cpu")["unitPrice"] > 0  # the priced lines still count


@pytest.mark.slow
def test_a_machine_and_a_region_the_table_lacks_stay_unpriced():
    table = load_prices()
    # in SkyPilot's catalog, but its rows were not read into the table: null, never a guess from n2-standard-32
    assert table.find("machine", "n2-highmem-32", "us-east5", "on-demand") is None
    cost = estimate(plan_of(cpuPool={"machineType": "n2-highmem-32"})).to_json()
    cpu = line(cost, "pw-dev-cpu")
    assert cpu["unitPrice"] is None and cpu["hourly"] is None and cost["complete"] is False
    assert line(cost, "pw-dev-main-0")["unitPrice"] > 0
    # v6e in asia-east1: the catalog row is the fetcher's 700.0 placeholder, not a price
    assert table.find("tpu", "v6e", "asia-east1", "spot") is None


def plan_of(**changes):
    return plan_config(merged("dev", **changes), stack="dev").to_json()


@pytest.mark.slow
def test_arithmetic_range_and_an_unpriced_machine():
    cost = estimate(plan_of(), TEST_TABLE).to_json()
    assert line(cost, "pw-dev-main-0")["hourly"] == {"min": 12.0, "max": 12.0}  # 4 chips x 2 nodes x 1.5
    assert line(cost, "pw-dev-cpu")["hourly"] == {"min": 3.0, "max": 6.0}  # 1..2 nodes x 3.0
    assert cost["hourly"] == {"min": 15.1, "max": 18.1} and cost["complete"] is True
    other = estimate(plan_of(cpuPool={"machineType": "n4-standard-64"}), TEST_TABLE).to_json()
    cpu = line(other, "pw-dev-cpu")
    assert cpu["unitPrice"] is None and cpu["hourly"] is None and other["complete"] is False
    assert other["hourly"] == {"min": 12.1, "max": 12.1}  # the priced lines only
    assert "pw-dev-cpu" in other["notes"][-1]


@pytest.mark.slow
def test_queued_pools_cost_nothing_until_provisioned():
    cost = estimate(plan_of(tpuPools=[{"capacity": "queued"}], kueue={"enabled": True}), TEST_TABLE).to_json()
    tpu = line(cost, "pw-dev-main-0")
    assert tpu["basis"] == "queued" and tpu["nodes"] == {"min": 0, "max": 2}
    assert tpu["hourly"] == {"min": 0.0, "max": 16.0}


@pytest.mark.slow
def test_diff_gives_the_hourly_change_in_json_text_and_markdown(capsys, tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(plan_of()))
    new.write_text(json.dumps(plan_of(tpuPools=[{"slices": 2}])))
    change = cost_change(json.loads(old.read_text()), json.loads(new.read_text()), TEST_TABLE)
    assert change["change"] == {"min": 12.0, "max": 12.0}
    assert [item["resource"] for item in change["lines"]] == ["pw-dev-main-1"]
    assert cli_main(["diff", str(old), str(new), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cost"]["lines"][0]["resource"] == "pw-dev-main-1"
    assert cli_main(["diff", str(old), str(new)]) == 0
    assert "cost per hour:" in capsys.readouterr().out
    assert cli_main(["diff", str(old), str(new), "--markdown"]) == 0
    assert "#### Cost per hour" in capsys.readouterr().out


def test_the_shipped_table_is_dated_sourced_and_never_zero():
    table = load_prices()
    assert table.as_of and table.currency == "USD"
    for price in table.prices:
        assert price.source.startswith(("https://", "cloudbilling.googleapis.com/")) and price.read
        assert price.price is None or price.price > 0
    for entry in table.raw["prices"]:
        if entry["source"] == SKYPILOT_CSV:  # a third-party catalog: each entry says how it was derived
            assert "Cloud Billing Catalog" in entry["via"] and "fetch_gcp.py" in entry["via"]
            assert entry["read"] == "2026-11-27" and entry["derivation"] and entry["basis"] in ("on-demand", "spot")
    with pytest.raises(ValueError, match="never 0"):
        parse_prices({"currency": "USD", "asOf": "x", "source": "x", "prices": [
            {"kind": "tpu", "key": "v6e", "unit": "chip-hour", "price": 0, "source": "s", "read": "r"}]})


class BillingCatalog(BaseHTTPRequestHandler):
    """GET /v1/services/{service}/skus in two pages, as the Cloud Billing Catalog API answers."""

    pages = {None: {"skus": [{"name": "services/6F81-5844-456A/skus/AAAA-BBBB-CCCC", "skuId": "AAAA-BBBB-CCCC",
                              "description": "Test SKU one", "category": {"resourceFamily": "Compute",
                                                                          "usageType": "Preemptible"},
                              "serviceRegions": ["us-east5"],
                              "pricingInfo": [{"effectiveTime": "2026-11-01T00:00:00Z", "pricingExpression": {
                                  "usageUnit": "h", "tieredRates": [{"startUsageAmount": 0, "unitPrice": {
                                      "currencyCode": "USD", "units": "1", "nanos": 250000000}}]}}]}],
                     "nextPageToken": "p2"},
             "p2": {"skus": [{"name": "services/6F81-5844-456A/skus/DDDD", "skuId": "DDDD", "description": "Two",
                              "pricingInfo": [{"pricingExpression": {"usageUnit": "h", "tieredRates": [
                                  {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "0",
                                                                        "nanos": 50000000}}]}}]}],
                    "nextPageToken": ""}}
    seen: list = []

    def do_GET(self):  # noqa: N802 - the http.server hook
        url = urlparse(self.path)
        BillingCatalog.seen.append((url.path, self.headers.get("Authorization"), parse_qs(url.query)))
        if url.path != "/v1/services/6F81-5844-456A/skus":
            self.send_error(404)
            return
        body = json.dumps(self.pages[parse_qs(url.query).get("pageToken", [None])[0]]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_refresh_reads_the_billing_catalog_and_updates_pinned_skus(tmp_path, capsys):
    server = HTTPServer(("127.0.0.1", 0), BillingCatalog)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    table = tmp_path / "prices.json"
    table.write_text(json.dumps({"currency": "USD", "asOf": "2000-01-01", "source": "s", "prices": [
        {"kind": "tpu", "key": "v6e", "region": "us-east5", "basis": "spot", "unit": "chip-hour", "price": None,
         "source": "none", "read": "2000-01-01", "service": "6F81-5844-456A", "skuId": "AAAA-BBBB-CCCC"},
        {"kind": "tpu", "key": "v5p", "region": "us-east5", "basis": "spot", "unit": "chip-hour", "price": None,
         "source": "none", "read": "2000-01-01", "service": "6F81-5844-456A", "skuId": "GONE"},
        {"kind": "cluster", "key": "gke-cluster-management-fee", "unit": "cluster-hour", "price": 0.1,
         "source": "https://cloud.google.com/kubernetes-engine/pricing", "read": "2026-11-27"}]}))
    try:
        assert refresh_prices.main(["--token", "tok", "--endpoint", f"http://127.0.0.1:{server.server_port}",
                                    "--table", str(table), "--write"]) == 0
    finally:
        server.shutdown()
    paths = [(path, auth, query.get("pageToken")) for path, auth, query in BillingCatalog.seen]
    assert paths == [("/v1/services/6F81-5844-456A/skus", "Bearer tok", None),
                     ("/v1/services/6F81-5844-456A/skus", "Bearer tok", ["p2"])]
    refreshed = parse_prices(json.loads(table.read_text()))
    spot = refreshed.find("tpu", "v6e", "us-east5", "spot")
    assert spot.price == 1.25 and spot.source == "cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus/" \
        "AAAA-BBBB-CCCC"
    assert refreshed.find("tpu", "v5p", "us-east5", "spot").price is None  # its SKU is gone: kept, reported
    assert "GONE not found" in capsys.readouterr().err


EXCERPT = Path(__file__).parent / "data" / "skypilot_gcp_vms_017e250.csv"
COMMIT = "017e2502fb63c7a28757acd94002b2d6099d3e3d"


def excerpt_rows():
    return list(csv.DictReader(EXCERPT.read_text().splitlines()))


def test_the_shipped_catalog_prices_are_exactly_what_the_rows_read_give():
    """The rows read from the catalog (tests/data, one zone per region) derive every SkyPilot entry of the table."""
    derived = from_skypilot.entries(EXCERPT.read_text(), COMMIT, "2026-11-27")
    shipped = [entry for entry in load_prices().raw["prices"] if entry["source"] == SKYPILOT_CSV]
    assert derived == shipped
    regions = {gen: sorted({e["region"] for e in shipped if e["key"] == gen}) for gen in ("v4", "v5e", "v5p", "v6e")}
    assert regions["v4"] == ["us-central2"] and "us-east5" in regions["v5p"] and len(regions["v6e"]) == 10
    assert not any(entry["key"] == "tpu7x" for entry in shipped)  # the catalog has no tpu7x rows


def test_every_slice_size_gives_the_same_per_chip_price_within_rounding():
    """A slice's price / its chips is one chip-hour price: v4 and v5p names count TensorCores (2 a chip), v5e and
    v6e names count chips. The catalog rounds each slice's price to 5 decimals, so sizes agree within 5e-6 / chips."""
    per_chip: dict = {}
    for row in excerpt_rows():
        if row["InstanceType"]:
            continue
        _, version, count = row["AcceleratorName"].split("-")
        chips = int(count) // (2 if version in ("v4", "v5p") else 1)
        for column in ("Price", "SpotPrice"):
            if float(row[column]) == 700.0:  # fetch_gcp.py TPU_V6E_MAX_PRICE placeholder
                continue
            per_chip.setdefault((version, row["Region"], column), []).append((chips, float(row[column])))
    assert len(per_chip) == 56
    for key, sizes in per_chip.items():
        assert len(sizes) >= 8, key
        unit = max(sizes)[1] / max(sizes)[0]
        for chips, price in sizes:
            assert abs(price / chips - unit) <= 5e-6 / chips + 1e-12, (key, chips, price)
    v5p = load_prices().find("tpu", "v5p", "us-east5", "on-demand").price
    assert v5p == pytest.approx(16.8 / 4)  # tpu-v5p-8 is 4 chips at $16.80 an hour


def test_a_machine_type_costs_in_proportion_to_its_size_within_rounding():
    """n2-standard-8/32/64 (and n4-standard-8/48/64) share their family's per-vCPU and per-GiB SKU rates, so
    price / vCPUs agrees per region within the catalog's rounding (5e-6 per row)."""
    prices: dict = {}
    for row in excerpt_rows():
        family = row["InstanceType"].rsplit("-", 1)[0]
        if family in ("n2-standard", "n4-standard"):
            for column in ("Price", "SpotPrice"):
                if row[column]:  # a few n4 rows have no Price or no SpotPrice
                    prices.setdefault((family, row["Region"], column), []).append(
                        (float(row["vCPUs"]), float(row[column])))
    assert len(prices) == 80 + 74 and all(len(sizes) == 3 for sizes in prices.values())
    for key, sizes in prices.items():
        per_vcpu = [price / vcpus for vcpus, price in sizes]
        assert max(per_vcpu) - min(per_vcpu) <= 2 * 5e-6 / min(vcpus for vcpus, _ in sizes) + 1e-12, key


def test_inconsistent_slice_prices_and_placeholders_are_refused_or_skipped():
    head = EXCERPT.read_text().splitlines()[0]
    bad = head + "\n,,,tpu-v6e-1,1,tpu-v6e-1,us-east5,us-east5-a,2.7,1.08\n,,,tpu-v6e-4,1,tpu-v6e-4,us-east5,us-east5-a,11.0,4.32\n"
    with pytest.raises(from_skypilot.InconsistentCatalog, match="tpu-v6e us-east5 on-demand"):
        from_skypilot.entries(bad, COMMIT, "2026-11-27")
    placeholder = head + "\n,,,tpu-v6e-4,1,tpu-v6e-4,asia-east1,asia-east1-c,700.0,700.0\n"
    assert from_skypilot.entries(placeholder, COMMIT, "2026-11-27") == []

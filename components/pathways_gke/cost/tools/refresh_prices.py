"""Regenerate the price table (data/prices.json) from the Cloud Billing Catalog API, when run with credentials.

    python -m pathways_gke.cost.tools.refresh_prices --token "$(gcloud auth print-access-token)" [--write]
    python -m pathways_gke.cost.tools.refresh_prices --token ... --find 'TPU v6e'   # list SKUs to pin

The API (https://cloud.google.com/billing/docs/reference/rest/v1/services.skus/list):
GET https://cloudbilling.googleapis.com/v1/services/{serviceId}/skus[?pageToken=...&currencyCode=USD], answering
`{skus: [{name, skuId, description, category: {resourceFamily, resourceGroup, usageType}, serviceRegions,
pricingInfo: [{effectiveTime, pricingExpression: {usageUnit, tieredRates: [{startUsageAmount, unitPrice: {currencyCode,
units, nanos}}]}}]}], nextPageToken}`.

Only entries that name their SKU (`skuId`, and the `service` it belongs to) are refreshed: a SKU's description is
not matched to a machine by guessing. A refreshed entry gets the SKU's price (the first tier that starts at 0), its
source `cloudbilling.googleapis.com/v1/services/<service>/skus/<skuId>` and today's date; an entry whose SKU is gone
keeps its price and is reported. Run `--find` to list SKU ids and descriptions to pin. Network only here, never at
plan time.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional

ENDPOINT = "https://cloudbilling.googleapis.com"
TABLE = Path(__file__).resolve().parents[2] / "data" / "prices.json"


def list_skus(service: str, token: str, endpoint: str = ENDPOINT, currency: str = "USD") -> Iterator[dict[str, Any]]:
    """Every SKU of a service, following nextPageToken."""
    page: Optional[str] = None
    while True:
        query = {"currencyCode": currency, **({"pageToken": page} if page else {})}
        url = f"{endpoint}/v1/services/{urllib.parse.quote(service)}/skus?{urllib.parse.urlencode(query)}"
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}",
                                                       "Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 - https or a test's loopback
            body = json.loads(response.read().decode())
        yield from body.get("skus") or []
        page = body.get("nextPageToken") or None
        if not page:
            return


def unit_price(sku: Mapping[str, Any]) -> Optional[tuple[float, str, str]]:
    """(price, currency, usage unit) of a SKU's current pricing: the tier that starts at 0."""
    infos = sku.get("pricingInfo") or []
    if not infos:
        return None
    expression = infos[-1].get("pricingExpression") or {}
    tiers = sorted(expression.get("tieredRates") or [], key=lambda t: float(t.get("startUsageAmount") or 0))
    if not tiers:
        return None
    money = tiers[0].get("unitPrice") or {}
    value = int(money.get("units") or 0) + int(money.get("nanos") or 0) / 1e9
    return value, str(money.get("currencyCode") or ""), str(expression.get("usageUnit") or "")


def refresh(table: dict[str, Any], skus_by_service: Mapping[str, Mapping[str, Mapping[str, Any]]],
            today: str) -> list[str]:
    """Update every entry that names a skuId in place; returns what happened to each (for the log)."""
    report: list[str] = []
    for entry in table.get("prices", []):
        sku_id, service = entry.get("skuId"), entry.get("service")
        if not sku_id or not service:
            continue
        sku = skus_by_service.get(service, {}).get(sku_id)
        priced = unit_price(sku) if sku else None
        if priced is None or priced[0] <= 0:
            report.append(f"{entry['key']} ({entry.get('region')}, {entry.get('basis')}): SKU {sku_id} not found or "
                          "without a price; entry kept")
            continue
        value, currency, _unit = priced
        if currency and currency != table.get("currency"):
            report.append(f"{entry['key']}: SKU {sku_id} is priced in {currency}, the table in "
                          f"{table.get('currency')}; entry kept")
            continue
        entry.update(price=value, source=f"cloudbilling.googleapis.com/v1/services/{service}/skus/{sku_id}",
                     read=today, description=sku.get("description", "") if sku else "")
        report.append(f"{entry['key']} ({entry.get('region')}, {entry.get('basis')}): {value}")
    table["asOf"] = today
    return report


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--token", required=True, help="an OAuth access token (gcloud auth print-access-token)")
    parser.add_argument("--endpoint", default=ENDPOINT, help="API root (tests point it at a loopback server)")
    parser.add_argument("--table", type=Path, default=TABLE, help="the price table to refresh")
    parser.add_argument("--write", action="store_true", help="write the refreshed table (default: print it)")
    parser.add_argument("--find", metavar="REGEX", help="list the SKUs of --service whose description matches")
    parser.add_argument("--service", help="with --find: the billing service id to list")
    args = parser.parse_args(argv)
    if args.find:
        if not args.service:
            parser.error("--find needs --service")
        pattern = re.compile(args.find, re.IGNORECASE)
        for sku in list_skus(args.service, args.token, args.endpoint):
            if pattern.search(str(sku.get("description", ""))):
                print(f"{sku.get('skuId')}\t{','.join(sku.get('serviceRegions') or [])}\t{sku.get('description')}")
        return 0
    table = json.loads(args.table.read_text())
    services = sorted({e["service"] for e in table.get("prices", []) if e.get("skuId") and e.get("service")})
    skus = {service: {sku["skuId"]: sku for sku in list_skus(service, args.token, args.endpoint)}
            for service in services}
    report = refresh(table, skus, datetime.date.today().isoformat())
    for line in report:
        print(line, file=sys.stderr)
    text = json.dumps(table, indent=2) + "\n"
    if args.write:
        args.table.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Price-table entries from SkyPilot's GCP catalog (skypilot-org/skypilot-catalog `catalogs/v7/gcp/vms.csv`).

    python -m pathways_gke.cost.tools.from_skypilot vms.csv --commit <sha> --read 2026-11-27 [--write]

What the catalog's numbers are (SkyPilot's fetcher, skypilot-org/skypilot `sky/catalog/data_fetchers/fetch_gcp.py`,
read 2026-11-27): it lists the SKUs of the Cloud Billing Catalog API (services 6F81-5844-456A Compute Engine and
E000-3F24-B8AA Cloud TPU; usage types OnDemand and Preemptible, commitment SKUs pruned) and writes one row per
machine type or TPU slice and zone:
- `Price` is the on-demand SKU price, `SpotPrice` the spot one (for TPUs, the SKUs whose description says
  "Preemptible"); both per hour, rounded to 5 decimals;
- a VM's price is its vCPUs x the family's vCPU SKU + its GiB x the family's RAM SKU, so it is a per-node-hour price;
- a TPU slice's price is the per-chip SKU price x the chips of the slice. The slice name counts TensorCores for v4 and
  v5p (2 per chip: tpu-v5p-8 is 4 chips) and chips for v5e (`v5litepod`) and v6e, which is what our catalog's
  `cores_per_chip` says too. A v6e row whose SKU was not found carries the fetcher's placeholder 700.0
  (`TPU_V6E_MAX_PRICE`): not a price, skipped.

So a chip-hour price is a slice's price / its chips. The division is checked: every slice size of a generation in a
region must give the same per-chip price within the catalog's rounding (5e-6 / chips), else this refuses the input.
A VM's price must be the same in every zone of a region. Nothing here guesses: what the catalog lacks stays absent.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from ...catalog import GENERATIONS

CATALOG_FILE = "skypilot-org/skypilot-catalog catalogs/v7/gcp/vms.csv"
FETCHER = "skypilot-org/skypilot sky/catalog/data_fetchers/fetch_gcp.py, read at 21fd554"
VIA = (f"derived by SkyPilot's fetcher ({FETCHER}) from the Cloud Billing Catalog API SKUs (OnDemand and "
       "Preemptible usage); a third-party catalog, not Google's pricing page")
V6E_PLACEHOLDER = 700.0  # fetch_gcp.py TPU_V6E_MAX_PRICE: written when no v6e SKU was found
ROUNDING = 5e-6  # the catalog rounds every price to 5 decimals
BASES = (("Price", "on-demand"), ("SpotPrice", "spot"))
TABLE = Path(__file__).resolve().parents[2] / "data" / "prices.json"


class InconsistentCatalog(ValueError):
    """The catalog's rows disagree (slice sizes or zones), so no single unit price can be read from them."""


def source_url(commit: str) -> str:
    return f"https://github.com/skypilot-org/skypilot-catalog/blob/{commit}/catalogs/v7/gcp/vms.csv"


def _generation(accelerator: str) -> Optional[tuple[str, int]]:
    """(our generation, chips) of a SkyPilot TPU name such as tpu-v5p-128 (TensorCores) or tpu-v6e-16 (chips)."""
    parts = accelerator.split("-")
    if len(parts) != 3 or parts[0] != "tpu" or not parts[2].isdigit():
        return None
    for gen in GENERATIONS.values():
        if parts[1] in gen.aliases:
            count = int(parts[2])
            if count % gen.cores_per_chip:
                return None
            return gen.name, count // gen.cores_per_chip
    return None


def _number(text: str) -> Optional[float]:
    return float(text) if text.strip() else None


def _tpu_entries(rows: Iterable[Mapping[str, str]]) -> dict[tuple[str, str, str], tuple[float, str]]:
    by_key: dict[tuple[str, str, str], dict[int, float]] = defaultdict(dict)
    names: dict[tuple[str, str, str], str] = {}
    for row in rows:
        gen = _generation(row["AcceleratorName"]) if not row["InstanceType"] else None
        if gen is None:
            continue
        name, chips = gen
        for column, basis in BASES:
            value = _number(row[column])
            if value is None or value <= 0 or (name == "v6e" and value == V6E_PLACEHOLDER):
                continue
            per_chip = by_key[(name, row["Region"], basis)]
            if chips in per_chip and abs(per_chip[chips] - value) > 1e-9:
                raise InconsistentCatalog(f"{row['AcceleratorName']} {row['Region']} {column}: zones disagree "
                                          f"({per_chip[chips]} and {value})")
            per_chip[chips] = value
            names[(name, row["Region"], basis)] = row["AcceleratorName"].rsplit("-", 1)[0]
    out: dict[tuple[str, str, str], tuple[float, str]] = {}
    for key, prices in by_key.items():
        largest = max(prices)
        unit = round(prices[largest] / largest, 8)
        for chips, price in sorted(prices.items()):
            if abs(price / chips - unit) > ROUNDING / chips + 5e-9:
                raise InconsistentCatalog(f"{names[key]} {key[1]} {key[2]}: {chips} chips cost {price}, "
                                          f"{price / chips:.8f} a chip, but {largest} chips give {unit:.8f}")
        sizes = ", ".join(f"{names[key]}-{chips * GENERATIONS[key[0]].cores_per_chip}" for chips in sorted(prices))
        column = "Price" if key[2] == "on-demand" else "SpotPrice"
        out[key] = (unit, f"{column} / chips of {sizes}; all {len(prices)} sizes agree within rounding")
    return out


def _machine_entries(rows: Iterable[Mapping[str, str]],
                     machines: Optional[set[str]]) -> dict[tuple[str, str, str], tuple[float, str]]:
    out: dict[tuple[str, str, str], tuple[float, str]] = {}
    for row in rows:
        machine = row["InstanceType"]
        if not machine or (machines is not None and machine not in machines):
            continue
        for column, basis in BASES:
            value = _number(row[column])
            if value is None or value <= 0:
                continue
            key = (machine, row["Region"], basis)
            if key in out and abs(out[key][0] - value) > 1e-9:
                raise InconsistentCatalog(f"{machine} {row['Region']} {column}: zones disagree "
                                          f"({out[key][0]} and {value})")
            out[key] = (value, f"{column} of {machine} ({row['vCPUs']} vCPUs, {row['MemoryGiB']} GiB) per node-hour")
    return out


def entries(csv_text: str, commit: str, read: str, machines: Optional[set[str]] = None) -> list[dict[str, Any]]:
    """Table entries (chip-hour for TPUs, node-hour for machine types) from a catalog file or an excerpt of it."""
    rows = list(csv.DictReader(csv_text.splitlines()))
    common = {"source": source_url(commit), "read": read, "via": VIA}
    out = [{"kind": "tpu", "key": gen, "region": region, "basis": basis, "unit": "chip-hour", "price": price,
            **common, "derivation": how}
           for (gen, region, basis), (price, how) in sorted(_tpu_entries(rows).items())]
    out += [{"kind": "machine", "key": machine, "region": region, "basis": basis, "unit": "node-hour", "price": price,
             **common, "derivation": how}
            for (machine, region, basis), (price, how) in sorted(_machine_entries(rows, machines).items())]
    return out


def merge(table: dict[str, Any], new: list[dict[str, Any]], commit: str) -> dict[str, Any]:
    """The table with every entry from this catalog commit replaced by `new` (others kept, in order)."""
    url = source_url(commit)
    kept = [entry for entry in table.get("prices", []) if entry.get("source") != url]
    return {**table, "prices": kept + new}


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", type=Path, help="catalogs/v7/gcp/vms.csv (or an excerpt with its header)")
    parser.add_argument("--commit", required=True, help="the skypilot-catalog commit the file was read at")
    parser.add_argument("--read", required=True, help="the date the file was read (YYYY-MM-DD)")
    parser.add_argument("--machine", action="append", help="only these machine types (repeat); default all")
    parser.add_argument("--table", type=Path, default=TABLE)
    parser.add_argument("--write", action="store_true", help="merge into the table (else print the entries)")
    args = parser.parse_args(argv)
    try:
        new = entries(args.csv.read_text(), args.commit, args.read, set(args.machine) if args.machine else None)
    except InconsistentCatalog as error:
        print(f"from_skypilot: {error}", file=sys.stderr)
        return 2
    if not args.write:
        print(json.dumps(new, indent=1))
        return 0
    table = merge(json.loads(args.table.read_text()), new, args.commit)
    args.table.write_text(dump_table(table))
    print(f"from_skypilot: {len(new)} entries from {args.commit[:7]} written to {args.table}", file=sys.stderr)
    return 0


def dump_table(table: Mapping[str, Any]) -> str:
    """The table as JSON with one price entry per line (diffs stay readable)."""
    head = {key: value for key, value in table.items() if key != "prices"}
    text = json.dumps(head, indent=2)[:-2]
    lines = [json.dumps(entry) for entry in table.get("prices", [])]
    return text + ',\n  "prices": [\n    ' + ",\n    ".join(lines) + "\n  ]\n}\n"


if __name__ == "__main__":
    raise SystemExit(main())

"""The price table: one entry per (kind, key, region, basis) with its unit, price, source and the date it was read.

A price the table lacks is None (never 0, never a guess): the estimate that needs it is marked incomplete. Region and
basis "*" match any (the GKE cluster fee is flat). Pure: reads the packaged JSON, no network."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Optional, Union

DATA = "data/prices.json"


@dataclass(frozen=True)
class Price:
    kind: str  # cluster | tpu | machine
    key: str  # the cluster fee's name, a TPU generation (v6e), or a machine type (n2-standard-64)
    region: str
    basis: str
    unit: str
    price: Optional[float]
    source: str
    read: str


@dataclass(frozen=True)
class PriceTable:
    currency: str
    as_of: str
    source: str
    prices: tuple[Price, ...]
    raw: Mapping[str, Any]

    def find(self, kind: str, key: str, region: str, basis: str) -> Optional[Price]:
        """The most specific entry: exact region and basis before a "*" one; None when the table has none."""
        best: Optional[Price] = None
        rank = -1
        for price in self.prices:
            if price.kind != kind or price.key != key:
                continue
            if price.region not in (region, "*") or price.basis not in (basis, "*"):
                continue
            score = (price.region == region) * 2 + (price.basis == basis)
            if score > rank:
                best, rank = price, score
        return best


def parse_prices(data: Mapping[str, Any]) -> PriceTable:
    entries = []
    for entry in data.get("prices", []):
        price = entry.get("price")
        if price is not None and (isinstance(price, bool) or not isinstance(price, (int, float)) or price <= 0):
            raise ValueError(f"prices.json: {entry.get('key')}: price {price!r} is not a positive number (an unknown "
                             "price is null, never 0)")
        entries.append(Price(kind=entry["kind"], key=entry["key"], region=entry.get("region", "*"),
                             basis=entry.get("basis", "*"), unit=entry["unit"],
                             price=None if price is None else float(price), source=entry["source"],
                             read=entry["read"]))
    return PriceTable(currency=data["currency"], as_of=data["asOf"], source=data["source"], prices=tuple(entries),
                      raw=data)


def load_prices(path: Union[str, Path, None] = None) -> PriceTable:
    """The shipped table (or the one at `path`)."""
    if path is not None:
        return parse_prices(json.loads(Path(path).read_text()))
    text = resources.files("pathways_gke").joinpath(DATA).read_text()
    return parse_prices(json.loads(text))

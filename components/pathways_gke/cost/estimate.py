"""The hourly cost of an offline plan: per node pool, chips (TPU) or vCPUs (CPU) x nodes (min..max for autoscaled
pools) x the unit price of its basis, plus the GKE cluster fee, and the total range.

Read from the plan's resource inputs (what `pulumi up` would send), so a plan.json diff gets the same lines:
- basis: nodeConfig.spot -> spot; queuedProvisioning.enabled -> queued; nodeConfig.flexStart -> flex-start;
  reservationAffinity SPECIFIC_RESERVATION -> reservation; else on-demand;
- nodes: nodeCount per zone, or autoscaling min..max per zone (total* as given), times the pool's zones. A reservation
  is billed from its creation until it is deleted, whether VMs consume it or not, and a VM consuming it incurs no
  separate charge (https://cloud.google.com/compute/docs/instances/reservations-overview, stored copy read
  2026-11-27: "you begin paying for the reserved resources immediately"; "reserved resources are charged at the same
  on-demand rates as running VMs, including any applicable discounts"), so a reserved pool's minimum is its maximum;
  queued and flex-start pools exist only while provisioned (minimum 0).
A price the table lacks stays null and marks the estimate incomplete; the totals then cover the priced lines only.
Adopted clusters and pools (read, not created) are not in the estimate: this stack does not add them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from .. import tokens
from ..catalog import GENERATIONS, cpu_machine
from ..property_paths import value_at
from .prices import Price, PriceTable, load_prices

RESERVATION_NOTE = ("reservation: billed whether or not nodes use it (from its creation until it is deleted); this "
                    "line counts this pool's nodes at the reservation's price, the whole reservation may be larger")
CLUSTER_FEE_KEY = "gke-cluster-management-fee"


def _round(value: float) -> float:
    return round(value, 6)


@dataclass(frozen=True)
class CostLine:
    resource: str
    kind: str  # tpu-node-pool | cpu-node-pool | node-pool | cluster-fee
    machine_type: Optional[str]
    nodes_min: int
    nodes_max: int
    basis: str
    unit: str
    unit_price: Optional[float]
    chips: Optional[int] = None
    vcpus: Optional[float] = None  # a shared-core machine has a fraction
    price_source: Optional[str] = None
    price_read: Optional[str] = None
    note: Optional[str] = None

    @property
    def per_node(self) -> int:
        """Units one node bills: chips for a chip-hour price, 1 for a node-hour or cluster-hour price."""
        return self.chips or 0 if self.unit == "chip-hour" else 1

    @property
    def hourly(self) -> Optional[tuple[float, float]]:
        if self.unit_price is None:
            return None
        return (_round(self.unit_price * self.per_node * self.nodes_min),
                _round(self.unit_price * self.per_node * self.nodes_max))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"resource": self.resource, "kind": self.kind, "machineType": self.machine_type}
        if self.chips is not None:
            out["chips"] = self.chips
        if self.vcpus is not None:
            out["vcpus"] = self.vcpus
        out.update(nodes={"min": self.nodes_min, "max": self.nodes_max}, basis=self.basis, unit=self.unit,
                   unitPrice=self.unit_price)
        hourly = self.hourly
        out["hourly"] = None if hourly is None else {"min": hourly[0], "max": hourly[1]}
        if self.price_source:
            out["priceSource"] = self.price_source
            out["priceRead"] = self.price_read
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Cost:
    currency: str
    as_of: str
    source: str
    lines: tuple[CostLine, ...]
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def complete(self) -> bool:
        return not self.notes_incomplete and all(line.unit_price is not None for line in self.lines)

    @property
    def notes_incomplete(self) -> bool:
        return any(note.startswith("incomplete:") for note in self.notes)

    @property
    def hourly(self) -> tuple[float, float]:
        priced = [line.hourly for line in self.lines if line.hourly is not None]
        return _round(sum(h[0] for h in priced)), _round(sum(h[1] for h in priced))

    def to_json(self) -> dict[str, Any]:
        low, high = self.hourly
        out: dict[str, Any] = {"currency": self.currency, "asOf": self.as_of, "source": self.source,
                               "complete": self.complete, "lines": [line.to_json() for line in self.lines],
                               "hourly": {"min": low, "max": high}}
        notes = list(self.notes)
        if not self.complete:
            unpriced = [line.resource for line in self.lines if line.unit_price is None]
            if unpriced:
                notes.append("the totals cover priced lines only; no price in the table for: " + ", ".join(unpriced))
        if notes:
            out["notes"] = notes
        return out


def _basis(inputs: Mapping[str, Any]) -> str:
    if value_at(inputs, "nodeConfig.spot"):
        return "spot"
    if value_at(inputs, "queuedProvisioning.enabled"):
        return "queued"
    if value_at(inputs, "nodeConfig.flexStart"):
        return "flex-start"
    if value_at(inputs, "nodeConfig.reservationAffinity.consumeReservationType") == "SPECIFIC_RESERVATION":
        return "reservation"
    return "on-demand"


def _nodes(inputs: Mapping[str, Any], basis: str) -> tuple[int, int]:
    zones = max(1, len(value_at(inputs, "nodeLocations") or []) or 1)
    autoscaling = inputs.get("autoscaling")
    if isinstance(autoscaling, Mapping):
        if "totalMaxNodeCount" in autoscaling:
            low, high = int(autoscaling.get("totalMinNodeCount") or 0), int(autoscaling["totalMaxNodeCount"])
        else:
            low = int(autoscaling.get("minNodeCount") or 0) * zones
            high = int(autoscaling.get("maxNodeCount") or 0) * zones
    else:
        count = inputs.get("nodeCount", inputs.get("initialNodeCount", 0))
        low = high = int(count or 0) * zones
    if basis == "reservation":
        low = high  # billed whether used or not
    if basis in ("queued", "flex-start"):
        low = 0  # only while provisioned
    return low, high


def _region(inputs: Mapping[str, Any]) -> str:
    zones = value_at(inputs, "nodeLocations") or []
    location = zones[0] if zones else str(inputs.get("location") or "")
    return location.rsplit("-", 1)[0] if location.count("-") >= 2 else location


def _tpu_generation(machine_type: str) -> Optional[tuple[str, int]]:
    for gen in GENERATIONS.values():
        for machine in gen.machine_types:
            if machine.name == machine_type:
                return gen.name, machine.chips_per_vm
    return None


def _reservation_unpriced(note: Optional[str], on_demand: Optional[Price], unit: str) -> str:
    """The reservation note when the table has no reservation rate: what is known and what is not."""
    known = ("" if on_demand is None or on_demand.price is None else
             f"; the on-demand rate here is ${on_demand.price:g}/{unit} ({on_demand.source}, read {on_demand.read}),"
             " before the reservation's commitment discounts")
    return (note or RESERVATION_NOTE) + ("; no reservation rate in the table: Compute Engine bills reserved resources "
                                         "at on-demand rates with any applicable (commitment) discounts, which the "
                                         "table does not know" + known)


def _pool_line(resource: Mapping[str, Any], table: PriceTable) -> CostLine:
    inputs = resource.get("inputs") or {}
    machine = str(value_at(inputs, "nodeConfig.machineType") or "")
    basis = _basis(inputs)
    low, high = _nodes(inputs, basis)
    region = _region(inputs)
    note = RESERVATION_NOTE if basis == "reservation" else None
    name = str(resource.get("name") or inputs.get("name"))
    tpu = _tpu_generation(machine)
    if tpu is not None:
        generation, chips = tpu
        price = table.find("tpu", generation, region, basis)
        if basis == "reservation" and (price is None or price.price is None):
            note = _reservation_unpriced(note, table.find("tpu", generation, region, "on-demand"), "chip-hour")
        return CostLine(name, "tpu-node-pool", machine, low, high, basis, "chip-hour",
                        price.price if price else None, chips=chips, price_source=price.source if price else None,
                        price_read=price.read if price else None, note=note)
    cpu = cpu_machine(machine)
    price = table.find("machine", machine, region, basis)
    if basis == "reservation" and (price is None or price.price is None):
        note = _reservation_unpriced(note, table.find("machine", machine, region, "on-demand"), "node-hour")
    if cpu is None:
        note = (note + "; " if note else "") + f"machine type {machine or '(unset)'} is not in the catalog"
    return CostLine(name, "cpu-node-pool" if cpu else "node-pool", machine or None, low, high, basis, "node-hour",
                    price.price if price else None, vcpus=cpu.vcpus if cpu else None,
                    price_source=price.source if price else None, price_read=price.read if price else None, note=note)


def _cluster_lines(resource: Mapping[str, Any], table: PriceTable) -> tuple[CostLine, list[str]]:
    inputs = resource.get("inputs") or {}
    region = _region(inputs)
    price = table.find("cluster", CLUSTER_FEE_KEY, region, "*")
    line = CostLine(str(resource.get("name") or inputs.get("name")), "cluster-fee", None, 1, 1, "flat",
                    "cluster-hour", price.price if price else None, price_source=price.source if price else None,
                    price_read=price.read if price else None)
    notes = []
    if value_at(inputs, "clusterAutoscaling.enabled"):
        limits = value_at(inputs, "clusterAutoscaling.resourceLimits") or []
        tpu = [f"{limit.get('maximum')} {limit.get('resourceType')} chips" for limit in limits
               if str(limit.get("resourceType", "")).startswith("tpu")]
        notes.append("incomplete: node auto-provisioning may add node pools up to its limits ("
                     + (", ".join(tpu) if tpu else "cpu and memory") + "); they are not in the range")
    return line, notes


def estimate(plan: Mapping[str, Any], table: Optional[PriceTable] = None) -> Cost:
    """The hourly cost of the resources a plan creates (plan.json mapping)."""
    table = table or load_prices()
    lines: list[CostLine] = []
    notes: list[str] = []
    for resource in plan.get("resources") or []:
        if resource.get("read"):
            continue
        if resource.get("type") == tokens.GKE_CLUSTER:
            line, more = _cluster_lines(resource, table)
            lines.append(line)
            notes += more
        elif resource.get("type") == tokens.NODE_POOL:
            lines.append(_pool_line(resource, table))
    return Cost(table.currency, table.as_of, table.source, tuple(lines), tuple(notes))


def cost_change(old: Mapping[str, Any], new: Mapping[str, Any], table: Optional[PriceTable] = None) -> dict[str, Any]:
    """The hourly change between two plans: both totals, the change of the range, and each line that differs."""
    table = table or load_prices()
    before, after = estimate(old, table), estimate(new, table)
    olds = {line.resource: line.to_json() for line in before.lines}
    news = {line.resource: line.to_json() for line in after.lines}
    changed = []
    side = lambda line: None if line is None else {  # noqa: E731 - absent: None; unpriced: hourly None
        "hourly": line["hourly"], "basis": line["basis"], "unitPrice": line["unitPrice"]}
    for name in sorted(set(olds) | set(news)):
        a, b = olds.get(name), news.get(name)
        if a != b:
            changed.append({"resource": name, "old": side(a), "new": side(b)})
    (o_low, o_high), (n_low, n_high) = before.hourly, after.hourly
    return {"currency": table.currency, "asOf": table.as_of, "source": table.source,
            "complete": before.complete and after.complete,
            "old": {"min": o_low, "max": o_high}, "new": {"min": n_low, "max": n_high},
            "change": {"min": _round(n_low - o_low), "max": _round(n_high - o_high)}, "lines": changed}


def _money(value: Optional[float], currency: str) -> str:
    if value is None:
        return "unpriced"
    return f"${value:,.4f}" if currency == "USD" else f"{value:,.4f} {currency}"


def _range(low: float, high: float, currency: str) -> str:
    return _money(low, currency) if low == high else f"{_money(low, currency)} .. {_money(high, currency)}"


def render_cost_text(cost: Cost) -> str:
    low, high = cost.hourly
    lines = [f"cost per hour ({cost.currency}, prices as of {cost.as_of}; "
             f"{'complete' if cost.complete else 'INCOMPLETE'}):"]
    for line in cost.lines:
        size = (f"{line.chips} chips x " if line.chips else f"{line.vcpus} vCPUs x " if line.vcpus else "")
        nodes = str(line.nodes_min) if line.nodes_min == line.nodes_max else f"{line.nodes_min}..{line.nodes_max}"
        hourly = line.hourly
        price = "no price in the table" if line.unit_price is None else (
            f"{_money(line.unit_price, cost.currency)}/{line.unit} = {_range(*hourly, cost.currency)}"
            if hourly else "")
        lines.append(f"  {line.resource}  {line.kind}  {line.machine_type or ''}  {size}{nodes} node(s)  "
                     f"{line.basis}  {price}".replace("    ", "  "))
        if line.note:
            lines.append(f"      {line.note}")
    lines.append(f"  total: {_range(low, high, cost.currency)} an hour"
                 + ("" if cost.complete else " (priced lines only)"))
    lines += [f"  note: {note}" for note in cost.to_json().get("notes", [])]
    return "\n".join(lines) + "\n"


def render_change_text(change: Mapping[str, Any]) -> str:
    delta = change["change"]
    sign = lambda v: ("+" if v >= 0 else "-") + _money(abs(v), change["currency"])  # noqa: E731
    text = (f"cost per hour: {_range(change['old']['min'], change['old']['max'], change['currency'])} -> "
            f"{_range(change['new']['min'], change['new']['max'], change['currency'])} "
            f"(change {sign(delta['min'])}" + ("" if delta["min"] == delta["max"] else f" .. {sign(delta['max'])}")
            + f"; prices as of {change['asOf']}" + ("" if change["complete"] else "; INCOMPLETE: unpriced lines")
            + ")")
    out = [text]
    for line in change["lines"]:
        out.append(f"  {line['resource']}: {_side(line['old'], change['currency'])} -> "
                   f"{_side(line['new'], change['currency'])}")
    return "\n".join(out) + "\n"


def _side(side: Optional[Mapping[str, Any]], currency: str) -> str:
    """One side of a changed line: absent, unpriced (no price in the table) or its hourly range and basis."""
    if side is None:
        return "(absent)"
    hourly = side["hourly"]
    price = "unpriced" if hourly is None else _range(hourly["min"], hourly["max"], currency)
    return f"{price} [{side['basis']}]"


def render_change_markdown(change: Mapping[str, Any]) -> str:
    """The PR comment's cost section."""
    lines = ["#### Cost per hour", "", render_change_text(change).splitlines()[0].replace("cost per hour: ", ""), ""]
    if change["lines"]:
        lines += ["| Resource | Before (per hour) | After (per hour) |", "|---|---|---|"]
        for line in change["lines"]:
            lines.append(f"| `{line['resource']}` | {_side(line['old'], change['currency'])} | "
                         f"{_side(line['new'], change['currency'])} |")
        lines.append("")
    lines += [f"<sub>Prices from the table shipped with pathways-gke (as of {change['asOf']}); a line without a "
              "price is left out of the totals, never counted as 0.</sub>", ""]
    return "\n".join(lines)

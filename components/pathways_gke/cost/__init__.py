"""What a plan costs an hour: the dated price table shipped with the package (data/prices.json) applied to the node
pools and clusters of an offline plan. No network at plan time; `cost/tools/refresh_prices.py` regenerates the table
from the Cloud Billing Catalog API when run with credentials."""

from .estimate import Cost, CostLine, cost_change, estimate
from .prices import PriceTable, load_prices

__all__ = ["Cost", "CostLine", "PriceTable", "cost_change", "estimate", "load_prices"]

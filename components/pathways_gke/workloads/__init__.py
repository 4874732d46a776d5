"""Workloads: pure JobSet builders and the components that register them."""

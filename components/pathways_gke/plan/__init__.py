"""Offline plan: run the real program under the SDK's mock engine and record what it registers."""

from .engine import Plan, PlanResource, plan_config, plan_stack

__all__ = ["Plan", "PlanResource", "plan_config", "plan_stack"]

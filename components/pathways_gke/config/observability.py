"""`pathways-gke:observability`: managed Prometheus and metrics, Console links, optional alert policies."""

from __future__ import annotations

from pydantic import Field

from .base import Model
from .types import NotificationChannels


class ObservabilityConfig(Model):
    managed_prometheus: bool = Field(default=True, description="GKE managed Prometheus + the metric packages "
                                                                "the TPU and JobSet dashboards read")
    console_links: bool = Field(default=True, description="stack outputs with Cloud Console links")
    alerts: bool = Field(default=False, description="Cloud Monitoring alert policies per workload")
    stuck_minutes: int = Field(default=20, ge=5, le=1440,
                               description="alert when a JobSet has had fewer ready workers than specified this long")
    notification_channels: NotificationChannels = Field(default_factory=list)

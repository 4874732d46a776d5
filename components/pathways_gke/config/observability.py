"""`pathways-gke:observability`: managed Prometheus and metrics, Console links, optional alert policies."""

from __future__ import annotations

from pydantic import Field

from .base import Model
from .types import NotificationChannels


class ObservabilityConfig(Model):
    """Metrics, Console links and alerts."""

    managed_prometheus: bool = True
    """GKE managed Prometheus with the metric packages the TPU and JobSet dashboards read. Default: true."""
    console_links: bool = True
    """Output `consoleLinks` (cluster, TPU dashboards, each workload's JobSet page and logs). Default: true."""
    alerts: bool = False
    """Cloud Monitoring alert policies per workload (stuck without ready workers; restarts). Default: false."""
    stuck_minutes: int = Field(default=20, ge=5, le=1440)
    """Minutes a JobSet may have fewer ready than specified replicas before alerting (5-1440). Default: 20."""
    notification_channels: NotificationChannels = Field(default_factory=list)
    """Notification channels of the alert policies (projects/P/notificationChannels/ID)."""

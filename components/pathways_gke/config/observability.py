"""`pathways-gke:observability`: managed Prometheus and metrics, Console links, optional alert policies."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from .base import Model, fail

# projects/PROJECT/notificationChannels/ID (what gcp.monitoring.AlertPolicy.notification_channels takes)
NOTIFICATION_CHANNEL = re.compile(r"^projects/[a-z][-a-z0-9]{4,28}[a-z0-9]/notificationChannels/[0-9]+$")


class ObservabilityConfig(Model):
    managed_prometheus: bool = Field(default=True, description="GKE managed Prometheus + the metric packages "
                                                                "the TPU and JobSet dashboards read")
    console_links: bool = Field(default=True, description="stack outputs with Cloud Console links")
    alerts: bool = Field(default=False, description="Cloud Monitoring alert policies per workload")
    stuck_minutes: int = Field(default=20, ge=5, le=1440,
                               description="alert when a JobSet has had fewer ready workers than specified this long")
    notification_channels: list[str] = Field(default_factory=list)

    @field_validator("notification_channels")
    @classmethod
    def _channels(cls, value: list[str]) -> list[str]:
        for channel in value:
            if not NOTIFICATION_CHANNEL.match(channel):
                raise fail("channel", f"'{channel}' is not a notification channel; write "
                           "projects/PROJECT/notificationChannels/ID (gcloud beta monitoring channels list)")
        return value

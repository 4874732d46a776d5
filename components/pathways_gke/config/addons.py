"""`pathways-gke:jobset` and `pathways-gke:kueue`: the controllers installed into the cluster."""

from __future__ import annotations

import re
from typing import Optional

from pydantic import field_validator

from .base import Model, fail

RELEASE = re.compile(r"^v[0-9]+\.[0-9]+\.[0-9]+$")


def check_release(value: str, example: str) -> str:
    if not RELEASE.match(value):
        raise fail("version", f"is not a pinned release tag; write it as vMAJOR.MINOR.PATCH (e.g. {example})")
    return value


class JobSetConfig(Model):
    version: str = "v0.10.1"
    manifest: Optional[str] = None

    @field_validator("version")
    @classmethod
    def _version(cls, value: str) -> str:
        return check_release(value, "v0.10.1")


class KueueConfig(Model):
    enabled: bool = False
    version: str = "v0.17.1"
    manifest: Optional[str] = None

    @field_validator("version")
    @classmethod
    def _version(cls, value: str) -> str:
        return check_release(value, "v0.17.1")

"""The field types of config/types.py: each kind accepts up to its limit, refuses past it, and says what is allowed."""

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from pathways_gke.config import types as T
from pathways_gke.config.deferrable import stand_in
from pathways_gke.gke_rules import parse_gke_version


def error_of(kind: Any, value: Any) -> str | None:
    try:
        TypeAdapter(kind).validate_python(value)
    except ValidationError as exc:
        return exc.errors()[0]["msg"]
    return None


@pytest.mark.parametrize("kind, limit, first", [
    (T.ClusterName, 40, "a"), (T.NodePoolName, 40, "a"), (T.PoolGroupName, 20, "a"), (T.RouterName, 63, "a"),
    (T.ReservationName, 63, "a"), (T.Namespace, 63, "0"), (T.ContainerName, 63, "0"),
    (T.MaintenanceExclusionName, 63, "0"),
], ids=lambda x: getattr(x, "__name__", str(x)))
def test_a_name_may_be_as_long_as_its_limit_and_no_longer(kind, limit, first):
    assert error_of(kind, first + "b" * (limit - 1)) is None
    assert f"at most {limit} characters" in error_of(kind, first + "b" * limit)


def test_dns_1035_names_start_with_a_letter_and_dns_1123_labels_need_not():
    assert "starting with a letter" in error_of(T.ClusterName, "1pw")
    assert error_of(T.Namespace, "1pw") is None
    assert error_of(T.Namespace, "ml.team") is not None
    assert error_of(T.ServiceAccountName, "ml.trainer") is None  # a subdomain


def test_a_list_of_names_quotes_the_bad_item():
    assert error_of(T.SecretNames, ["regcred", "Reg_Cred"]).startswith("'Reg_Cred' is not a Secret name")
    assert error_of(T.ClientNames, ["alice", "b" * 41]).endswith("(it becomes part of the proxy's Service name)")


def test_reserved_names_are_refused_and_said_so():
    volume = T.dns_1123_label("a volume name", reserved=("shared-tmp",))
    assert not volume.matches("shared-tmp") and volume.matches("ckpt")
    assert volume.message.endswith(", not 'shared-tmp'")


def test_a_service_account_email_names_its_project():
    email = "trainer@acme-ml-dev.iam.gserviceaccount.com"
    assert error_of(T.ServiceAccountEmail, email) is None
    assert T.gsa_project(email) == "acme-ml-dev"
    assert "user-managed" in error_of(T.ServiceAccountEmail, "123-compute@developer.gserviceaccount.com")
    assert error_of(T.ServiceAccountEmail, email + ".evil") is not None


@pytest.mark.parametrize("kind, stand_in_kind", [
    (T.ServiceAccountEmail, "email"), (T.ImageRef, "image"), (T.GcsPath, "gcs"),
])
def test_the_stand_ins_of_unknown_outputs_pass_their_kind(kind, stand_in_kind):
    assert error_of(kind, stand_in(stand_in_kind, 12345)) is None


@pytest.mark.parametrize("version", ["1.34", "1.34.1", "1.34.1-gke.1829001"])
def test_a_gke_version_the_config_accepts_is_one_the_rulebook_reads(version):
    assert error_of(T.GkeVersion, version) is None
    assert parse_gke_version(version)[0] == 1


@pytest.mark.parametrize("version", ["2.0", "1", "1.34-gke.1", "v1.34", "latest"])
def test_other_versions_are_refused(version):
    assert "is not a GKE version" in error_of(T.GkeVersion, version)


def test_a_bucket_path_holds_a_bucket_name():
    assert error_of(T.GcsPath, "gs://acme-ckpt/run-1") is None
    assert error_of(T.GcsPath, "gs://ab/run-1") is not None  # a bucket name has at least 3 characters
    assert error_of(T.BucketName, "gs://acme-ckpt") == "is the bucket name only (without gs://)"


def test_quantities_given_as_numbers_are_read_as_text():
    assert TypeAdapter(T.CpuQuantity).validate_python(2) == "2"
    assert "positive Kubernetes quantity" in error_of(T.MemoryQuantity, "0")
    assert T.parse_quantity("500m") * 2 == 1

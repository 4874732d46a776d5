"""The policy pack as the Pulumi CLI runs it: policy/__main__.py serves the Analyzer gRPC protocol.

Started the way `pulumi preview --policy-pack policy` starts it (run as __main__ with the engine
address as argument; it prints its port and serves), then asked over gRPC for its policies and to
analyze a resource, as the engine would during a preview.
"""

import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytest.importorskip("pulumi_policy", reason="pulumi-policy (dev extra) runs the pack")
grpc = pytest.importorskip("grpc", reason="grpcio (a pulumi dependency) talks to the pack")

LAUNCH = ("import runpy, sys; sys.argv = ['pack', '127.0.0.1:1']; "
          "runpy.run_path('policy/__main__.py', run_name='__main__')")


@pytest.fixture(scope="module")
def analyzer():
    from pulumi.runtime.proto import analyzer_pb2_grpc

    proc = subprocess.Popen([sys.executable, "-c", LAUNCH], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        port = proc.stdout.readline().strip()
        if not port.isdigit():
            proc.kill()
            pytest.fail(f"the policy pack did not start: {port!r} {proc.stderr.read()[-2000:]}")
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        yield analyzer_pb2_grpc.AnalyzerStub(channel)
        channel.close()
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.slow
def test_the_pack_announces_every_rule_with_its_enforcement_level(analyzer):
    from google.protobuf import empty_pb2
    from pulumi.runtime.proto import analyzer_pb2

    from pathways_gke import policies

    info = analyzer.GetAnalyzerInfo(empty_pb2.Empty(), timeout=30)
    assert info.name == "pathways-gke"
    levels = {p.name: p.enforcementLevel for p in info.policies}
    assert list(levels) == [r.name for r in policies.RULES]
    assert levels["pathways-gke-pinned-images"] == analyzer_pb2.MANDATORY
    assert levels["pathways-gke-tpu-placement"] == analyzer_pb2.ADVISORY


@pytest.mark.slow
def test_the_pack_rejects_a_latest_image_during_analysis(analyzer):
    from google.protobuf import struct_pb2
    from pulumi.runtime.proto import analyzer_pb2

    from tests.support.plans import jobset_inputs

    def analyze(image):
        props = struct_pb2.Struct()
        props.update(jobset_inputs(image=image))
        request = analyzer_pb2.AnalyzeRequest(
            type="kubernetes:jobset.x-k8s.io/v1alpha2:JobSet", properties=props, name="train",
            urn="urn:pulumi:dev::pathways-gke::kubernetes:jobset.x-k8s.io/v1alpha2:JobSet::train")
        return analyzer.Analyze(request, timeout=30).diagnostics

    assert list(analyze("us-docker.pkg.dev/acme/train:2026-11")) == []
    [diagnostic] = analyze("us-docker.pkg.dev/acme/train:latest")
    assert diagnostic.policyName == "pathways-gke-pinned-images"
    assert diagnostic.enforcementLevel == analyzer_pb2.MANDATORY
    assert "containers[0] (jax-tpu) uses image 'us-docker.pkg.dev/acme/train:latest'" in diagnostic.message

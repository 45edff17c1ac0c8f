"""A runner's connection errors are logged without the lease id, a runner's credential for its
turn: the node redacts it from its own logs, and so does the SDK."""

from __future__ import annotations

import logging

import httpx
import pytest

from rota import RunnerListener
from rota import _core as core

LEASE = "lease-7f3a9c1e-secret"


@pytest.mark.parametrize(
    "error",
    [
        httpx.ReadTimeout("timed out"),
        httpx.ConnectError(f"cannot reach http://node:8080/v1/leases/{LEASE}/heartbeat"),
        httpx.RemoteProtocolError("Server disconnected without sending a response."),
    ],
)
def test_a_connection_error_on_a_lease_call_does_not_name_the_lease(
    error: httpx.TransportError, caplog: pytest.LogCaptureFixture
) -> None:
    for report in ("heartbeat", "complete", "fail"):
        call = core.Call("POST", core.lease_path(LEASE) + "/" + report, safe=False)
        failure = core.transport_error(call, error)
        assert LEASE not in str(failure), str(failure)
        assert f"/v1/leases/…/{report}" in str(failure), str(failure)
        with caplog.at_level(logging.WARNING):
            RunnerListener().on_error(report, failure)
    assert caplog.records, "the errors were logged"
    assert LEASE not in caplog.text, caplog.text


def test_other_paths_are_logged_as_they_are() -> None:
    assert core.loggable("/v1/claims") == "/v1/claims"
    assert core.loggable("/v1/agents/a1") == "/v1/agents/a1"
    assert core.loggable(f"/v1/leases/{LEASE}") == "/v1/leases/…"

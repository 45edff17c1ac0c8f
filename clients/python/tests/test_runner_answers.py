"""The runner's answers to what a node may say that a healthy node rarely does: a lease lost
while the handler runs, a node without the lease's runner binding, another runner's lease.
A scripted server plays the node."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from rota import (
    Activation,
    CancelReason,
    Conflict,
    Context,
    LeaseNotHeld,
    Outcome,
    RetryPolicy,
    Rota,
    Runner,
)

from .fake_server import Answer, error, fake_rota
from .support import wait_until
from .test_runner import Recorder

NOTHING = Answer(200, {"status": "none"}, delay=0.2)


def assigned(lease_id: str = "lease-1", lease_seconds: int = 5) -> Answer:
    return Answer(
        200,
        {
            "status": "assigned",
            "assignment": {
                "leaseId": lease_id,
                "agentId": "a1",
                "kind": "inbox",
                "attempt": 1,
                "grantedAt": "2026-11-24T10:00:00Z",
                "expiresAt": f"2026-11-24T10:00:{lease_seconds:02d}.5Z",
                "notifications": [
                    {
                        "notificationId": "n1",
                        "type": "mention",
                        "payload": {"postId": "p9"},
                        "receivedAt": "2026-11-24T09:59:59.123456789Z",
                        "attempt": 1,
                    }
                ],
                "more": True,
                "agent": {"name": "a1", "capabilities": [], "metadata": {}},
            },
        },
    )


def test_a_lease_lost_at_a_heartbeat_stops_the_handler_and_reports_nothing() -> None:
    routes = {
        "claims": [assigned(), NOTHING],
        "heartbeat": [error(410, "lease_lost")],
        "complete": [Answer(200, {})],
    }
    recorder = Recorder()
    reasons: list[CancelReason | None] = []

    def handle(activation: Activation, context: Context) -> Outcome:
        context.wait_cancelled(20)
        reasons.append(context.reason)
        return Outcome.complete()

    with fake_rota([NOTHING], routes) as fake, Rota(fake.url) as rota:
        runner = Runner(
            rota, handle, runner_id="r7", wait_seconds=1, heartbeat_interval=0.3, listener=recorder
        ).start()
        wait_until("the handler is stopped", lambda: bool(recorder.cancelled))
        runner.stop(grace=1)

    assert reasons == [CancelReason.LEASE_LOST]
    assert [r for _, r in recorder.cancelled] == [CancelReason.LEASE_LOST]
    assert fake.hits_to("complete") == []
    [beat] = fake.hits_to("heartbeat")
    assert beat.path == "/v1/leases/lease-1/heartbeat"
    assert beat.body == {"runnerId": "r7"}
    [activation] = recorder.claimed
    assert activation.more
    assert activation.lease_seconds == 5.5
    assert activation.notifications[0].payload == {"postId": "p9"}


def test_reports_without_the_runner_id_to_a_node_that_does_not_know_it() -> None:
    refused = Answer(
        400, {"error": "invalid", "message": "unknown field 'runnerId' (known fields: result)"}
    )
    routes = {
        "claims": [assigned("lease-1"), assigned("lease-2"), NOTHING],
        "complete": [refused, Answer(200, {})],
    }
    recorder = Recorder()

    with fake_rota([NOTHING], routes) as fake, Rota(fake.url) as rota:
        runner = Runner(rota, lambda a, c: None, runner_id="r7", wait_seconds=1, listener=recorder)
        with runner:
            wait_until("both are reported", lambda: len(recorder.reported) == 2)

    bodies: list[Any] = [h.body for h in fake.hits_to("complete")]
    without_next = [{k: v for k, v in b.items() if k != "next"} for b in bodies]
    assert without_next == [
        {"runnerId": "r7", "inputSeen": []},
        {"inputSeen": []},
        {"inputSeen": []},
    ], "refused once, then never sent again"


def test_a_node_that_does_not_know_next_gets_plain_reports_and_claims() -> None:
    refused = Answer(
        400,
        {"error": "invalid", "message": "unknown field 'next' (known fields: runnerId, result)"},
    )
    routes = {
        "claims": [assigned("lease-1"), assigned("lease-2"), NOTHING],
        "complete": [refused, Answer(200, {})],
    }
    recorder = Recorder()

    with (
        fake_rota([NOTHING], routes) as fake,
        Rota(fake.url) as rota,
        Runner(rota, lambda a, c: None, runner_id="r7", wait_seconds=1, listener=recorder),
    ):
        wait_until("both are reported", lambda: len(recorder.reported) == 2)

    bodies: list[Any] = [h.body for h in fake.hits_to("complete")]
    assert [("next" in b) for b in bodies] == [True, False, False], "refused once, then plain"
    assert len(fake.hits_to("claims")) >= 3


def test_a_refused_runner_id_value_is_not_taken_for_a_missing_binding() -> None:
    bad_id = Answer(400, {"error": "invalid", "message": "field 'runnerId' must not be empty"})
    with fake_rota([bad_id]) as fake, Rota(fake.url) as rota:
        with pytest.raises(Exception, match="runnerId"):
            rota.complete("lease-1", "r7")
        assert rota.lease_binding is None
    assert len(fake.hits) == 1


def test_another_runner_s_lease_is_a_typed_conflict() -> None:
    not_held = error(409, "lease_not_held")
    with (
        fake_rota([not_held]) as fake,
        Rota(fake.url, retry=RetryPolicy(attempts=1)) as rota,
        pytest.raises(LeaseNotHeld) as refused,
    ):
        rota.heartbeat("lease-1", "r8")
    assert isinstance(refused.value, Conflict)
    assert refused.value.status == 409
    assert refused.value.code == "lease_not_held"
    assert len(fake.hits) == 1


def test_stop_before_start_claims_nothing() -> None:
    with fake_rota([NOTHING]) as fake, Rota(fake.url) as rota:
        runner = Runner(rota, lambda a, c: None, wait_seconds=1)
        runner.stop()
        done = threading.Thread(target=runner.run)
        done.start()
        done.join(10)
        assert not done.is_alive()
    assert fake.hits == []


def test_an_empty_claim_answered_at_once_is_not_repeated_at_once() -> None:
    with (
        fake_rota([Answer(200, {"status": "none"})]) as fake,
        Rota(fake.url) as rota,
        Runner(rota, lambda a, c: None, wait_seconds=0),
    ):
        time.sleep(2.5)
    claims = len(fake.hits_to("claims"))
    assert 2 <= claims <= 4, f"{claims} claims in 2.5 s"


def test_a_report_carries_the_next_claim_and_the_slot_runs_its_answer() -> None:
    routes = {
        "claims": [assigned("lease-1"), NOTHING],
        "complete": [
            Answer(
                200, {"completedAt": "2026-11-24T10:00:01Z", **{"next": assigned("lease-2").body}}
            ),
            Answer(200, {"completedAt": "2026-11-24T10:00:02Z", "next": {"status": "none"}}),
        ],
    }
    recorder = Recorder()

    with (
        fake_rota([NOTHING], routes) as fake,
        Rota(fake.url) as rota,
        Runner(
            rota,
            lambda a, c: None,
            runner_id="r7",
            mode="notification",
            capabilities=["gpu"],
            wait_seconds=1,
            lease_seconds=60,
            listener=recorder,
        ),
    ):
        wait_until("two completions reported", lambda: len(recorder.reported) == 2)
        wait_until("a claim after the second", lambda: len(fake.hits_to("claims")) >= 2)

    first, second = fake.hits_to("complete")[:2]
    assert first.path == "/v1/leases/lease-1/complete"
    assert second.path == "/v1/leases/lease-2/complete"
    assert first.body["runnerId"] == "r7"
    assert first.body["next"] == {
        "mode": "notification",
        "capabilities": ["gpu"],
        "waitSeconds": 0,
        "leaseSeconds": 60,
    }
    # The second activation came with the first report: no claim between the two reports.
    claims = fake.hits_to("claims")
    assert claims[0].at < first.at
    assert claims[1].at > second.at

"""Runner health against a real node: a runner's own degradation report, an admin's drain and
restore, the runners listing, and the runner loop waiting out a refusal."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest

from rota import (
    Activation,
    AsyncRota,
    AsyncRunner,
    ClaimResult,
    Context,
    Outcome,
    Rota,
    Runner,
    RunnerStats,
    RunnerView,
)

from .node import Node
from .support import capability, register, wait_until
from .test_runner import Recorder, runner_options


class HealthRecorder(Recorder):
    """A :class:`Recorder` that also keeps the refusals and when each claim came."""

    def __init__(self) -> None:
        super().__init__()
        self.refused: list[tuple[str, str, float]] = []
        self.claimed_at: list[float] = []

    def on_claimed(self, activation: Activation) -> None:
        super().on_claimed(activation)
        with self.lock:
            self.claimed_at.append(time.monotonic())

    def on_refused(self, slot_id: str, reason: str) -> None:
        with self.lock:
            self.refused.append((slot_id, reason, time.monotonic()))


def runner_view(rota: Rota, runner_id: str) -> RunnerView:
    [view] = [v for v in rota.runners() if v.runner_id == runner_id]
    return view


def test_a_degraded_runner_gets_no_work_until_an_admin_restores_it(
    rota: Rota, agent_id: str
) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention")
    runner_id = f"h-{agent_id}"

    def claim() -> ClaimResult:
        return rota.claim(
            runner_id, mode="notification", capabilities=[capability(agent_id)], wait_seconds=0
        )

    state = rota.report_health(runner_id, True, reason="disk full", seconds=600)
    assert state.runner_id == runner_id
    assert state.status == "degraded"
    assert state.degraded is not None and state.degraded.reason == "disk full"
    assert state.degraded.since is not None and state.degraded.until is not None
    assert 599 <= (state.degraded.until - state.degraded.since).total_seconds() <= 601

    refused = claim()
    assert (refused.status, refused.reason, refused.activation) == ("none", "degraded", None)
    assert refused.retry_after_seconds is not None and 1 <= refused.retry_after_seconds <= 30

    view = runner_view(rota, runner_id)
    assert view.status == "degraded"
    assert view.degraded is not None and view.degraded.reason == "disk full"
    assert isinstance(view.stats, RunnerStats) and view.stats.failed == 0
    assert view.raw["runnerId"] == runner_id

    restored = rota.restore_runner(runner_id)
    assert (restored.status, restored.degraded) == ("healthy", None)
    granted = claim()
    assert granted.status == "assigned" and granted.activation is not None
    assert granted.activation.agent_id == agent_id
    rota.complete(granted.activation.lease_id, runner_id)
    assert runner_view(rota, runner_id).stats.completed == 1


async def test_a_drained_runner_waits_for_an_admin_not_for_its_own_report(
    node: Node, rota: Rota, agent_id: str
) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention")
    runner_id = f"d-{agent_id}"
    async with AsyncRota(node.url, timeout=10) as client:

        async def claim() -> tuple[str, str | None, str | None]:
            result = await client.claim(
                runner_id,
                mode="notification",
                capabilities=[capability(agent_id)],
                wait_seconds=0,
            )
            return (
                result.status,
                result.reason,
                result.activation.agent_id if result.activation else None,
            )

        drained = await client.drain_runner(runner_id)
        assert (drained.runner_id, drained.status) == (runner_id, "draining")
        assert await claim() == ("none", "draining", None)
        assert [v.status for v in await client.runners() if v.runner_id == runner_id] == [
            "draining"
        ]
        # A runner's own healthy report ends a degradation, never a drain.
        assert (await client.report_health(runner_id, False)).status == "draining"
        assert await claim() == ("none", "draining", None)

        assert (await client.restore_runner(runner_id)).status == "healthy"
        assert await claim() == ("assigned", None, agent_id)


def test_the_runner_loop_waits_out_a_degradation_its_handler_reported(
    rota: Rota, agent_id: str
) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention", {"n": 1})
    recorder = HealthRecorder()
    reported_at: list[float] = []

    def handle(activation: Activation, context: Context) -> Outcome:
        if not reported_at:
            runner.report_health(True, reason="model key revoked", seconds=3)
            reported_at.append(time.monotonic())
        return Outcome.complete()

    runner = Runner(rota, handle, listener=recorder, **runner_options(agent_id))
    with runner:
        wait_until("the first activation is reported", lambda: bool(recorder.reported))
        rota.notify(agent_id, "mention", {"n": 2})
        wait_until("the second activation is claimed", lambda: len(recorder.claimed) == 2)

    assert recorder.refused, "the claim after the report is refused"
    assert {(slot, why) for slot, why, _ in recorder.refused} == {(runner.runner_id, "degraded")}
    assert len(recorder.refused) <= 2, "the slot waits as told instead of asking again at once"
    waited = recorder.claimed_at[1] - reported_at[0]
    assert 2.0 <= waited <= 10.0, f"claimed again {waited:.1f} s after the 3 s degradation"
    assert recorder.errors == []


async def test_a_healthy_report_wakes_the_waiting_slots(
    node: Node, rota: Rota, agent_id: str
) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention")
    recorder = HealthRecorder()
    async with AsyncRota(node.url, timeout=10) as client:
        runner = AsyncRunner(
            client,
            lambda activation, context: None,
            listener=recorder,
            **runner_options(agent_id, concurrency=2),
        )
        assert runner.slot_ids == [f"{runner.runner_id}-1", f"{runner.runner_id}-2"]
        states = await runner.report_health(True, reason="warming up", seconds=600)
        assert [s.status for s in states] == ["degraded", "degraded"]
        running = asyncio.create_task(runner.run())
        try:
            for _ in range(200):
                if len(recorder.refused) == 2:
                    break
                await asyncio.sleep(0.05)
            assert sorted(slot for slot, _, _ in recorder.refused) == runner.slot_ids
            await asyncio.sleep(0.5)
            assert len(recorder.refused) == 2, "the slots wait (up to 30 s) instead of spinning"
            woken = time.monotonic()
            states = await runner.report_health(False)
            assert [s.status for s in states] == ["healthy", "healthy"]
            for _ in range(200):
                if recorder.reported:
                    break
                await asyncio.sleep(0.05)
            assert recorder.reported, "a slot claimed again after the healthy report"
            assert recorder.claimed_at[0] - woken < 5.0
        finally:
            runner.stop()
            await asyncio.wait_for(running, 15)


def test_the_health_report_body_is_the_apis() -> None:
    bodies: list[tuple[str, object]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        bodies.append((request.url.raw_path.decode(), json.loads(request.content)))
        degraded = bodies[-1][1] != {"degraded": False}
        status = "degraded" if degraded else "healthy"
        return httpx.Response(200, json={"runnerId": "w/1", "status": status})

    with Rota("http://rota.test", transport=httpx.MockTransport(answer)) as rota:
        assert rota.report_health("w/1", True, reason="disk full", seconds=2.5).status == (
            "degraded"
        )
        assert rota.report_health("w/1", True, seconds=60).status == "degraded"
        assert rota.report_health("w/1", False, reason="ignored", seconds=9).status == "healthy"
        with pytest.raises(ValueError, match="seconds"):
            rota.report_health("w/1", True, reason="how long?")
    assert bodies == [
        ("/v1/runners/w%2F1/health", {"degraded": True, "reason": "disk full", "seconds": 3}),
        ("/v1/runners/w%2F1/health", {"degraded": True, "seconds": 60}),
        ("/v1/runners/w%2F1/health", {"degraded": False}),
    ]


def test_a_runner_view_from_a_node_before_runner_health() -> None:
    view = RunnerView.from_json(
        {
            "runnerId": "w1",
            "node": None,
            "mode": "hybrid",
            "capabilities": ["code"],
            "leaseId": "l1",
            "lastSeenAt": "2026-11-24T10:00:05Z",
        }
    )
    assert (view.status, view.stats, view.degraded) == ("executing", RunnerStats(), None)
    assert view.capabilities == ("code",)

"""Deferred answers on the wire: a turn sees every call it may answer (carried, and owed from
earlier turns) and its completion names the ones it defers; a failed turn defers nothing."""

from __future__ import annotations

from typing import Any

from rota import Activation, Context, Outcome, Rota, Runner

from .fake_server import Answer, fake_rota
from .support import wait_until
from .test_runner import Recorder
from .test_runner_answers import NOTHING, assigned

COMPLETED = Answer(200, {"completedAt": "2026-11-24T10:00:01Z", "next": {"status": "none"}})


def _owing_turn() -> Answer:
    """An assignment whose notification is call c-new, and which owes call c-old."""
    answer = assigned()
    assignment = answer.body["assignment"]
    assignment["notifications"][0]["call"] = {
        "callId": "c-new",
        "from": {"tenant": "default", "agentId": "a"},
        "depth": 1,
    }
    assignment["owes"] = [
        {"callId": "c-old", "from": {"tenant": "default", "agentId": "z"}, "depth": 2}
    ]
    return answer


def _run_one_turn(handle: Any) -> list[Any]:
    routes = {"claims": [_owing_turn(), NOTHING], "complete": [COMPLETED], "fail": [COMPLETED]}
    recorder = Recorder()
    with fake_rota([NOTHING], routes) as fake, Rota(fake.url) as rota:
        with Runner(rota, handle, runner_id="r1", wait_seconds=1, listener=recorder):
            wait_until("the turn is reported", lambda: len(recorder.reported) == 1)
        return [(h.path, h.body) for h in fake.hits if "/v1/leases/" in h.path]


def test_a_turn_sees_the_calls_it_owes_and_its_completion_names_those_it_defers() -> None:
    seen: list[Any] = []

    def handle(activation: Activation, context: Context) -> Outcome:
        seen.extend(context.owes)
        assert [c.call_id for c in activation.owes] == ["c-old"]
        context.call("c", "question")
        context.defer("c-new")
        return Outcome.complete({"step": 1})

    [(path, body)] = _run_one_turn(handle)

    assert [c.call_id for c in seen] == ["c-new", "c-old"]
    assert seen[1].from_ is not None and seen[1].from_.agent_id == "z"
    assert seen[1].depth == 2
    assert path == "/v1/leases/lease-1/complete"
    assert body["defer"] == ["c-new"]
    assert len(body["send"]) == 1


def test_defer_all_defers_every_call_and_a_failed_turn_defers_nothing() -> None:
    def defer_all(activation: Activation, context: Context) -> Outcome:
        context.defer_all()
        return Outcome.complete()

    [(_, body)] = _run_one_turn(defer_all)
    assert body["defer"] == ["c-new", "c-old"]

    def failing(activation: Activation, context: Context) -> Outcome:
        context.defer_all()
        raise RuntimeError("down")

    [(path, body)] = _run_one_turn(failing)
    assert path == "/v1/leases/lease-1/fail"
    assert "defer" not in body

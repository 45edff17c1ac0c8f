"""The blocking client against a real node: every resource, and typed errors."""

from __future__ import annotations

import pytest

from rota import (
    AsyncRota,
    Conflict,
    InvalidRequest,
    LeaseLost,
    NotFound,
    Rota,
)

from .node import Node
from .support import capability, register, wait_until


def test_registers_updates_and_reads_an_agent(rota: Rota, agent_id: str) -> None:
    created = register(rota, agent_id, name="reviewer", priority=3, metadata={"model": "stub"})
    assert created["agentId"] == agent_id
    assert created["priority"] == 3

    updated = rota.update_agent(agent_id, max_attempts=2)
    assert updated["maxAttempts"] == 2
    assert updated["name"] == "reviewer", "fields not given keep their values"

    got = rota.get_agent(agent_id)
    assert got["metadata"] == {"model": "stub"}
    assert got["capabilities"] == [capability(agent_id)]
    assert any(a["agentId"] == agent_id for a in rota.iter_agents(page_size=50))

    explanation = rota.explain(agent_id)
    assert explanation["agentId"] == agent_id
    assert "eligible" in explanation


def test_notifies_with_a_dedupe_key_once(rota: Rota, agent_id: str) -> None:
    register(rota, agent_id)
    first = rota.notify(agent_id, "mention", {"postId": "p9"}, dedupe_key="p9-mention")
    again = rota.notify(agent_id, "mention", {"postId": "p9"}, dedupe_key="p9-mention")
    other = rota.notify(agent_id, "mention", {"postId": "p10"})

    assert not first.duplicate
    assert again.duplicate
    assert again.notification_id == first.notification_id
    assert other.unread == 2
    assert rota.get_agent(agent_id)["inbox"]["unread"] == 2
    assert "notification.accepted" in [e["type"] for e in rota.history(agent_id)]


def test_pauses_resumes_and_deregisters_an_agent(rota: Rota, agent_id: str) -> None:
    register(rota, agent_id)
    assert rota.pause_agent(agent_id)["status"] == "paused"
    assert rota.resume_agent(agent_id)["status"] != "paused"

    rota.deregister_agent(agent_id)

    with pytest.raises(NotFound):
        rota.get_agent(agent_id)


def test_pauses_and_resumes_the_system(rota: Rota, agent_id: str) -> None:
    register(rota, agent_id)
    try:
        assert rota.pause() is True
        assert rota.stats()["paused"] is True
        claim = rota.claim(
            "r-paused", mode="notification", capabilities=[capability(agent_id)], wait_seconds=0
        )
        assert claim.status == "paused"
    finally:
        assert rota.resume() is False
    assert rota.stats()["paused"] is False


def test_lists_and_redrives_dead_letters(rota: Rota, agent_id: str) -> None:
    register(rota, agent_id, max_attempts=1)
    rota.notify(agent_id, "mention", {"n": 1})
    claim = rota.claim(
        "r-dead", mode="notification", capabilities=[capability(agent_id)], wait_seconds=5
    )
    assert claim.activation is not None
    rota.fail(claim.activation.lease_id, "r-dead", action="retry", error="model timeout")

    wait_until("the dead letter is listed", lambda: bool(rota.dead_letters(agent_id=agent_id)))
    [letter] = rota.dead_letters(agent_id=agent_id)
    assert letter["agentId"] == agent_id
    assert letter["type"] == "mention"

    rota.redrive(letter["id"])

    assert rota.get_agent(agent_id)["inbox"]["unread"] == 1
    wait_until(
        "the redriven letter leaves the list", lambda: not rota.dead_letters(agent_id=agent_id)
    )


def dead_letter_of(rota: Rota, agent_id: str) -> str:
    """Dead-letters one notification of a fresh agent and returns the dead letter's id."""
    register(rota, agent_id, max_attempts=1)
    rota.notify(agent_id, "mention", {"n": 1})
    claim = rota.claim(
        "r-discard", mode="notification", capabilities=[capability(agent_id)], wait_seconds=5
    )
    assert claim.activation is not None
    rota.fail(claim.activation.lease_id, "r-discard", action="cancel", error="unwanted")
    wait_until("the dead letter is listed", lambda: bool(rota.dead_letters(agent_id=agent_id)))
    [letter] = rota.dead_letters(agent_id=agent_id)
    return str(letter["id"])


def test_discards_a_dead_letter_for_good(rota: Rota, agent_id: str) -> None:
    letter_id = dead_letter_of(rota, agent_id)

    rota.discard_dead_letter(letter_id)

    agent = rota.get_agent(agent_id)
    assert agent["deadLetters"] == 0
    assert agent["inbox"]["unread"] == 0
    assert rota.history(agent_id, limit=1)[0]["type"] == "dead_letter.discarded"
    with pytest.raises(NotFound) as again:
        rota.discard_dead_letter(letter_id)
    assert again.value.status == 404
    assert again.value.code == "not_found"
    wait_until(
        "the discarded letter leaves the list", lambda: not rota.dead_letters(agent_id=agent_id)
    )


async def test_the_async_client_discards_a_dead_letter(
    node: Node, rota: Rota, agent_id: str
) -> None:
    letter_id = dead_letter_of(rota, agent_id)
    async with AsyncRota(node.url) as client:
        await client.discard_dead_letter(letter_id)
        assert (await client.get_agent(agent_id))["deadLetters"] == 0
        with pytest.raises(NotFound):
            await client.discard_dead_letter(letter_id)


def test_reads_stats_pools_and_runners(rota: Rota) -> None:
    stats = rota.stats()
    assert {"agents", "inbox", "activations", "cluster"} <= stats.keys()
    assert isinstance(rota.pools(), list)
    assert isinstance(rota.runners(), list)


def test_raises_invalid_naming_the_field(rota: Rota, agent_id: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        rota.register_agent(agent_id, priority=5000)
    assert refused.value.status == 400
    assert refused.value.code == "invalid"
    assert "priority" in refused.value.message


def test_raises_not_found_for_an_unknown_agent(rota: Rota, agent_id: str) -> None:
    with pytest.raises(NotFound) as missing:
        rota.get_agent(agent_id)
    assert missing.value.status == 404
    assert missing.value.code == "not_found"
    with pytest.raises(NotFound):
        rota.notify(agent_id, "mention")


def test_raises_conflict_deleting_a_leased_agent(rota: Rota, agent_id: str) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention")
    claim = rota.claim(
        "r-conflict", mode="notification", capabilities=[capability(agent_id)], wait_seconds=5
    )
    assert claim.activation is not None
    try:
        with pytest.raises(Conflict) as refused:
            rota.deregister_agent(agent_id)
        assert refused.value.status == 409
        assert refused.value.code == "conflict"
    finally:
        rota.complete(claim.activation.lease_id, "r-conflict")


def test_raises_lease_lost_reporting_a_finished_lease(rota: Rota, agent_id: str) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention")
    claim = rota.claim(
        "r-lost", mode="notification", capabilities=[capability(agent_id)], wait_seconds=5
    )
    assert claim.activation is not None
    lease = claim.activation.lease_id
    rota.complete(lease, "r-lost", {"ok": True})

    with pytest.raises(LeaseLost) as lost:
        rota.heartbeat(lease, "r-lost")
    assert lost.value.status == 410
    assert lost.value.code == "lease_lost"
    with pytest.raises(LeaseLost):
        rota.complete(lease, "r-lost")
    with pytest.raises(NotFound):
        rota.heartbeat("no-such-lease", "r-lost")


def test_lease_reports_carry_the_claiming_runner_id(rota: Rota, agent_id: str) -> None:
    register(rota, agent_id)
    rota.notify(agent_id, "mention")
    claim = rota.claim(
        "r-bound", mode="notification", capabilities=[capability(agent_id)], wait_seconds=5
    )
    assert claim.activation is not None
    lease = claim.activation.lease_id

    rota.heartbeat(lease, "r-bound")
    assert rota.lease_binding is True, "the node takes runnerId on lease reports"

    with pytest.raises(InvalidRequest) as refused:
        rota.heartbeat(lease, "bad\x00id")
    assert "runnerId" in refused.value.message
    assert rota.lease_binding is True, "a bad id is the caller's error, not a missing binding"

    rota.complete(lease, "r-bound", {"ok": True})
    assert rota.get_agent(agent_id)["inbox"]["unread"] == 0

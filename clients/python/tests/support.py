"""Helpers shared by the tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rota import JsonObject, Rota


def capability(agent_id: str) -> str:
    """A capability only this test's agent needs and only this test's runners offer: tests share
    one node, and a runner gets every agent whose required capabilities it covers."""
    return "only-" + agent_id[-50:]


def register(rota: Rota, agent_id: str, **spec: Any) -> JsonObject:
    return rota.register_agent(agent_id, capabilities=[capability(agent_id)], **spec)


def wait_until(what: str, check: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting until {what}")


def event_types(rota: Rota, agent_id: str) -> list[str]:
    """The agent's history, oldest first, as event types."""
    return [str(e["type"]) for e in reversed(rota.history(agent_id))]

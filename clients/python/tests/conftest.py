from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

import pytest

from rota import Rota

from .node import Node, start_node

_ids = itertools.count(1)


@pytest.fixture(scope="session")
def node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Node]:
    """One real node for the whole session, killed at its end."""
    started = start_node(tmp_path_factory.mktemp("rota-node"))
    try:
        yield started
    finally:
        started.stop()


@pytest.fixture
def rota(node: Node) -> Iterator[Rota]:
    with Rota(node.url, timeout=10) as client:
        yield client


@pytest.fixture
def agent_id(request: pytest.FixtureRequest) -> str:
    """A fresh agent id per test: tests share one node and must not see each other's agents."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", request.node.name.removeprefix("test_"))
    return f"{name[:40]}-{next(_ids)}"

"""A client's tenant, and the tenant admin calls."""

from __future__ import annotations

import uuid

import pytest

from rota import AsyncRota, Conflict, InvalidRequest, NotFound, Rota

from .fake_server import Answer, fake_rota
from .node import Node

AGENT = {"agentId": "a1", "status": "idle"}


def _agent_calls(rota: Rota) -> None:
    rota.register_agent("a1", capabilities=["code"])
    rota.get_agent("a1")
    rota.list_agents(limit=5)
    rota.explain("a1")
    rota.history("a1", limit=10)
    rota.pause_agent("a1")
    rota.resume_agent("a1")
    rota.deregister_agent("a1")
    rota.stats()


def test_every_agent_call_of_a_tenant_s_client_names_its_tenant() -> None:
    # A recording server: what was sent is the test, whatever the node's tenant resolution.
    with fake_rota([Answer(200, AGENT)]) as fake, Rota(fake.url, tenant="acme") as rota:
        _agent_calls(rota)
    accepted = Answer(202, {"notificationId": "n", "unread": 1, "duplicate": False})
    with fake_rota([accepted]) as n, Rota(n.url, tenant="acme") as rota:
        rota.notify("a1", "mention")
    assert [f"{h.method} {h.path}" for h in fake.hits] == [
        "PUT /v1/agents/a1?tenant=acme",
        "GET /v1/agents/a1?tenant=acme",
        "GET /v1/agents?order=stalest&limit=5&tenant=acme",
        "GET /v1/agents/a1/explain?tenant=acme",
        "GET /v1/agents/a1/history?limit=10&tenant=acme",
        "POST /v1/agents/a1/pause?tenant=acme",
        "POST /v1/agents/a1/resume?tenant=acme",
        "DELETE /v1/agents/a1?tenant=acme",
        "GET /admin/stats",
    ]
    assert [h.path for h in n.hits] == ["/v1/agents/a1/notifications?tenant=acme"]


def test_a_client_without_a_tenant_sends_none() -> None:
    with fake_rota([Answer(200, AGENT)]) as fake, Rota(fake.url) as rota:
        rota.get_agent("a1")
    assert [h.path for h in fake.hits] == ["/v1/agents/a1"]


async def test_the_async_client_names_its_tenant_too() -> None:
    with fake_rota([Answer(200, AGENT)]) as fake:
        async with AsyncRota(fake.url, tenant="acme") as rota:
            await rota.get_agent("a1")
            await rota.list_agents()
    assert [h.path for h in fake.hits] == [
        "/v1/agents/a1?tenant=acme",
        "/v1/agents?order=stalest&tenant=acme",
    ]


def test_tenants_are_set_listed_and_deleted(rota: Rota) -> None:
    name = "py-" + uuid.uuid4().hex[:8]
    created = rota.set_tenant(name, weight=3, max_concurrent=10)
    assert created["tenant"] == name
    assert created["weight"] == 3
    assert created["maxConcurrent"] == 10
    assert created["maxActivationsPerMinute"] is None

    changed = rota.set_tenant(name, weight=2, max_activations_per_minute=60)
    assert changed["maxConcurrent"] is None
    assert rota.tenant_view(name)["maxActivationsPerMinute"] == 60
    names = [t["tenant"] for t in rota.tenants()]
    assert name in names and "default" in names
    assert set(rota.tenant_view("default")["share"]) == {"actual", "fair"}

    rota.delete_tenant(name)
    with pytest.raises(NotFound):
        rota.tenant_view(name)
    with pytest.raises(Conflict):
        rota.delete_tenant("default")
    with pytest.raises(InvalidRequest):
        rota.set_tenant(name, weight=0)


async def test_the_async_client_sets_and_deletes_a_tenant(node: Node) -> None:
    name = "py-" + uuid.uuid4().hex[:8]
    async with AsyncRota(node.url, timeout=10) as rota:
        assert (await rota.set_tenant(name, weight=4))["weight"] == 4
        assert (await rota.tenant_view(name))["weight"] == 4
        assert name in [t["tenant"] for t in await rota.tenants()]
        await rota.delete_tenant(name)
        with pytest.raises(NotFound):
            await rota.tenant_view(name)


def test_a_tenant_s_client_works_in_its_tenant_on_a_real_node(rota: Rota, node: Node) -> None:
    tenant = "py-" + uuid.uuid4().hex[:8]
    rota.set_tenant(tenant)
    with Rota(node.url, tenant=tenant, timeout=10) as in_tenant:
        assert in_tenant.register_agent("twin")["agentId"] == "twin"
        in_tenant.notify("twin", "mention")
        assert in_tenant.get_agent("twin")["inbox"]["unread"] == 1
        # The same id in default is another agent: there is none.
        with pytest.raises(NotFound):
            rota.get_agent("twin")
        with pytest.raises(Conflict):
            rota.delete_tenant(tenant)
        in_tenant.deregister_agent("twin")

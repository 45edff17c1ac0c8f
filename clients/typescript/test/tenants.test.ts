import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { Conflict, NotFound, Rota } from "../src/index.js";
import { agentId, eventually, sharedNode, type Node } from "./node.js";
import { HttpProxy } from "./proxies.js";

let node: Node;
let admin: Rota;

before(async () => {
  node = await sharedNode();
  admin = new Rota(node.url, { timeoutMs: 10_000 });
});
after(() => node.stop());

/** A tenant name of this test process: 1-64 of [a-z0-9-]. */
function tenantName(name: string): string {
  return `${name}-${process.pid}`;
}

describe("tenants", () => {
  test("an admin creates, changes, lists, reads and deletes a tenant", async () => {
    const name = tenantName("lifecycle");
    const created = await admin.setTenant(name, { weight: 3, maxConcurrent: 2 });
    assert.equal(created.created, true);
    assert.equal(created.tenant.tenant, name);
    assert.equal(created.tenant.weight, 3);
    assert.equal(created.tenant.maxConcurrent, 2);
    const changed = await admin.setTenant(name, { weight: 5 });
    assert.equal(changed.created, false);
    assert.equal(changed.tenant.weight, 5);
    assert.equal(changed.tenant.maxConcurrent, null, "an omitted cap is no cap");
    const listed = await eventually("the tenant listed", async () => (await admin.tenants()).find((t) => t.tenant === name));
    assert.equal(listed.weight, 5);
    assert.ok((await admin.tenants()).some((t) => t.tenant === "default"));
    assert.equal((await admin.getTenant(name)).weight, 5);
    await assert.rejects(admin.deleteTenant("default"), Conflict);
    await admin.deleteTenant(name);
    await assert.rejects(admin.getTenant(name), NotFound);
    await assert.rejects(admin.deleteTenant(name), NotFound);
  });

  test("a client's tenant goes as ?tenant= on every agent call and no other", async () => {
    const name = tenantName("scoped");
    await admin.setTenant(name);
    const proxy = await HttpProxy.start(node.url);
    const scoped = new Rota(proxy.url, { tenant: name, timeoutMs: 10_000 });
    const id = agentId("scoped");
    const capability = `cap-${id}`;
    try {
      // The tenant directory is followed by every node within moments.
      const registered = await eventually("registered in the new tenant", async () => scoped.registerAgent(id, { capabilities: [capability] }));
      assert.equal(registered.created, true);
      assert.equal(registered.agent.tenant, name);
      await scoped.notify(id, "job", { n: 1 });
      assert.equal((await scoped.getAgent(id)).inbox.unread, 1);
      assert.ok((await scoped.listAgents({ limit: 1000 })).agents.some((a) => a.agentId === id));
      await scoped.history(id);
      await scoped.explain(id);
      await scoped.pauseAgent(id);
      await scoped.resumeAgent(id);
      const claimed = await eventually("the claim", async () => {
        const answer = await scoped.claim(`scoped-${process.pid}`, { capabilities: [capability], waitSeconds: 1 });
        return answer.status === "assigned" ? answer.assignment : undefined;
      });
      assert.equal(claimed.agentId, id);
      assert.equal(claimed.tenant, name);
      await scoped.complete(claimed.leaseId, `scoped-${process.pid}`);
      await scoped.stats();
      await scoped.tenants();

      const agentCalls = proxy.seen.filter((s) => s.path.startsWith("/v1/agents"));
      const others = proxy.seen.filter((s) => !s.path.startsWith("/v1/agents"));
      assert.ok(agentCalls.length >= 8, JSON.stringify(agentCalls.map((s) => s.path)));
      for (const seen of agentCalls) {
        assert.equal(new URL(seen.path, "http://x").searchParams.get("tenant"), name, `${seen.method} ${seen.path}`);
      }
      assert.ok(others.some((s) => s.path.startsWith("/v1/claims")) && others.some((s) => s.path.startsWith("/admin/")));
      for (const seen of others) {
        assert.ok(!seen.path.includes("tenant="), `${seen.method} ${seen.path} carries the tenant`);
      }

      await assert.rejects(admin.deleteTenant(name), Conflict, "a tenant with agents is not deleted");
      await scoped.deleteAgent(id);
      await eventually("the tenant deleted", async () => {
        await admin.deleteTenant(name);
        return true;
      });
    } finally {
      await proxy.close();
    }
  });

  test("an agent of another tenant is 404, and so is an unknown tenant", async () => {
    const [red, blue] = [tenantName("red"), tenantName("blue")];
    await admin.setTenant(red);
    await admin.setTenant(blue);
    const redClient = new Rota(node.url, { tenant: red, timeoutMs: 10_000 });
    const blueClient = new Rota(node.url, { tenant: blue, timeoutMs: 10_000 });
    const id = agentId("isolated");
    await eventually("registered in red", async () => redClient.registerAgent(id));
    assert.equal((await redClient.getAgent(id)).tenant, red);

    await assert.rejects(blueClient.getAgent(id), NotFound);
    await assert.rejects(blueClient.notify(id, "job"), NotFound);
    await assert.rejects(blueClient.deleteAgent(id), NotFound);
    await assert.rejects(admin.getAgent(id), NotFound, "the default tenant holds no such agent");
    assert.ok(!(await blueClient.listAgents({ limit: 1000 })).agents.some((a) => a.agentId === id));
    assert.equal((await redClient.getAgent(id)).inbox.unread, 0, "blue's notification did not reach red's agent");

    // The same id in blue is another agent.
    const twin = await blueClient.registerAgent(id, { name: "twin" });
    assert.equal(twin.created, true);
    assert.equal(twin.agent.tenant, blue);
    assert.notEqual((await redClient.getAgent(id)).name, "twin");

    await assert.rejects(new Rota(node.url, { tenant: tenantName("nowhere") }).getAgent(id), NotFound);
    await redClient.deleteAgent(id);
    await blueClient.deleteAgent(id);
  });
});

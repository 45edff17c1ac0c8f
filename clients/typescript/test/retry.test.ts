import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { ConnectionFailed, Rota, Unavailable } from "../src/index.js";
import { agentId, freePort, sharedNode, type Node } from "./node.js";
import { HttpProxy } from "./proxies.js";

let node: Node;
let proxy: HttpProxy;
let rota: Rota;

before(async () => {
  node = await sharedNode();
  proxy = await HttpProxy.start(node.url);
  rota = new Rota(proxy.url, { timeoutMs: 10_000, retry: { initialBackoffMs: 10 } });
});
after(async () => {
  await proxy.close();
  await node.stop();
});

const unavailable = { status: 503, headers: { "Retry-After": "0" }, body: '{"error":"unavailable","message":"not ready"}' };

describe("retries", () => {
  test("a notification whose answer was lost is retried with its generated dedupe key and stored once", async () => {
    const id = agentId("lost-answer");
    await rota.registerAgent(id, { capabilities: [`cap-${id}`] }); // its notification stays unread
    let lost = 0;
    proxy.loseAnswer = (seen) => seen.path.endsWith(`${id}/notifications`) && lost++ === 0;
    try {
      const accepted = await rota.notify(id, "mention", { postId: "p1" });
      assert.equal(accepted.duplicate, true, "the retry finds the first one");
      assert.equal(accepted.unread, 1);
    } finally {
      proxy.loseAnswer = () => false;
    }
    const sent = proxy.seen.filter((s) => s.path.endsWith(`${id}/notifications`));
    assert.equal(sent.length, 2);
    const keys = sent.map((s) => (JSON.parse(s.body) as { dedupeKey: string }).dedupeKey);
    assert.equal(keys[0], keys[1]);
    assert.match(keys[0]!, /^rota-ts-/);
    assert.equal((await rota.getAgent(id)).inbox.unread, 1);
  });

  test("a read is retried after 503 waiting its Retry-After", async () => {
    const id = agentId("read-retry");
    await rota.registerAgent(id);
    let refused = 0;
    proxy.intercept = (seen) => (seen.method === "GET" && seen.path.endsWith(id) && refused++ === 0 ? { ...unavailable, headers: { "Retry-After": "1" } } : undefined);
    const started = performance.now();
    try {
      assert.equal((await rota.getAgent(id)).agentId, id);
    } finally {
      proxy.intercept = () => undefined;
    }
    assert.ok(performance.now() - started >= 900, "waited the server's Retry-After");
    assert.equal(proxy.count("GET", id), 2);
  });

  test("a claim, a completion and a redrive are not retried after 503", async () => {
    proxy.intercept = (seen) => (seen.method === "POST" && (seen.path.startsWith("/v1/claims") || seen.path.includes("/redrive") || seen.path.includes("/complete")) ? unavailable : undefined);
    try {
      const before = proxy.seen.length;
      const error = await rota.claim("no-retry-runner", { waitSeconds: 0 }).catch((e: unknown) => e);
      assert.ok(error instanceof Unavailable);
      assert.equal(error.retryAfter, 0);
      await assert.rejects(rota.redrive("some-letter"), Unavailable);
      await assert.rejects(rota.complete("some-lease", "r"), Unavailable);
      assert.equal(proxy.seen.length - before, 3);
    } finally {
      proxy.intercept = () => undefined;
    }
  });

  test("a node that cannot be reached is a ConnectionFailed that was never sent", async () => {
    const closed = new Rota(`http://127.0.0.1:${await freePort()}`, { retry: { attempts: 2, initialBackoffMs: 1 } });
    const error = await closed.claim("r", { waitSeconds: 0 }).catch((e: unknown) => e);
    assert.ok(error instanceof ConnectionFailed, String(error));
    assert.equal(error.requestSent, false);
    assert.equal(error.status, 0);
  });
});

package dev.rota.faults.harness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.faults.history.Event.Carried;
import dev.rota.faults.history.Event.Outcome;
import dev.rota.faults.history.Event.Sent;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The turns of the call workload ({@code rota.faults.calls=on}): a third of the agents (the call
 * agents) hand work to each other in their turns, and the runners claim and complete over raw HTTP
 * ({@link RotaApi}) so that the history sees each call's {@code call} object and each completion's
 * {@code send} items.
 *
 * <p>A call agent's turn that carries a producer's notification does one of three things, at random
 * (only the first when it also serves a call: its calls would be one deeper): sends another call
 * agent a notification; starts a chain of depth 3 (it calls B, B's turn calls C, C's turn answers
 * B, and B's turn that carries C's reply sends the chain's origin a notification saying it is done;
 * B's own answer to the origin leaves with B's call to C, since a turn's sends and its answer ride
 * on the same completion); or calls three others in one group. Every send's payload carries a key
 * {@code k} unique in the run ({@code <lease>-s<index>}): the checker follows it like a producer's
 * key.
 */
final class CallTurns {
  static final String SEND_TYPE = "fault-send";
  static final String REPLY_TYPE = "rota.reply";

  /** Long enough to outlive a fault's failover and the drain's start; short enough to settle. */
  private static final int CALL_TIMEOUT_SECONDS = 120;

  private static final int GROUP_SIZE = 3;
  private static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration REPORT_TIMEOUT = Duration.ofSeconds(3);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<String> callAgents;
  private final RotaApi api = new RotaApi();
  private final AtomicInteger inputSeenRefused = new AtomicInteger();

  CallTurns(List<String> callAgents) {
    this.callAgents = List.copyOf(callAgents);
  }

  /** A claim's grant: the lease, and its raw notifications. */
  record Claimed(
      String leaseId, String agentId, long grantedAt, long expiresAt, JsonNode notifications) {

    /** The producers' and senders' keys it carries (replies have none). */
    List<String> keys() {
      List<String> keys = new ArrayList<>();
      notifications.forEach(
          n -> {
            if (n.path("payload").has("k")) {
              keys.add(n.path("payload").path("k").asText());
            }
          });
      return keys;
    }

    /** The calls and replies it carries, for the history (null: none). */
    Carried carried(long atMs) {
      List<Carried.Call> calls = new ArrayList<>();
      List<Carried.Reply> replies = new ArrayList<>();
      for (JsonNode n : notifications) {
        JsonNode call = n.path("call");
        if (call.isObject()) {
          calls.add(
              new Carried.Call(
                  n.path("payload").path("k").asText(),
                  call.path("callId").asText(),
                  agentOf(call.path("from")),
                  call.path("depth").asInt()));
        }
        if (REPLY_TYPE.equals(n.path("type").asText())) {
          JsonNode payload = n.path("payload");
          replies.add(
              new Carried.Reply(
                  payload.path("callId").asText(),
                  agentOf(payload.path("from")),
                  payload.path("status").asText(),
                  payload.path("error").path("reason").asText(null),
                  payload.path("error").path("message").asText(null)));
        }
      }
      return calls.isEmpty() && replies.isEmpty()
          ? null
          : new Carried(leaseId, agentId, calls, replies, atMs);
    }
  }

  /** What a turn completes with: its result, its {@code send} items, and their record. */
  record Turn(ObjectNode result, ArrayNode send, List<Sent.Send> sends) {}

  /** A completion's outcome, and whether a 410 said the lease was interrupted. */
  record Completion(Outcome outcome, boolean interrupted) {}

  /**
   * Claims on {@code node}; null when nothing was granted (a degraded runner's refusal waits a
   * second first, as the SDK's runners do).
   *
   * @throws IOException when no answer came, or the node answered with an error
   */
  Claimed claim(NodeProcess node, String runnerId, int waitSeconds, int leaseSeconds)
      throws IOException {
    RotaApi.Response response =
        api.claim(
            node.host(),
            node.httpPort(),
            runnerId,
            waitSeconds,
            leaseSeconds,
            CLAIM_TIMEOUT.plusSeconds(waitSeconds));
    if (!response.ok() || response.body() == null) {
      throw new IOException("claim answered " + response.status());
    }
    JsonNode body = response.body();
    if (!"assigned".equals(body.path("status").asText())) {
      if (body.hasNonNull("reason")) {
        FaultCluster.sleep(Duration.ofSeconds(1));
      }
      return null;
    }
    JsonNode a = body.path("assignment");
    return new Claimed(
        a.path("leaseId").asText(),
        a.path("agentId").asText(),
        Instant.parse(a.path("grantedAt").asText()).toEpochMilli(),
        Instant.parse(a.path("expiresAt").asText()).toEpochMilli(),
        a.path("notifications"));
  }

  /** Completes a lease with {@code turn}'s result and sends, once. */
  Completion complete(NodeProcess node, String leaseId, String runnerId, Turn turn) {
    return complete(node, leaseId, runnerId, turn, null);
  }

  /** The turn's completion naming the steered notifications it was given ({@code inputSeen}). */
  Completion complete(
      NodeProcess node, String leaseId, String runnerId, Turn turn, List<String> inputSeen) {
    try {
      RotaApi.Response response =
          api.complete(
              node.host(),
              node.httpPort(),
              leaseId,
              runnerId,
              turn.result(),
              turn.send(),
              inputSeen,
              REPORT_TIMEOUT);
      if (response.status() == 400
          && inputSeen != null
          && RotaApi.refusesInputSeen(String.valueOf(response.body()))) {
        // A node from before the runner's cursor did nothing: again without it, as the SDKs do.
        inputSeenRefused.incrementAndGet();
        response =
            api.complete(
                node.host(),
                node.httpPort(),
                leaseId,
                runnerId,
                turn.result(),
                turn.send(),
                null,
                REPORT_TIMEOUT);
      }
      if (response.ok()) {
        return new Completion(Outcome.OK, false);
      }
      if (response.status() == 410) {
        boolean interrupted =
            response.body() != null
                && "interrupted".equals(response.body().path("reason").asText());
        return new Completion(Outcome.LOST, interrupted);
      }
      if (response.status() >= 400 && response.status() < 500) {
        // The workload's own mistake, not the cluster's: say so where the run's log shows it.
        System.out.printf(
            "[faults] completion of %s answered %d: %s%n",
            leaseId, response.status(), response.body());
      }
      return new Completion(Outcome.FAILED, false);
    } catch (IOException e) {
      return new Completion(Outcome.FAILED, false);
    }
  }

  /** Completions a node refused for their {@code inputSeen} and that went again without it. */
  int inputSeenRefused() {
    return inputSeenRefused.get();
  }

  /** What the turn of {@code claimed} sends: nothing unless its agent is a call agent. */
  Turn plan(Claimed claimed) {
    ObjectNode result = JSON.createObjectNode().put("ok", true);
    ArrayNode send = JSON.createArrayNode();
    List<Sent.Send> sends = new ArrayList<>();
    if (!callAgents.contains(claimed.agentId())) {
      return new Turn(result, send, sends);
    }
    String self = claimed.agentId();
    ObjectNode chains = result.putObject("chains");
    // A turn that serves a call makes its calls one deeper (rota.calls.max-depth): only a turn
    // serving none starts a chain or a group, so that chains stay at depth 3; one that serves a
    // call only sends.
    boolean servesCall = false;
    for (JsonNode n : claimed.notifications()) {
      servesCall |= n.path("call").isObject();
    }
    boolean acted = false;
    Plan plan = new Plan(claimed.leaseId(), send, sends);
    for (JsonNode n : claimed.notifications()) {
      JsonNode payload = n.path("payload");
      String step = payload.path("plan").asText("");
      if (REPLY_TYPE.equals(n.path("type").asText())) {
        // C's answer to B: B tells the chain's origin it is done.
        JsonNode origin =
            payload.path("result").path("chains").path(payload.path("callId").asText());
        if (origin.isTextual()) {
          plan.add(origin.asText(), "chain-done", null, false, null);
        }
      } else if (step.equals("chain")) {
        String next = other(Set.of(self, payload.path("origin").asText()));
        plan.add(next, "chain-end", payload.path("origin").asText(), true, null);
      } else if (step.equals("chain-end")) {
        chains.put(n.path("call").path("callId").asText(), payload.path("origin").asText());
      } else if (!acted && step.isEmpty()) {
        acted = true;
        switch (servesCall ? 0 : ThreadLocalRandom.current().nextInt(3)) {
          case 0 -> plan.add(other(Set.of(self)), "note", null, false, null);
          case 1 -> plan.add(other(Set.of(self)), "chain", self, true, null);
          default -> {
            List<String> targets = new ArrayList<>(callAgents);
            targets.remove(self);
            java.util.Collections.shuffle(targets);
            for (String target : targets.subList(0, GROUP_SIZE)) {
              plan.add(target, "fan", null, true, "g");
            }
          }
        }
      }
    }
    return new Turn(result, send, sends);
  }

  /** A random call agent not in {@code excluded}. */
  private String other(Set<String> excluded) {
    List<String> choices = callAgents.stream().filter(a -> !excluded.contains(a)).toList();
    return choices.get(ThreadLocalRandom.current().nextInt(choices.size()));
  }

  /** The turn's send items as they are built, each with the next key of the lease. */
  private record Plan(String leaseId, ArrayNode send, List<Sent.Send> sends) {
    void add(String target, String step, String origin, boolean call, String group) {
      String key = leaseId + "-s" + sends.size();
      ObjectNode item = send.addObject().put("agentId", target).put("type", SEND_TYPE);
      ObjectNode payload = item.putObject("payload").put("k", key).put("plan", step);
      if (origin != null) {
        payload.put("origin", origin);
      }
      if (call) {
        ObjectNode callSpec = item.putObject("call").put("timeoutSeconds", CALL_TIMEOUT_SECONDS);
        if (group != null) {
          callSpec.put("group", group);
        }
      }
      sends.add(new Sent.Send(key, target, call, group));
    }
  }

  /** An agent named by a {@code from} object ({@code {"tenant", "agentId"}}) or by its id. */
  private static String agentOf(JsonNode from) {
    return from.isObject() ? from.path("agentId").asText() : from.asText();
  }
}

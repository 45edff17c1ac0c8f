package dev.rota.bench.rota;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One of {@link TenantsBench}'s runners over HTTP: claims ({@code POST /v1/claims}, hybrid, a long
 * poll of 5 s), holds the lease for a turn, completes it, again until told to stop.
 */
final class TenantsHttpRunner {
  private TenantsHttpRunner() {}

  /** Told of every claim: the agent, the bench tokens it carries, when it was claimed. */
  interface Claimed {
    void claimed(String agentId, long[] tokens, long claimedAtMicros);
  }

  static void run(URI api, String runnerId, Duration turn, AtomicBoolean running, Claimed claimed) {
    HttpClient client = HttpClient.newHttpClient();
    ObjectMapper json = new ObjectMapper();
    String claim = "{\"runnerId\": \"" + runnerId + "\", \"mode\": \"hybrid\", \"waitSeconds\": 5}";
    while (running.get()) {
      try {
        HttpResponse<String> answer =
            client.send(
                HttpRequest.newBuilder(api.resolve("v1/claims"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(claim))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        JsonNode body = json.readTree(answer.body().trim());
        JsonNode assignment = body.get("assignment");
        if (assignment == null || assignment.isNull()) {
          continue;
        }
        List<Long> found = new ArrayList<>();
        for (JsonNode n : assignment.path("notifications")) {
          JsonNode token = n.path("payload").get(BenchNode.TOKEN);
          if (token != null && token.canConvertToLong()) {
            found.add(token.asLong());
          }
        }
        long[] carried = found.stream().mapToLong(Long::longValue).toArray();
        claimed.claimed(
            assignment.get("agentId").asText(),
            carried,
            dev.rota.bench.system.BenchClock.nowMicros());
        Thread.sleep(turn.toMillis());
        client.send(
            HttpRequest.newBuilder(
                    api.resolve("v1/leases/" + assignment.get("leaseId").asText() + "/complete"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"runnerId\": \"" + runnerId + "\", \"result\": {}}"))
                .build(),
            HttpResponse.BodyHandlers.discarding());
      } catch (Exception e) {
        if (running.get()) {
          System.err.println("http runner " + runnerId + ": " + e);
        }
      }
    }
  }
}

package dev.rota.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.client.Notification;
import dev.rota.client.NotifyResult;
import dev.rota.client.RotaClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rota notify AGENT_ID --type T [--payload JSON] [--dedupe-key K]}. */
@Command(name = "notify", description = "Put a notification in an agent's inbox.")
final class NotifyCommand implements Runnable {
  @Mixin ConnectionOptions options;

  @Parameters(paramLabel = "AGENT_ID")
  String agentId;

  @Option(names = "--type", required = true, description = "The notification's type.")
  String type;

  @Option(names = "--payload", paramLabel = "JSON", description = "Any JSON (default {}).")
  String payload;

  @Option(
      names = "--dedupe-key",
      paramLabel = "KEY",
      description =
          "A repeat with the same key is a duplicate; with one, failed sends are retried.")
  String dedupeKey;

  @Override
  public void run() {
    JsonNode json = null;
    if (payload != null) {
      try {
        json = ConnectionOptions.JSON.readTree(payload);
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("--payload is not JSON: " + e.getOriginalMessage());
      }
    }
    Notification notification = Notification.of(type, json);
    if (dedupeKey != null) {
      notification = notification.dedupeKey(dedupeKey);
    }
    NotifyResult result;
    try (RotaClient client = options.client()) {
      result = client.notify(agentId, notification);
    }
    if (options.json) {
      options.printJson(result);
    } else {
      options
          .out()
          .println(
              (result.duplicate() ? "duplicate of " : "accepted ")
                  + result.notificationId()
                  + " ("
                  + result.unread()
                  + " unread)");
      options.out().flush();
    }
  }
}

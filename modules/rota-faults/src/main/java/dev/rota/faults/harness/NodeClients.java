package dev.rota.faults.harness;

import dev.rota.client.RotaClient;
import java.net.URI;
import java.time.Duration;

/**
 * The workload's SDK clients of one node, differing only in how long they wait for an answer; none
 * retries (the workload retries by itself, so that every attempt is in the history).
 */
final class NodeClients {
  /**
   * Short, so that a publish stuck on a request the cluster lost answers soon and the window per
   * agent is measured to about a second; an unanswered publish is retried with its dedupe key.
   */
  private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(1);

  private static final Duration REPORT_TIMEOUT = Duration.ofSeconds(3);

  /** Added to a claim's wait: how long its answer may take beyond the wait. */
  private static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(10);

  /** Longer than the node's own ask timeout (5 s), so that its answer (a 503, say) is seen. */
  private static final Duration PATIENT_TIMEOUT = Duration.ofSeconds(10);

  final RotaClient publish;
  final RotaClient claims;
  final RotaClient reports;
  final RotaClient patient;

  NodeClients(URI uri) {
    publish = client(uri, PUBLISH_TIMEOUT);
    claims = client(uri, CLAIM_TIMEOUT);
    reports = client(uri, REPORT_TIMEOUT);
    patient = client(uri, PATIENT_TIMEOUT);
  }

  private static RotaClient client(URI uri, Duration readTimeout) {
    return RotaClient.builder(uri)
        .connectTimeout(Duration.ofSeconds(1))
        .readTimeout(readTimeout)
        .retries(0)
        .build();
  }
}

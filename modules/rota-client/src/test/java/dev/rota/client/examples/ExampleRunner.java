package dev.rota.client.examples;

import dev.rota.client.Assignment;
import dev.rota.client.Outcome;
import dev.rota.client.RotaClient;
import dev.rota.client.RotaRunner;
import dev.rota.client.RunnerMode;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A runner process as deploy/kubernetes/runner-example.yaml runs it: settings from the environment
 * ({@code ROTA_URL}, {@code ROTA_TOKEN}, {@code ROTA_RUNNER_*}), a handler, and a graceful stop on
 * SIGTERM. Replace {@link #handle} with the agent's real work.
 */
public final class ExampleRunner {
  private ExampleRunner() {}

  public static void main(String[] args) throws InterruptedException {
    Map<String, String> env = System.getenv();
    RotaClient client =
        RotaClient.builder(URI.create(env.getOrDefault("ROTA_URL", "http://127.0.0.1:8080")))
            .token(env.get("ROTA_TOKEN"))
            .build();
    RotaRunner runner =
        RotaRunner.builder(client, ExampleRunner::handle)
            .runnerId(env.getOrDefault("ROTA_RUNNER_ID", "example-runner"))
            .mode(
                RunnerMode.valueOf(
                    env.getOrDefault("ROTA_RUNNER_MODE", "hybrid").toUpperCase(Locale.ROOT)))
            .capabilities(capabilities(env.getOrDefault("ROTA_RUNNER_CAPABILITIES", "")))
            .slots(Integer.parseInt(env.getOrDefault("ROTA_RUNNER_SLOTS", "4")))
            .lease(
                Duration.ofSeconds(
                    Long.parseLong(env.getOrDefault("ROTA_RUNNER_LEASE_SECONDS", "300"))))
            .shutdownGrace(
                Duration.ofSeconds(
                    Long.parseLong(env.getOrDefault("ROTA_RUNNER_GRACE_SECONDS", "30"))))
            .start();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  runner.close(); // finish or hand back, then every runner thread has ended
                  client.close();
                  stopped.countDown();
                }));
    stopped.await();
  }

  /** The agent's turn: here it only logs what it was given. */
  static Outcome handle(dev.rota.client.Activation activation) throws InterruptedException {
    Assignment a = activation.assignment();
    System.out.printf(
        "%s %s attempt=%d notifications=%d%n",
        a.agentId(), a.kind(), a.attempt(), a.notifications().size());
    for (Assignment.Item notification : a.notifications()) {
      activation.cancellation().throwIfCancelled(); // the lease was lost: stop at once
      Thread.sleep(10); // the real work: call the model, use tools
    }
    return Outcome.complete();
  }

  private static String[] capabilities(String list) {
    return list.isBlank() ? new String[0] : list.split(",");
  }
}

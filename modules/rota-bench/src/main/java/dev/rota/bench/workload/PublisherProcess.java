package dev.rota.bench.workload;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.rota.bench.metrics.Recorder;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.ChildJvm;
import dev.rota.client.Notification;
import dev.rota.client.RotaClient;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Trickle's publishers in a JVM of their own, so that the node under test does not share its CPU
 * time with them (on two cores the publishers at 2,000/s took a large share of it). The parent
 * starts {@link #main} with the rate and tokens; the child publishes over the producer API (the
 * SDK's client, no retries) on {@link RatePublisher}'s schedule and writes a line per send ({@code
 * S <token> <micros>}, {@code U <token>} when refused) and one at the end ({@code O <planned>
 * <published> <failed> <seconds> <first error>}). Send times are wall-clock microseconds, the
 * bench's one time base across processes; the parent feeds them to its {@link Recorder}, which
 * pairs them with claims that may arrive before the line does.
 */
public final class PublisherProcess {
  private PublisherProcess() {}

  /** Runs the publishers in a child JVM; returns what they achieved. */
  static RatePublisher.Outcome run(
      URI endpoint,
      Recorder recorder,
      int agents,
      long seed,
      int rate,
      Duration duration,
      int threads,
      long firstToken)
      throws InterruptedException {
    List<String> command =
        ChildJvm.command(
            List.of(),
            PublisherProcess.class,
            List.of(
                endpoint.toString(),
                Integer.toString(agents),
                Long.toString(seed),
                Integer.toString(rate),
                Long.toString(duration.toMillis()),
                Integer.toString(threads),
                Long.toString(firstToken)));
    recorder.expectLateSends(true);
    Process process = null;
    try {
      process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      RatePublisher.Outcome outcome = null;
      try (BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = lines.readLine()) != null) {
          String[] f = line.split(" ", 6);
          switch (f[0]) {
            case "S" -> recorder.sent(Long.parseLong(f[1]), Long.parseLong(f[2]));
            case "U" -> recorder.unsent(Long.parseLong(f[1]));
            case "O" ->
                outcome =
                    new RatePublisher.Outcome(
                        Long.parseLong(f[1]),
                        Long.parseLong(f[2]),
                        Long.parseLong(f[3]),
                        Double.parseDouble(f[4]),
                        f.length > 5 && !f[5].equals("-") ? f[5] : null);
            default -> {}
          }
        }
      }
      int exit = process.waitFor();
      if (outcome == null) {
        throw new IllegalStateException(
            "the publisher process exited " + exit + " without a result");
      }
      return outcome;
    } catch (java.io.IOException e) {
      throw new IllegalStateException("could not run the publisher process: " + e, e);
    } finally {
      if (process != null) {
        process.destroyForcibly();
      }
    }
  }

  public static void main(String[] args) throws Exception {
    URI endpoint = URI.create(args[0]);
    int agents = Integer.parseInt(args[1]);
    long seed = Long.parseLong(args[2]);
    int rate = Integer.parseInt(args[3]);
    Duration duration = Duration.ofMillis(Long.parseLong(args[4]));
    int threads = Integer.parseInt(args[5]);
    long firstToken = Long.parseLong(args[6]);
    PrintStream out =
        new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, "UTF-8");
    try (RotaClient client = RotaClient.builder(endpoint).retries(0).build()) {
      RatePublisher.Sends sends =
          new RatePublisher.Sends() {
            @Override
            public void sent(long token, long atMicros) {
              synchronized (out) {
                out.print("S " + token + " " + atMicros + "\n");
              }
            }

            @Override
            public void unsent(long token) {
              synchronized (out) {
                out.print("U " + token + "\n");
              }
            }
          };
      RatePublisher.Publish publish =
          (agentId, token) ->
              client.notify(
                  agentId,
                  Notification.of(
                      "bench",
                      JsonNodeFactory.instance.objectNode().put(BenchSystem.TOKEN_FIELD, token)));
      RatePublisher.Outcome outcome =
          new RatePublisher(publish, sends, agents, seed).run(rate, duration, threads, firstToken);
      synchronized (out) {
        out.printf(
            Locale.ROOT,
            "O %d %d %d %.3f %s%n",
            outcome.planned(),
            outcome.published(),
            outcome.failed(),
            outcome.seconds(),
            outcome.firstError() == null ? "-" : outcome.firstError().replace('\n', ' '));
        out.flush();
      }
    }
  }
}

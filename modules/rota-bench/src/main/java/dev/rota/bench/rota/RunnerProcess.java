package dev.rota.bench.rota;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.bench.metrics.CpuMeter;
import dev.rota.bench.system.BenchClock;
import dev.rota.bench.system.BenchSystem;
import dev.rota.bench.system.ChildJvm;
import dev.rota.bench.system.ClaimedActivation;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.RunnerListener;
import dev.rota.bench.system.RunnerSpec;
import dev.rota.client.Assignment;
import dev.rota.client.CancellationToken;
import dev.rota.client.Outcome;
import dev.rota.client.RotaClient;
import dev.rota.client.RotaRunner;
import dev.rota.core.model.ActivationKind;
import dev.rota.core.model.RunnerMode;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code rota-http}'s runners in a JVM of their own: one SDK {@link RotaRunner} with R slots, so
 * that the bench's JVM CPU per activation is the node's (and the bench's counting), not the node's
 * plus the SDK client's, and the runners' CPU can be reported apart. The parent starts {@link
 * #main}; the child reports every claim and completion on its standard output ({@link
 * RunnerLines}), stops when its standard input says {@code stop} or ends, and closes with its own
 * counts, which the parent checks against the lines it received.
 */
final class RunnerProcess {

  /** How long a claim waits at the node for work; also bounds how long stopping takes. */
  static final int WAIT_SECONDS = 2;

  private static final Duration LEASE = Duration.ofSeconds(60);
  static final Duration STOP_GRACE = Duration.ofSeconds(30);

  private final Process process;
  private final RunnerLines.Parser parser;
  private final Thread reader;
  private final AtomicReference<Throwable> readFailure = new AtomicReference<>();

  private RunnerProcess(Process process, RunnerLines.Parser parser) {
    this.process = process;
    this.parser = parser;
    this.reader = new Thread(this::read, "rota-http-runner-lines");
    reader.setDaemon(true);
  }

  /** Starts the child with R = {@code spec.runners()} slots against {@code endpoint}. */
  static RunnerProcess start(URI endpoint, RunnerSpec spec, RunnerListener listener)
      throws IOException {
    List<String> command =
        ChildJvm.command(
            List.of(
                "-XX:+UseSerialGC",
                // Libraries' logs go to standard error, warnings only: standard output is the
                // protocol.
                "-Dlogback.configurationFile=rota-bench-logback.xml",
                "-Dslf4j.internal.verbosity=WARN"),
            RunnerProcess.class,
            List.of(
                endpoint.toString(),
                spec.mode().wireName(),
                Integer.toString(spec.runners()),
                Long.toString(spec.activationTime().toNanos())));
    Process process =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    RunnerProcess runners = new RunnerProcess(process, new RunnerLines.Parser(listener));
    runners.reader.start();
    return runners;
  }

  private void read() {
    try (BufferedReader lines =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = lines.readLine()) != null) {
        parser.accept(line);
      }
    } catch (IOException | RuntimeException e) {
      readFailure.compareAndSet(null, e);
    }
  }

  /** CPU milliseconds the child has used so far (all its threads); NaN where the OS cannot tell. */
  double cpuMillis() {
    return process.info().totalCpuDuration().map(d -> d.toNanos() / 1e6).orElse(Double.NaN);
  }

  /** Failed calls and lost leases reported so far. */
  long errors() {
    return parser.errors();
  }

  String firstError() {
    return parser.firstError();
  }

  /**
   * Asks the child to stop (running activations finish and report first) and returns its closing
   * counts, once every line before them has been delivered; fails when the child's counts and the
   * lines received disagree, since the workloads' figures would then be wrong.
   */
  RunnerLines.Summary stop() throws InterruptedException {
    try {
      try (OutputStream in = process.getOutputStream()) {
        in.write("stop\n".getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        // the child is gone already; its output says what it finished
      }
      long timeout = STOP_GRACE.toMillis() + 30_000;
      reader.join(timeout);
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the runner process did not stop");
      }
    } finally {
      process.destroyForcibly();
    }
    if (readFailure.get() != null) {
      throw new IllegalStateException(
          "could not read the runner process: " + readFailure.get(), readFailure.get());
    }
    RunnerLines.Summary summary = parser.summary();
    if (summary == null) {
      throw new IllegalStateException(
          "the runner process exited " + process.exitValue() + " without its counts");
    }
    if (summary.claims() != parser.claims() || summary.completions() != parser.completions()) {
      throw new IllegalStateException(
          "the runner process counted "
              + summary
              + " but the bench received "
              + parser.claims()
              + " claims and "
              + parser.completions()
              + " completions");
    }
    return summary;
  }

  /** The child: {@code <endpoint> <mode> <slots> <activation-nanos>}. */
  public static void main(String[] args) throws Exception {
    URI endpoint = URI.create(args[0]);
    RunnerMode mode = RunnerMode.fromWire(args[1]);
    int slots = Integer.parseInt(args[2]);
    long activationNanos = Long.parseLong(args[3]);
    PrintStream out =
        new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
    Lines lines = new Lines(out);
    try (RotaClient client = RotaClient.builder(endpoint).retries(0).build()) {
      RotaRunner runner =
          RotaRunner.builder(
                  client,
                  activation -> {
                    if (activationNanos > 0) {
                      Thread.sleep(
                          activationNanos / 1_000_000, (int) (activationNanos % 1_000_000));
                    }
                    return Outcome.complete();
                  })
              .runnerId("bench-http")
              .mode(dev.rota.client.RunnerMode.valueOf(mode.name()))
              .slots(slots)
              .waitSeconds(WAIT_SECONDS)
              .lease(LEASE)
              .shutdownGrace(STOP_GRACE)
              .listener(lines)
              .start();
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String command;
      do {
        command = in.readLine();
      } while (command != null && !command.equals("stop"));
      runner.stop(STOP_GRACE);
    }
    out.print(
        RunnerLines.summary(
                new RunnerLines.Summary(
                    lines.claims.get(),
                    lines.completions.get(),
                    lines.errors.get(),
                    CpuMeter.processCpuMillis()))
            + "\n");
    out.flush();
    System.exit(0);
  }

  /** The runner's reports as lines, one write each (a line is never split between threads). */
  private static final class Lines implements dev.rota.client.RunnerListener {
    private final PrintStream out;
    final AtomicLong claims = new AtomicLong();
    final AtomicLong completions = new AtomicLong();
    final AtomicLong errors = new AtomicLong();

    Lines(PrintStream out) {
      this.out = out;
    }

    @Override
    public void onClaimed(Assignment assignment) {
      long now = BenchClock.nowMicros();
      claims.incrementAndGet();
      out.print(
          RunnerLines.claim(
                  new ClaimedActivation(
                      assignment.agentId(),
                      ActivationKind.fromWire(assignment.kind()),
                      assignment.notifications().size(),
                      tokens(assignment),
                      now))
              + "\n");
    }

    @Override
    public void onReported(Assignment assignment, Outcome outcome) {
      long now = BenchClock.nowMicros();
      completions.incrementAndGet();
      out.print(
          RunnerLines.completion(
                  new Completion(
                      assignment.agentId(),
                      ActivationKind.fromWire(assignment.kind()),
                      assignment.notifications().size(),
                      now))
              + "\n");
    }

    @Override
    public void onCancelled(Assignment assignment, CancellationToken.Reason reason) {
      errors.incrementAndGet();
      out.print(RunnerLines.error("lease of " + assignment.agentId() + " lost: " + reason) + "\n");
    }

    @Override
    public void onError(String what, RuntimeException error) {
      errors.incrementAndGet();
      out.print(RunnerLines.error(what + ": " + error) + "\n");
    }
  }

  private static long[] tokens(Assignment assignment) {
    long[] tokens = new long[assignment.notifications().size()];
    int n = 0;
    for (Assignment.Item notification : assignment.notifications()) {
      JsonNode token =
          notification.payload() == null
              ? null
              : notification.payload().get(BenchSystem.TOKEN_FIELD);
      if (token != null && token.canConvertToLong()) {
        tokens[n++] = token.asLong();
      }
    }
    return Arrays.copyOf(tokens, n);
  }
}

package dev.rota.bench.rota;

import dev.rota.bench.system.ClaimedActivation;
import dev.rota.bench.system.Completion;
import dev.rota.bench.system.RunnerListener;
import dev.rota.core.model.ActivationKind;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The line protocol between {@link RunnerProcess}'s child JVM and the bench: one line per claim
 * ({@code C <agent> <kind> <notifications> <micros> <token,token…|->}), per completion ({@code D
 * <agent> <kind> <notifications> <micros>}), per failed call or lost lease ({@code E <what>}), and
 * one at the end with the child's own counts and CPU time ({@code O <claims> <completions> <errors>
 * <cpu-ms>}). Times are {@code BenchClock} microseconds, stamped in the child when the node's 200
 * arrives, so the pipe's delay is not part of any latency. Agent ids and kinds never hold a space.
 */
final class RunnerLines {

  private RunnerLines() {}

  /** What the child counted itself; the bench checks that it received as many lines. */
  record Summary(long claims, long completions, long errors, double cpuMillis) {}

  static String claim(ClaimedActivation claim) {
    StringBuilder line =
        new StringBuilder(64)
            .append("C ")
            .append(claim.agentId())
            .append(' ')
            .append(claim.kind().wireName())
            .append(' ')
            .append(claim.notifications())
            .append(' ')
            .append(claim.claimedAtMicros())
            .append(' ');
    long[] tokens = claim.tokens();
    if (tokens.length == 0) {
      line.append('-');
    }
    for (int i = 0; i < tokens.length; i++) {
      line.append(i == 0 ? "" : ",").append(tokens[i]);
    }
    return line.toString();
  }

  static String completion(Completion completion) {
    return "D "
        + completion.agentId()
        + ' '
        + completion.kind().wireName()
        + ' '
        + completion.notifications()
        + ' '
        + completion.completedAtMicros();
  }

  static String error(String what) {
    return "E " + what.replace('\n', ' ');
  }

  static String summary(Summary summary) {
    return String.format(
        Locale.ROOT,
        "O %d %d %d %.3f",
        summary.claims(),
        summary.completions(),
        summary.errors(),
        summary.cpuMillis());
  }

  /**
   * Reads the child's lines into a {@link RunnerListener}, counting what it received; lines it does
   * not know (a JVM warning on standard output) are ignored.
   */
  static final class Parser {
    private final RunnerListener listener;
    private final AtomicLong claims = new AtomicLong();
    private final AtomicLong completions = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private volatile Summary summary;
    private volatile String firstError;

    Parser(RunnerListener listener) {
      this.listener = listener;
    }

    void accept(String line) {
      if (line.length() < 2 || line.charAt(1) != ' ') {
        return;
      }
      switch (line.charAt(0)) {
        case 'C' -> {
          String[] f = line.split(" ", 6);
          listener.onClaim(
              new ClaimedActivation(
                  f[1],
                  ActivationKind.fromWire(f[2]),
                  Integer.parseInt(f[3]),
                  tokens(f[5]),
                  Long.parseLong(f[4])));
          claims.incrementAndGet();
        }
        case 'D' -> {
          String[] f = line.split(" ", 5);
          listener.onComplete(
              new Completion(
                  f[1],
                  ActivationKind.fromWire(f[2]),
                  Integer.parseInt(f[3]),
                  Long.parseLong(f[4])));
          completions.incrementAndGet();
        }
        case 'E' -> {
          if (errors.getAndIncrement() == 0) {
            firstError = line.substring(2);
          }
        }
        case 'O' -> {
          String[] f = line.split(" ", 5);
          summary =
              new Summary(
                  Long.parseLong(f[1]),
                  Long.parseLong(f[2]),
                  Long.parseLong(f[3]),
                  Double.parseDouble(f[4]));
        }
        default -> {}
      }
    }

    private static long[] tokens(String field) {
      if (field.equals("-")) {
        return ClaimedActivation.NO_TOKENS;
      }
      String[] parts = field.split(",");
      long[] tokens = new long[parts.length];
      for (int i = 0; i < parts.length; i++) {
        tokens[i] = Long.parseLong(parts[i]);
      }
      return tokens;
    }

    long claims() {
      return claims.get();
    }

    long completions() {
      return completions.get();
    }

    long errors() {
      return errors.get();
    }

    /** The first error line's text, null without one. */
    String firstError() {
      return firstError;
    }

    /** The child's closing line, null until it arrived. */
    Summary summary() {
      return summary;
    }
  }
}

package dev.rota.client;

import static dev.rota.client.Calls.body;
import static dev.rota.client.Calls.leasePath;
import static dev.rota.client.Calls.read;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rota.client.Calls.Retry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * New input for a running turn, as the runner of its lease asks for it: a heartbeat that also
 * returns the notifications steered into the turn, and the {@code input} long poll that returns
 * them (or that the lease was interrupted) as soon as they come. {@link RotaRunner} uses both; a
 * runner loop of its own can too.
 *
 * <pre>{@code
 * LeaseInput.NewInput in = LeaseInput.of(client).await(leaseId, runnerId, 20);
 * if (in.interrupted()) { stop(); } else { in.notifications().forEach(turn::addMessage); }
 * }</pre>
 */
public final class LeaseInput {
  private final RotaClient client;

  private LeaseInput(RotaClient client) {
    this.client = client;
  }

  public static LeaseInput of(RotaClient client) {
    return new LeaseInput(client);
  }

  /**
   * Extends the lease by its own length from now and returns the notifications steered into the
   * turn since the runner's last answer.
   *
   * @throws RotaException.LeaseLost if the lease expired, was superseded or was interrupted ({@link
   *     RotaException.LeaseLost#interrupted()})
   * @throws RotaException.LeaseNotHeld if the lease was granted to another runner
   */
  public LeaseBeat heartbeat(String leaseId, String runnerId) {
    ObjectNode request = Requests.byRunner(runnerId);
    byte[] answer =
        client.calls.call("POST", leasePath(leaseId) + "/heartbeat", body(request), Retry.UNSENT);
    return read(answer, LeaseBeat.class);
  }

  /**
   * Waits up to {@code waitSeconds} (0–60) for new input: notifications steered into the lease that
   * this runner was not given yet, or that the lease was interrupted. Does not extend the lease.
   *
   * @throws RotaException.LeaseLost if the lease ended otherwise
   * @throws RotaException.LeaseNotHeld if the lease was granted to another runner
   */
  public NewInput await(String leaseId, String runnerId, int waitSeconds) {
    ObjectNode request = Requests.byRunner(runnerId);
    request.put("waitSeconds", waitSeconds);
    Duration timeout = Duration.ofSeconds(waitSeconds).plus(client.readTimeout);
    byte[] answer =
        client.calls.call(
            "POST", leasePath(leaseId) + "/input", body(request), Retry.UNSENT, timeout);
    return read(answer, NewInput.class);
  }

  /** A heartbeat's answer: the lease's new expiry and the notifications steered since. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record LeaseBeat(Instant expiresAt, List<Assignment.Item> notifications) {
    public LeaseBeat {
      notifications = notifications == null ? List.of() : List.copyOf(notifications);
    }
  }

  /** The answer of {@link #await}: steered notifications, or that the lease was interrupted. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record NewInput(List<Assignment.Item> notifications, boolean interrupted, String reason) {
    public NewInput {
      notifications = notifications == null ? List.of() : List.copyOf(notifications);
    }
  }
}

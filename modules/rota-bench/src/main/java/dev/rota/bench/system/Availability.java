package dev.rota.bench.system;

/** Whether a system can run here; when not, a sentence saying why, printed and reported. */
public record Availability(boolean available, String reason) {

  public static Availability ok() {
    return new Availability(true, "");
  }

  public static Availability unavailable(String reason) {
    return new Availability(false, reason);
  }
}

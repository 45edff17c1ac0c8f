/**
 * How a turn ended, as a handler returns it. Returning nothing completes the turn; throwing retries
 * it with the error's text.
 */
export type Outcome =
  | { action: "complete"; result?: Record<string, unknown> }
  | { action: "retry" | "cancel" | "discard"; error?: string }
  | { action: "snooze"; seconds: number; error?: string };

export const Outcome = {
  /** Every carried notification is read; `result` (a JSON object) is kept in the history. */
  complete(result?: Record<string, unknown>): Outcome {
    return result === undefined ? { action: "complete" } : { action: "complete", result };
  },
  /** Consumes an attempt of every carried notification; they come back in a later turn. */
  retry(error?: string): Outcome {
    return withError({ action: "retry" }, error);
  },
  /** Gives the carried notifications up: they become dead letters. */
  cancel(error?: string): Outcome {
    return withError({ action: "cancel" }, error);
  },
  /** Gives the carried notifications up at once: they become dead letters. */
  discard(error?: string): Outcome {
    return withError({ action: "discard" }, error);
  },
  /** Not now: the agent comes back after `seconds` (0 to 86400) and no attempt is consumed. */
  snooze(seconds: number, error?: string): Outcome {
    return error === undefined ? { action: "snooze", seconds } : { action: "snooze", seconds, error };
  },
};

function withError(outcome: { action: "retry" | "cancel" | "discard" }, error: string | undefined): Outcome {
  return error === undefined ? outcome : { ...outcome, error };
}

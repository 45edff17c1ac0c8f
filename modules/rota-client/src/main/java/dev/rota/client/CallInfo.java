package dev.rota.client;

/**
 * What a notification that carries a call says about it: the agent whose turn serves it answers the
 * caller by completing that turn (the completion's result is the answer).
 *
 * @param from the caller, or null for a caller outside Rota (a producer's {@code call})
 * @param depth how many calls deep this one is: a call made by a turn serving a call is one deeper
 */
public record CallInfo(String callId, AgentRef from, int depth) {}

package dev.rota.client;

/**
 * Why a call failed.
 *
 * @param reason e.g. {@code undeliverable}, {@code depth_exceeded}, or the dead letter's reason
 * @param message a human sentence; may be null
 */
public record CallError(String reason, String message) {}

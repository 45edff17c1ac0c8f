package dev.rota.http.api;

/** The answer of {@code POST /admin/pause} and {@code /admin/resume}: the switch's position. */
public record PauseView(boolean paused) {}

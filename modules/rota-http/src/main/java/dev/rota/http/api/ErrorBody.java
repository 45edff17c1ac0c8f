package dev.rota.http.api;

/**
 * Every error answer: {@code {"error": "<code>", "message": "<human sentence>"}}.
 *
 * @param error a code of docs/api.md, e.g. {@code invalid}, {@code not_found}
 */
public record ErrorBody(String error, String message) {}

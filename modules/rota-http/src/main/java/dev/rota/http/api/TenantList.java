package dev.rota.http.api;

import java.util.List;

/**
 * The answer of {@code GET /admin/tenants}: every tenant of the directory, by name.
 *
 * @param tenants each as {@link TenantView}
 */
public record TenantList(List<TenantView> tenants) {}

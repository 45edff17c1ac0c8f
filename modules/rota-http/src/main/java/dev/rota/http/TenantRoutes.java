package dev.rota.http;

import dev.rota.cluster.readmodel.ReadModel;
import dev.rota.cluster.readmodel.TenantRow;
import dev.rota.cluster.tenant.TenantDirectory;
import dev.rota.cluster.tenant.TenantSharesView;
import dev.rota.core.tenant.TenantSpec;
import dev.rota.core.tenant.TenantTable;
import dev.rota.core.tenant.Tenants;
import dev.rota.http.api.TenantList;
import dev.rota.http.api.TenantRequest;
import dev.rota.http.api.TenantView;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /admin/tenants} (role admin, under {@link AdminRoutes}): the tenant directory's tenants
 * with their figures ({@link TenantViews}), and an admin's {@code PUT} and {@code DELETE} of one. A
 * tenant with agents cannot be deleted (409 {@code conflict}), nor can {@code default} or a tenant
 * declared in configuration. The figures read the read model on the blocking dispatcher (503
 * without one) and ask this node's dispatcher for the shares it applies.
 */
final class TenantRoutes extends AllDirectives {
  private static final Logger log = LoggerFactory.getLogger(TenantRoutes.class);

  private final ClusterGateway cluster;
  private final ReadModelReads reads;

  /** A tenant's body is three numbers: anything near this size is not one (413). */
  static final long MAX_BODY_BYTES = 4096;

  TenantRoutes(ClusterGateway cluster, ReadModel readModel, Executor blocking) {
    this.cluster = cluster;
    this.reads = new ReadModelReads(readModel, blocking);
  }

  /** The routes under {@code /admin/tenants}. */
  Route route() {
    return concat(
        pathEnd(() -> get(this::list)),
        path(
            PathMatchers.segment(),
            tenant ->
                concat(
                    get(() -> one(tenant)), put(() -> set(tenant)), delete(() -> delete(tenant)))));
  }

  private Route list() {
    return onSuccess(views(), views -> ok(new TenantList(views)));
  }

  private Route one(String tenant) {
    String name = TenantRequest.checkedName(tenant);
    return onSuccess(
        views(),
        views ->
            ok(
                views.stream()
                    .filter(v -> v.tenant().equals(name))
                    .findFirst()
                    .orElseThrow(() -> ApiException.notFound("no tenant " + name))));
  }

  private Route set(String tenant) {
    String name = TenantRequest.checkedName(tenant);
    return JsonSupport.body(
        TenantRequest.class,
        MAX_BODY_BYTES,
        request -> {
          TenantSpec spec = request.spec(name);
          return onSuccess(
              cluster.setTenant(spec),
              stored ->
                  complete(
                      JsonSupport.response(
                          stored.created() ? StatusCodes.CREATED : StatusCodes.OK,
                          TenantViews.ofSpec(stored.spec()))));
        });
  }

  private Route delete(String tenant) {
    String name = TenantRequest.checkedName(tenant);
    if (Tenants.DEFAULT.equals(name)) {
      throw conflict("the default tenant always exists; it cannot be deleted");
    }
    CompletableFuture<TenantDirectory.Deleted> deleted =
        cluster
            .tenants()
            .toCompletableFuture()
            .thenCompose(
                listing -> {
                  if (!listing.table().exists(name)) {
                    throw ApiException.notFound("no tenant " + name);
                  }
                  return read(rm -> rm.agentsOfTenant(name));
                })
            .thenCompose(
                agents -> {
                  if (agents > 0) {
                    throw conflict(
                        "tenant " + name + " has " + agents + " agents; delete them first");
                  }
                  return cluster.deleteTenant(name);
                });
    return onSuccess(
        deleted,
        result ->
            switch (result.outcome()) {
              case DELETED -> complete(StatusCodes.NO_CONTENT);
              case NOT_FOUND -> throw ApiException.notFound("no tenant " + name);
              case DEFAULT ->
                  throw conflict("the default tenant always exists; it cannot be deleted");
              case CONFIGURED ->
                  throw conflict(
                      "tenant "
                          + name
                          + " is declared in configuration (rota.tenants); remove it there");
            });
  }

  private static ApiException conflict(String message) {
    return new ApiException(ApiError.CONFLICT, message);
  }

  private CompletableFuture<List<TenantView>> views() {
    Instant now = Instant.now();
    CompletableFuture<TenantTable> table =
        cluster.tenants().toCompletableFuture().thenApply(TenantDirectory.Listing::table);
    CompletableFuture<Map<String, TenantRow>> rows = read(ReadModel::tenants);
    CompletableFuture<TenantSharesView> shares = cluster.tenantShares().toCompletableFuture();
    return CompletableFuture.allOf(table, rows, shares)
        .thenApply(done -> TenantViews.of(table.join(), rows.join(), shares.join(), now));
  }

  /** A read-model query on the blocking dispatcher; 503 when there is none or it fails. */
  private <T> CompletableFuture<T> read(Function<ReadModel, T> query) {
    return reads.read(query);
  }

  private Route ok(Object body) {
    return complete(JsonSupport.response(StatusCodes.OK, body));
  }
}

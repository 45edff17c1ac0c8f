package dev.rota.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rota.cluster.agent.AgentEntity;
import dev.rota.cluster.agent.AgentEntity.Accepted;
import dev.rota.cluster.agent.AgentEntity.AgentDetails;
import dev.rota.cluster.agent.AgentEntity.Command;
import dev.rota.cluster.agent.AgentEntity.Reply;
import dev.rota.cluster.runner.executor.WebhookTargets;
import dev.rota.core.model.AgentConfigPatch;
import dev.rota.core.model.AgentSummary;
import dev.rota.core.tenant.AgentKeys;
import dev.rota.http.AgentDirectory.AgentPage;
import dev.rota.http.AgentDirectory.Order;
import dev.rota.http.api.AgentHistory;
import dev.rota.http.api.AgentList;
import dev.rota.http.api.AgentView;
import dev.rota.http.api.NotificationAccepted;
import dev.rota.http.api.NotificationRequest;
import dev.rota.http.api.RegisterAgentRequest;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent resource of docs/api.md (role producer): register, show, list, deregister, notify,
 * pause/resume and history under {@code /v1/agents}. Each request is one ask of the agent's entity
 * through {@link AgentGateway}, except the listing: it takes its order and, where it can, each
 * agent's view from an {@link AgentDirectory} (the read model, written with the events), and asks
 * the entity only for agents the directory cannot describe. A listing of a thousand agents
 * therefore does not recover a thousand entities (and push live ones out of memory); the price is
 * that a listed agent may be a moment behind its own view ({@code GET /v1/agents/{agentId}}).
 *
 * <p>Every request works in one tenant ({@link TenantResolver}): the agent it names is that
 * tenant's, asked by its key ({@link AgentKeys}), and the listing holds that tenant's agents only.
 * An agent of another tenant is therefore simply not there: 404 on every path.
 */
public final class AgentRoutes extends AllDirectives {
  private static final Logger log = LoggerFactory.getLogger(AgentRoutes.class);

  static final int DEFAULT_LIST_LIMIT = 50;
  static final int DEFAULT_HISTORY_LIMIT = 100;
  static final int MAX_LIMIT = 1000;

  private final AgentGateway agents;
  private final AgentDirectory directory;
  private final Executor directoryExecutor;
  private final ApiAuth auth;
  private final long maxBodyBytes;
  private final WebhookTargets webhooks;
  private final TenantResolver tenants;
  private final CallRoutes calls;

  /**
   * @param directoryExecutor where the (possibly blocking) directory is called
   * @param webhooks where a {@code metadata.webhookUrl} may point ({@code
   *     rota.runners.http.allowed-targets})
   */
  public AgentRoutes(
      AgentGateway agents,
      AgentDirectory directory,
      Executor directoryExecutor,
      ApiAuth auth,
      HttpSettings settings,
      WebhookTargets webhooks,
      TenantResolver tenants) {
    this.agents = agents;
    this.tenants = tenants;
    this.directory = directory;
    this.directoryExecutor = directoryExecutor;
    this.auth = auth;
    this.maxBodyBytes = settings.maxBodyBytes();
    this.webhooks = webhooks;
    this.calls = new CallRoutes(agents, auth);
  }

  public Route route() {
    return pathPrefix(
        PathMatchers.segment("v1").slash("agents"),
        () ->
            auth.requireCaller(
                Role.PRODUCER,
                caller ->
                    parameterOptional(
                        "tenant",
                        tenantParam ->
                            concat(
                                pathEndOrSingleSlash(
                                    () -> get(() -> list(tenants.tenantOf(caller, tenantParam)))),
                                pathPrefix(
                                    PathMatchers.segment(),
                                    agentId ->
                                        agent(
                                            AgentKeys.key(
                                                tenants.tenantOf(caller, tenantParam),
                                                QueryParams.agentId(agentId))))))));
  }

  /** The routes of one agent, by its key. */
  private Route agent(String agentId) {
    return concat(
        pathEnd(
            () ->
                concat(
                    put(() -> register(agentId)),
                    get(() -> show(agentId)),
                    delete(() -> deregister(agentId)))),
        path("notifications", () -> post(() -> notify(agentId))),
        path("pause", () -> post(() -> setPaused(agentId, true))),
        path("resume", () -> post(() -> setPaused(agentId, false))),
        path("history", () -> get(() -> history(agentId))));
  }

  private Route register(String agentId) {
    return JsonSupport.body(
        RegisterAgentRequest.class,
        maxBodyBytes,
        request -> {
          AgentConfigPatch patch = request.toPatch();
          checkWebhook(patch.metadata(), AgentKeys.tenantOf(agentId));
          return ask(
              agentId,
              replyTo -> new AgentEntity.Register(patch, replyTo),
              reply -> {
                AgentDetails details = details(reply);
                return json(
                    details.created() ? StatusCodes.CREATED : StatusCodes.OK, view(details));
              });
        });
  }

  /**
   * A webhook the http executor would refuse is refused here, while the producer can still be told
   * (decision 50): the list is checked again, with DNS, right before every call. A target bound to
   * another tenant is refused like an unlisted one (decision 114).
   */
  private void checkWebhook(JsonNode metadata, String tenant) {
    JsonNode url = metadata == null ? null : metadata.get("webhookUrl");
    if (url == null || url.isNull()) {
      return;
    }
    if (!url.isTextual()) {
      throw ApiException.invalid("field 'metadata.webhookUrl' must be a string: an http(s) URL");
    }
    webhooks
        .refusal(url.asText(), tenant)
        .ifPresent(
            reason -> {
              throw ApiException.invalid("field 'metadata.webhookUrl' " + reason);
            });
  }

  private Route show(String agentId) {
    return ask(agentId, AgentEntity.Get::new, reply -> json(StatusCodes.OK, view(details(reply))));
  }

  private Route deregister(String agentId) {
    return ask(
        agentId,
        AgentEntity.Deregister::new,
        reply -> complete(HttpResponse.create().withStatus(StatusCodes.NO_CONTENT)));
  }

  private Route notify(String agentId) {
    return JsonSupport.body(
        NotificationRequest.class,
        maxBodyBytes,
        body -> {
          NotificationRequest n = body.validated();
          if (n.callRequest() != null) {
            return calls.notifyWithCall(agentId, n, n.callRequest());
          }
          return ask(
              agentId,
              replyTo ->
                  new AgentEntity.Notify(n.type(), n.payload(), n.dedupeKey(), n.policy(), replyTo),
              reply -> {
                if (!(reply instanceof Accepted accepted)) {
                  throw unexpected(reply);
                }
                return json(
                    StatusCodes.ACCEPTED,
                    new NotificationAccepted(
                        accepted.notificationId(),
                        accepted.unread(),
                        accepted.duplicate(),
                        accepted.steered(),
                        accepted.interrupted()));
              });
        });
  }

  private Route setPaused(String agentId, boolean paused) {
    return ask(
        agentId,
        replyTo -> new AgentEntity.SetPaused(paused, replyTo),
        reply -> json(StatusCodes.OK, view(details(reply))));
  }

  private Route history(String agentId) {
    return parameterOptional(
        "limit",
        limitParam -> {
          int limit = QueryParams.limit(limitParam, DEFAULT_HISTORY_LIMIT, MAX_LIMIT);
          return ask(
              agentId,
              AgentEntity.Get::new,
              reply ->
                  json(StatusCodes.OK, AgentHistory.of(details(reply).agent().history(), limit)));
        });
  }

  private Route list(String tenant) {
    return parameterOptional(
        "order",
        orderParam ->
            parameterOptional(
                "limit",
                limitParam ->
                    parameterOptional(
                        "after",
                        after -> {
                          Order order = order(orderParam);
                          int limit = QueryParams.limit(limitParam, DEFAULT_LIST_LIMIT, MAX_LIMIT);
                          CompletionStage<AgentList> page =
                              CompletableFuture.<AgentPage>supplyAsync(
                                      () -> page(tenant, order, limit, after.orElse(null)),
                                      directoryExecutor)
                                  .thenCompose(this::views);
                          return onSuccess(page, list -> json(StatusCodes.OK, list));
                        })));
  }

  private AgentPage page(String tenant, Order order, int limit, String after) {
    try {
      return directory.list(tenant, order, limit, after);
    } catch (AgentDirectory.InvalidCursorException e) {
      throw ApiException.invalid("after is not a cursor of this listing: " + e.getMessage());
    } catch (AgentDirectory.UnavailableException e) {
      log.warn("agent directory unavailable: {}", e.getMessage(), e.getCause());
      throw ApiException.unavailable("the agent directory is not available; try again later");
    }
  }

  /**
   * Every listed agent's view: from the directory when it describes the agent, else asked of the
   * entity (in parallel); agents deregistered meanwhile are left out. A row never shows {@code
   * calls}, which the directory does not know, so every row has the same fields.
   */
  private CompletionStage<AgentList> views(AgentPage page) {
    Instant now = Instant.now();
    List<CompletableFuture<AgentView>> views =
        page.agentIds().stream()
            .map(
                id -> {
                  AgentSummary described = page.described().get(id);
                  if (described != null) {
                    return CompletableFuture.completedFuture(AgentView.of(described, now));
                  }
                  return agents
                      .ask(id, AgentEntity.Get::new)
                      .toCompletableFuture()
                      .thenApply(
                          reply ->
                              reply instanceof AgentDetails details
                                  ? view(details).withoutCalls()
                                  : null);
                })
            .toList();
    return CompletableFuture.allOf(views.toArray(CompletableFuture[]::new))
        .thenApply(
            done ->
                new AgentList(
                    views.stream().map(CompletableFuture::join).filter(v -> v != null).toList(),
                    page.next()));
  }

  /** One ask of the agent; a refusal becomes its API error, any other reply goes to onReply. */
  private Route ask(
      String agentId, Function<ActorRef<Reply>, Command> command, Function<Reply, Route> onReply) {
    return onSuccess(
        agents.ask(agentId, command),
        reply -> {
          if (reply instanceof AgentEntity.Rejected rejected) {
            throw ApiErrors.rejected(rejected);
          }
          return onReply.apply(reply);
        });
  }

  private Route json(StatusCode status, Object body) {
    return complete(JsonSupport.response(status, body));
  }

  private static AgentView view(AgentDetails details) {
    return AgentView.of(details.agent(), details.at());
  }

  private static AgentDetails details(Reply reply) {
    if (reply instanceof AgentDetails details) {
      return details;
    }
    throw unexpected(reply);
  }

  private static IllegalStateException unexpected(Reply reply) {
    return new IllegalStateException("unexpected reply from agent: " + reply);
  }

  private static Order order(Optional<String> param) {
    if (param.isEmpty()) {
      return Order.STALEST;
    }
    for (Order order : Order.values()) {
      if (order.wireName().equals(param.get())) {
        return order;
      }
    }
    throw ApiException.invalid("order must be stalest or inbox");
  }
}

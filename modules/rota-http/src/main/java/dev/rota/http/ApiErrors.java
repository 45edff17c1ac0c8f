package dev.rota.http;

import dev.rota.cluster.agent.AgentEntity;
import dev.rota.core.model.TextRules;
import dev.rota.http.api.ErrorBody;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethod;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.Allow;
import org.apache.pekko.http.javadsl.model.headers.HttpChallenge;
import org.apache.pekko.http.javadsl.model.headers.RetryAfter;
import org.apache.pekko.http.javadsl.model.headers.WWWAuthenticate;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.ExceptionHandler;
import org.apache.pekko.http.javadsl.server.MalformedRequestContentRejection;
import org.apache.pekko.http.javadsl.server.MethodRejection;
import org.apache.pekko.http.javadsl.server.RejectionHandler;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.scaladsl.model.EntityStreamException;
import org.apache.pekko.http.scaladsl.model.EntityStreamSizeException;
import org.apache.pekko.http.scaladsl.model.IllegalRequestException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where failures become answers: every error of the API is {@code {"error",
 * "message"}} with docs/api.md's status. Client mistakes are 4xx with a sentence naming what is
 * wrong; a cluster that does not answer in time is 503 with {@code Retry-After}; anything
 * unexpected is a logged 500 {@code internal} without a stack trace. Pekko's own rejections
 * (unknown path, wrong method, ...) are rewritten into the same JSON shape.
 */
public final class ApiErrors extends AllDirectives {
  private static final Logger log = LoggerFactory.getLogger(ApiErrors.class);

  private final HttpSettings settings;
  private final ExceptionHandler exceptionHandler;
  private final RejectionHandler rejectionHandler;

  public ApiErrors(HttpSettings settings) {
    this.settings = settings;
    this.exceptionHandler = ExceptionHandler.newBuilder().matchAny(this::answer).build();
    this.rejectionHandler = buildRejectionHandler();
  }

  /**
   * Wraps the whole API so nothing leaves it but the contract's answers, including the server's own
   * {@code pekko.http.server.request-timeout} answer.
   */
  public Route handle(Supplier<Route> inner) {
    return withRequestTimeoutResponse(
        this::requestTimedOut,
        () -> handleExceptions(exceptionHandler, () -> handleRejections(rejectionHandler, inner)));
  }

  private HttpResponse requestTimedOut(HttpRequest request) {
    log.warn(
        "{} {} passed the server's request timeout",
        request.method().name(),
        RequestTelemetry.loggable(request.getUri().path()));
    return response(
        ApiError.UNAVAILABLE, "the request took too long to answer" + outcome(request.method()));
  }

  /**
   * What a client may assume of a request answered 503 for want of time. A read changed nothing. A
   * write may have been committed in the moment the answer gave up (the journal starts no write
   * that waited longer than its max-queue-wait, below the ask timeout, but one in flight finishes):
   * the answer says so, and that a notification retried with the same dedupeKey is accepted once.
   */
  private static String outcome(HttpMethod method) {
    if (method.equals(HttpMethods.GET) || method.equals(HttpMethods.HEAD)) {
      return "; try again later";
    }
    return "; it may or may not have taken effect: retry it (a notification with the same"
        + " dedupeKey is accepted once; a report on a lease already ended answers 410)";
  }

  /** The error a refusal of an agent entity stands for. */
  public static ApiException rejected(AgentEntity.Rejected rejected) {
    ApiError error =
        switch (rejected.code()) {
          case INVALID -> ApiError.INVALID;
          case NOT_FOUND -> ApiError.NOT_FOUND;
          case CONFLICT -> ApiError.CONFLICT;
          case LEASE_LOST -> ApiError.LEASE_LOST;
          case LEASE_NOT_HELD -> ApiError.LEASE_NOT_HELD;
          case INBOX_FULL -> ApiError.INBOX_FULL;
          case LEASE_INTERRUPTED -> ApiError.LEASE_LOST;
          case TURN_IN_PROGRESS -> ApiError.TURN_IN_PROGRESS;
        };
    if (rejected.code() == AgentEntity.ErrorCode.LEASE_INTERRUPTED) {
      return ApiException.interrupted(rejected.message());
    }
    return new ApiException(error, rejected.message());
  }

  /** The JSON answer for an error, with the headers its status calls for. */
  private HttpResponse response(ApiError error, String message) {
    return response(error, message, List.of());
  }

  private HttpResponse response(ApiError error, String message, List<HttpHeader> extraHeaders) {
    return response(error, message, null, extraHeaders);
  }

  private HttpResponse response(
      ApiError error, String message, String reason, List<HttpHeader> extraHeaders) {
    return response(error, message, reason, extraHeaders, null);
  }

  private HttpResponse response(
      ApiError error,
      String message,
      String reason,
      List<HttpHeader> extraHeaders,
      Integer retryAfterSeconds) {
    List<HttpHeader> headers = new ArrayList<>(extraHeaders);
    if (error.retryable()) {
      headers.add(
          RetryAfter.create(
              (long)
                  (retryAfterSeconds != null ? retryAfterSeconds : settings.retryAfterSeconds())));
    }
    if (error == ApiError.UNAUTHENTICATED) {
      headers.add(WWWAuthenticate.create(HttpChallenge.create("Bearer", "rota")));
    }
    return JsonSupport.response(
        StatusCodes.get(error.status()),
        new ErrorBody(error.code(), TextRules.printable(message), reason),
        headers);
  }

  private Route answer(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof ApiException e && e.oldestRetainedId() != null) {
      return complete(
          JsonSupport.response(
              StatusCodes.get(e.error().status()),
              new ErrorBody(
                  e.error().code(),
                  TextRules.printable(e.getMessage()),
                  e.reason(),
                  e.oldestRetainedId()),
              List.of()));
    }
    if (t instanceof ApiException e) {
      return complete(
          response(e.error(), e.getMessage(), e.reason(), List.of(), e.retryAfterSeconds()));
    }
    if (t instanceof EntityStreamSizeException) {
      return complete(
          response(
              ApiError.TOO_LARGE,
              "the body is larger than the limit of " + settings.maxBodyBytes() + " bytes"));
    }
    if (t instanceof EntityStreamException e) {
      return complete(
          response(ApiError.INVALID, "the body could not be read: " + e.info().summary()));
    }
    if (t instanceof TimeoutException) {
      return extractRequest(
          request -> {
            log.warn(
                "{} {} got no answer in time: {}",
                request.method().name(),
                RequestTelemetry.loggable(request.getUri().path()),
                t.getMessage());
            return complete(
                response(
                    ApiError.UNAVAILABLE,
                    "the cluster did not answer within "
                        + settings.askTimeout().toMillis()
                        + " ms"
                        + outcome(request.method())));
          });
    }
    if (t instanceof IllegalRequestException e) {
      return complete(response(ApiError.INVALID, e.info().summary()));
    }
    return extractRequest(
        request -> {
          log.error(
              "unexpected failure of {} {}",
              request.method().name(),
              RequestTelemetry.loggable(request.getUri().path()),
              t);
          return complete(
              response(ApiError.INTERNAL, "an unexpected error occurred; it has been logged"));
        });
  }

  private static Throwable unwrap(Throwable t) {
    Throwable current = t;
    while ((current instanceof CompletionException || current instanceof ExecutionException)
        && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }

  private RejectionHandler buildRejectionHandler() {
    return RejectionHandler.newBuilder()
        .handleAll(MethodRejection.class, this::methodNotAllowed)
        .handle(
            MalformedRequestContentRejection.class,
            r ->
                r.getCause() != null && unwrap(r.getCause()) instanceof EntityStreamSizeException
                    ? answer(r.getCause())
                    : complete(response(ApiError.INVALID, r.message())))
        .handleNotFound(
            extractRequest(
                request ->
                    complete(
                        response(
                            ApiError.NOT_FOUND,
                            "no resource at "
                                + request.method().name()
                                + " "
                                + request.getUri().path()))))
        .build()
        .withFallback(RejectionHandler.defaultHandler())
        .mapRejectionResponse(this::asJsonError);
  }

  private Route methodNotAllowed(List<MethodRejection> rejections) {
    HttpMethod[] allowed =
        rejections.stream().map(MethodRejection::supported).distinct().toArray(HttpMethod[]::new);
    StringBuilder names = new StringBuilder();
    for (HttpMethod m : allowed) {
      names.append(names.isEmpty() ? "" : ", ").append(m.name());
    }
    return extractRequest(
        request ->
            complete(
                response(
                    ApiError.METHOD_NOT_ALLOWED,
                    request.method().name()
                        + " is not allowed on "
                        + request.getUri().path()
                        + "; allowed: "
                        + names,
                    List.of(Allow.create(allowed)))));
  }

  /** Pekko's default rejection answers are plain text; give them the API's JSON shape. */
  private HttpResponse asJsonError(HttpResponse response) {
    if (response.entity().getContentType().equals(ContentTypes.APPLICATION_JSON)) {
      return response;
    }
    String message =
        response.entity() instanceof HttpEntity.Strict strict
            ? strict.getData().decodeString(StandardCharsets.UTF_8)
            : response.status().reason();
    ApiError error = ApiError.ofStatus(response.status().intValue());
    return response.withEntity(
        ContentTypes.APPLICATION_JSON,
        JsonSupport.write(new ErrorBody(error.code(), TextRules.printable(message))));
  }
}

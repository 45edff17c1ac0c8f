package dev.rota.http;

import dev.rota.http.api.ErrorBody;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.event.LoggingAdapter;
import org.apache.pekko.http.ParsingErrorHandler;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.Allow;
import org.apache.pekko.http.scaladsl.model.ErrorInfo;
import org.apache.pekko.http.scaladsl.model.StatusCode;
import org.apache.pekko.http.scaladsl.settings.ServerSettings;

/**
 * The answer to a request so malformed that it never reaches the routes: a request line or URI too
 * long (414), headers too large (431), a bad request target such as {@code %zz} (400), a body over
 * the server's content limit (413), an unknown method. Pekko HTTP answers these in plain text by
 * default; here they get the API's error body like every other error, and no client mistake is
 * answered with a 5xx: an unknown method is 405 with {@code Allow}, an unsupported HTTP version
 * 400. Set as {@code pekko.http.server.parsing.error-handler} (rota-http's reference.conf).
 */
public final class ParsingErrors extends ParsingErrorHandler {
  /** Pekko looks the handler up as a Scala object: a static field of this name. */
  public static final ParsingErrors MODULE$ = new ParsingErrors();

  /** Every method some route of the API serves. */
  static final Allow ALLOWED =
      Allow.create(HttpMethods.GET, HttpMethods.PUT, HttpMethods.POST, HttpMethods.DELETE);

  @Override
  public HttpResponse handle(
      StatusCode status, ErrorInfo info, LoggingAdapter log, ServerSettings settings) {
    ClientMistakeLog.get().refused(status.intValue(), info.formatPretty());
    return answer(status.intValue(), info.summary());
  }

  /** The JSON answer for a parser's status and summary. */
  static HttpResponse answer(int status, String summary) {
    List<HttpHeader> headers = new ArrayList<>();
    ApiError error;
    String message = summary;
    if (status == 501) {
      error = ApiError.METHOD_NOT_ALLOWED;
      message = summary + "; allowed: GET, PUT, POST, DELETE";
      headers.add(ALLOWED);
    } else if (status == 413 || status == 414 || status == 431) {
      error = ApiError.TOO_LARGE;
    } else {
      error = ApiError.INVALID;
    }
    int answered = error == ApiError.TOO_LARGE ? status : error.status();
    return JsonSupport.response(
        StatusCodes.get(answered),
        new ErrorBody(error.code(), dev.rota.core.model.TextRules.printable(message)),
        headers);
  }
}

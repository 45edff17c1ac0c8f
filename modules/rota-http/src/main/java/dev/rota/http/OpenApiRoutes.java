package dev.rota.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /openapi.yaml}: the OpenAPI 3.1 document of the API, as shipped in this jar. Open to
 * everyone, like any published contract: it holds no data. The route tests validate every answer
 * they receive against this same document, so it cannot drift from the code.
 */
public final class OpenApiRoutes extends AllDirectives {
  /** Where the document lives on the classpath. */
  public static final String RESOURCE = "dev/rota/http/openapi.yaml";

  /** {@code application/yaml; charset=UTF-8} (RFC 9512). */
  public static final ContentType YAML =
      ContentTypes.create(MediaTypes.applicationWithOpenCharset("yaml"), HttpCharsets.UTF_8);

  private final byte[] document;

  public OpenApiRoutes() {
    this.document = load();
  }

  public Route route() {
    return path(
        "openapi.yaml",
        () ->
            get(
                () ->
                    complete(
                        HttpResponse.create()
                            .withStatus(StatusCodes.OK)
                            .withEntity(YAML, document))));
  }

  /** The document's bytes; fails at start-up, not at the first request, if the jar lacks it. */
  public static byte[] load() {
    try (InputStream in = OpenApiRoutes.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the classpath");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }
}

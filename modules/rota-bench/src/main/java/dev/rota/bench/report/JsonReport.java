package dev.rota.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;

/** results.json: {@link BenchResults} as it is, for scripts and for comparing runs. */
public final class JsonReport {

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private JsonReport() {}

  public static void write(BenchResults results, Path file) throws IOException {
    JSON.writeValue(file.toFile(), results);
  }
}

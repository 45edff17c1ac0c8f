package dev.rota.server;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * With {@code ROTA_LOG_FORMAT=json}, every line the process prints is one JSON object, even lines a
 * library prints without a logger (a stray {@code println} breaks log shippers). {@link #install()}
 * (first thing in {@link Main}, before Scala's {@code Console} captures {@code System.out})
 * replaces {@code System.out} and {@code System.err} with streams that pass JSON lines (the log
 * encoder's) through unchanged and wrap any other line as {@code {"@timestamp", "level",
 * "logger_name", "message"}}, the fields of the log encoder.
 */
final class JsonConsole extends OutputStream {
  private static final JsonFactory JSON = new JsonFactory();

  private final OutputStream out;
  private final String loggerName;
  private final String level;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream();

  JsonConsole(OutputStream out, String loggerName, String level) {
    this.out = out;
    this.loggerName = loggerName;
    this.level = level;
  }

  /** Installs the guard when the log format is JSON; returns whether it did. */
  static boolean install() {
    if (!"json".equalsIgnoreCase(System.getenv("ROTA_LOG_FORMAT"))) {
      return false;
    }
    System.setOut(wrap(System.out, "stdout", "INFO"));
    System.setErr(wrap(System.err, "stderr", "WARN"));
    return true;
  }

  static PrintStream wrap(PrintStream target, String loggerName, String level) {
    return new PrintStream(
        new JsonConsole(target, loggerName, level), true, StandardCharsets.UTF_8);
  }

  @Override
  public synchronized void write(int b) throws IOException {
    if (b == '\n') {
      emit();
    } else {
      line.write(b);
    }
  }

  @Override
  public synchronized void write(byte[] bytes, int offset, int length) throws IOException {
    int start = offset;
    for (int i = offset; i < offset + length; i++) {
      if (bytes[i] == '\n') {
        line.write(bytes, start, i - start);
        emit();
        start = i + 1;
      }
    }
    line.write(bytes, start, offset + length - start);
  }

  @Override
  public synchronized void flush() throws IOException {
    out.flush();
  }

  @Override
  public synchronized void close() throws IOException {
    if (line.size() > 0) {
      emit();
    }
    out.close();
  }

  private void emit() throws IOException {
    String text = line.toString(StandardCharsets.UTF_8);
    line.reset();
    if (text.endsWith("\r")) {
      text = text.substring(0, text.length() - 1);
    }
    String json = isJsonObject(text) ? text : wrapped(text);
    out.write((json + "\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** A cheap test: the log encoder writes whole objects, one per line. */
  static boolean isJsonObject(String text) {
    String t = text.strip();
    return t.startsWith("{") && t.endsWith("}");
  }

  private String wrapped(String text) {
    StringWriter json = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(json)) {
      g.writeStartObject();
      g.writeStringField("@timestamp", Instant.now().toString());
      g.writeStringField("level", level);
      g.writeStringField("logger_name", loggerName);
      g.writeStringField("message", text);
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return json.toString();
  }
}

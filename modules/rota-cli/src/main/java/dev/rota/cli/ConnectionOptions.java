package dev.rota.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.rota.client.RotaClient;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;

/**
 * The options every command shares: where the node is, the token, the tenant of agent commands, and
 * the output format.
 */
final class ConnectionOptions {
  static final String DEFAULT_URL = "http://127.0.0.1:8080";
  static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
  CommandLine.Model.CommandSpec command;

  @Option(
      names = "--url",
      paramLabel = "URL",
      description = "The node's API (env ROTA_URL; default " + DEFAULT_URL + ").")
  String url;

  @Option(
      names = "--token",
      paramLabel = "TOKEN",
      description =
          "Bearer token (env ROTA_TOKEN). On a shared machine prefer ROTA_TOKEN or --token-file:"
              + " an argument shows in ps.")
  String token;

  @Option(
      names = "--token-file",
      paramLabel = "FILE",
      description =
          "Read the bearer token from this file, e.g. a mounted Secret (env ROTA_TOKEN_FILE);"
              + " it takes precedence over --token and ROTA_TOKEN.")
  String tokenFile;

  @Option(
      names = "--tenant",
      paramLabel = "TENANT",
      description =
          "The tenant agent commands work in (env ROTA_TENANT; default: the token's, else"
              + " default).")
  String tenant;

  @Option(names = "--json", description = "Print JSON instead of a table.")
  boolean json;

  RotaClient client() {
    return RotaClient.builder(URI.create(url == null || url.isBlank() ? DEFAULT_URL : url))
        .token(token())
        .tenant(tenant == null || tenant.isBlank() ? null : tenant)
        .retries(2)
        .backoff(Duration.ofMillis(200), Duration.ofSeconds(1))
        .build();
  }

  /** The token of --token-file (its first line, trimmed), else of --token / ROTA_TOKEN. */
  String token() {
    if (tokenFile == null || tokenFile.isBlank()) {
      return token;
    }
    try {
      String text = Files.readString(Path.of(tokenFile), StandardCharsets.UTF_8).strip();
      int newline = text.indexOf('\n');
      String first = (newline < 0 ? text : text.substring(0, newline)).strip();
      if (first.isEmpty()) {
        throw new CommandLine.ParameterException(
            command.commandLine(), "--token-file " + tokenFile + " is empty");
      }
      return first;
    } catch (IOException e) {
      throw new CommandLine.ParameterException(
          command.commandLine(), "--token-file " + tokenFile + " cannot be read: " + e);
    }
  }

  PrintWriter out() {
    return command.commandLine().getOut();
  }

  /** Prints {@code value} as indented JSON. */
  void printJson(Object value) {
    try {
      out().println(JSON.writerWithDefaultPrettyPrinter().writeValueAsString(value));
      out().flush();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** ROTA_URL, ROTA_TOKEN, ROTA_TOKEN_FILE and ROTA_TENANT as the defaults of their options. */
  static final class FromEnvironment implements CommandLine.IDefaultValueProvider {
    private final Map<String, String> environment;

    FromEnvironment(Map<String, String> environment) {
      this.environment = environment;
    }

    @Override
    public String defaultValue(ArgSpec arg) {
      if (arg instanceof OptionSpec option) {
        return switch (option.longestName()) {
          case "--url" -> environment.getOrDefault("ROTA_URL", DEFAULT_URL);
          case "--token" -> environment.get("ROTA_TOKEN");
          case "--token-file" -> environment.get("ROTA_TOKEN_FILE");
          case "--tenant" -> environment.get("ROTA_TENANT");
          default -> null;
        };
      }
      return null;
    }
  }
}

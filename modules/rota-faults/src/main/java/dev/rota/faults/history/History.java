package dev.rota.faults.history;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The events of one fault run, appended by many client threads. {@link #write} saves it as JSON
 * lines (one event a line) and {@link #read} loads such a file, so a history can be checked again
 * offline.
 */
public final class History {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<Event> events = new ArrayList<>();

  public synchronized void add(Event event) {
    events.add(event);
  }

  /** A copy of the events so far, in the order of {@link Event#at()}. */
  public synchronized List<Event> events() {
    List<Event> copy = new ArrayList<>(events);
    copy.sort(Comparator.comparingLong(Event::at));
    return copy;
  }

  public void write(Path file) {
    try (BufferedWriter out = Files.newBufferedWriter(file)) {
      for (Event event : events()) {
        out.write(JSON.writerFor(Event.class).writeValueAsString(event));
        out.newLine();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the history to " + file, e);
    }
  }

  public static List<Event> read(Path file) {
    try {
      List<Event> events = new ArrayList<>();
      for (String line : Files.readAllLines(file)) {
        if (!line.isBlank()) {
          events.add(JSON.readValue(line, Event.class));
        }
      }
      return events;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read a history from " + file, e);
    }
  }
}

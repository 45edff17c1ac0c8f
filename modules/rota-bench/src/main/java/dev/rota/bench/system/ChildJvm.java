package dev.rota.bench.system;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a child JVM the bench starts beside the node it measures (publishers,
 * runners): this JVM's java and class path, a small heap and the quick compiler only, so the child
 * takes little of the CPU the node is measured on.
 */
public final class ChildJvm {

  private ChildJvm() {}

  /** {@code java <flags> -Xmx256m -XX:TieredStopAtLevel=1 -cp <class path> main args...}. */
  public static List<String> command(List<String> flags, Class<?> main, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    command.add("-Xmx256m");
    command.add("-XX:TieredStopAtLevel=1");
    command.addAll(flags);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(args);
    return command;
  }
}

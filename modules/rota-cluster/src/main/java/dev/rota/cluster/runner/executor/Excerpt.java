package dev.rota.cluster.runner.executor;

/**
 * The start of a webhook's text as it may be recorded in an agent's history, which producers read:
 * control, format and unassigned characters become spaces, runs of white space one space, and
 * anything past {@link #MAX} characters is cut.
 */
final class Excerpt {
  static final int MAX = 200;

  private Excerpt() {}

  static String of(String text) {
    StringBuilder sb = new StringBuilder(Math.min(text.length(), MAX + 1));
    boolean space = true;
    for (int i = 0; i < text.length() && sb.length() < MAX + 1; ) {
      int cp = text.codePointAt(i);
      i += Character.charCount(cp);
      if (printable(cp) && !Character.isWhitespace(cp)) {
        sb.appendCodePoint(cp);
        space = false;
      } else if (!space) {
        sb.append(' ');
        space = true;
      }
    }
    String excerpt = sb.toString().strip();
    if (excerpt.length() <= MAX) {
      return excerpt;
    }
    int end = Character.isHighSurrogate(excerpt.charAt(MAX - 1)) ? MAX - 1 : MAX;
    return excerpt.substring(0, end) + "…";
  }

  private static boolean printable(int cp) {
    if (Character.isISOControl(cp)) {
      return false;
    }
    int type = Character.getType(cp);
    return type != Character.FORMAT
        && type != Character.UNASSIGNED
        && type != Character.SURROGATE
        && type != Character.PRIVATE_USE
        && type != Character.LINE_SEPARATOR
        && type != Character.PARAGRAPH_SEPARATOR;
  }
}

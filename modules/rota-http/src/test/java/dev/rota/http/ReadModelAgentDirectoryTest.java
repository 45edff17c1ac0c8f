package dev.rota.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rota.core.model.AgentSummary;
import dev.rota.http.AgentDirectory.AgentPage;
import dev.rota.http.AgentDirectory.Order;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The listing orders and keyset paging over {@code agent_schedule}, on H2 in memory. */
class ReadModelAgentDirectoryTest {
  private static final Instant T0 = Instant.parse("2026-11-22T09:00:00.123456Z");

  private JdbcDataSource dataSource;
  private ReadModelAgentDirectory directory;

  @BeforeEach
  void createTable() throws SQLException {
    dataSource = new JdbcDataSource();
    dataSource.setURL(
        "jdbc:h2:mem:directory-"
            + UUID.randomUUID()
            + ";DB_CLOSE_DELAY=-1;DATABASE_TO_UPPER=false");
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          """
          CREATE TABLE agent_schedule (
            agent_id VARCHAR(128) PRIMARY KEY,
            partition_id INT NOT NULL,
            name VARCHAR(255) NOT NULL,
            capabilities VARCHAR(4000) NOT NULL,
            priority INT NOT NULL,
            unread INT NOT NULL,
            oldest_unread_at TIMESTAMP WITH TIME ZONE,
            last_activated_at TIMESTAMP WITH TIME ZONE,
            activation_count BIGINT NOT NULL,
            min_activation_interval_seconds BIGINT NOT NULL,
            lease_id VARCHAR(255),
            lease_runner_id VARCHAR(255),
            lease_kind VARCHAR(32),
            lease_expires_at TIMESTAMP WITH TIME ZONE,
            paused BOOLEAN NOT NULL,
            snoozed_until TIMESTAMP WITH TIME ZONE,
            dead_letters INT NOT NULL,
            seq_nr BIGINT NOT NULL,
            updated_at TIMESTAMP WITH TIME ZONE NOT NULL,
            next_fire_at TIMESTAMP WITH TIME ZONE,
            config TEXT,
            lease_granted_at TIMESTAMP WITH TIME ZONE)
          """);
    }
    directory = new ReadModelAgentDirectory(dataSource);
  }

  /** One row; times are seconds after T0, null when absent. */
  private void row(String agentId, int unread, Integer oldestUnreadAt, Integer lastActivatedAt)
      throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "INSERT INTO agent_schedule (agent_id, partition_id, name, capabilities, priority,"
                    + " unread, oldest_unread_at, last_activated_at, activation_count,"
                    + " min_activation_interval_seconds, paused, dead_letters, seq_nr, updated_at)"
                    + " VALUES (?, 0, ?, '', 0, ?, ?, ?, 0, 0, FALSE, 0, 1, ?)")) {
      s.setString(1, agentId);
      s.setString(2, agentId);
      s.setInt(3, unread);
      s.setObject(4, at(oldestUnreadAt));
      s.setObject(5, at(lastActivatedAt));
      s.setObject(6, T0.atOffset(ZoneOffset.UTC));
      s.executeUpdate();
    }
  }

  private static Object at(Integer secondsAfterT0) {
    return secondsAfterT0 == null ? null : T0.plusSeconds(secondsAfterT0).atOffset(ZoneOffset.UTC);
  }

  private void someAgentsWithTies() throws SQLException {
    row("e", 0, null, 30);
    row("a", 2, 10, 20);
    row("d", 0, null, null);
    row("b", 2, 10, null);
    row("c", 5, 40, 20);
    row("f", 2, 5, 30);
    row("g", 0, null, 20);
  }

  private List<String> allPages(Order order, int limit) {
    List<String> ids = new ArrayList<>();
    String cursor = null;
    do {
      AgentPage page = directory.list(order, limit, cursor);
      ids.addAll(page.agentIds());
      cursor = page.next();
    } while (cursor != null);
    return ids;
  }

  @Test
  void listsStalestNeverActivatedFirstThenOldestActivationThenById() throws SQLException {
    someAgentsWithTies();

    AgentPage page = directory.list(Order.STALEST, 50, null);

    assertEquals(List.of("b", "d", "a", "c", "g", "e", "f"), page.agentIds());
    assertNull(page.next());
  }

  @Test
  void listsInboxMostUnreadFirstThenOldestUnreadThenById() throws SQLException {
    someAgentsWithTies();

    AgentPage page = directory.list(Order.INBOX, 50, null);

    assertEquals(List.of("c", "f", "a", "b", "d", "e", "g"), page.agentIds());
  }

  @ParameterizedTest(name = "{0} order, {1} per page")
  @CsvSource({"STALEST, 1", "STALEST, 2", "STALEST, 3", "INBOX, 1", "INBOX, 2", "INBOX, 3"})
  void pagesVisitEveryAgentOnceInOrder(Order order, int limit) throws SQLException {
    someAgentsWithTies();

    assertEquals(directory.list(order, 50, null).agentIds(), allPages(order, limit));
  }

  @Test
  void givesNoNextCursorWhenTheLastPageIsExactlyFull() throws SQLException {
    row("a", 0, null, null);
    row("b", 0, null, null);

    AgentPage page = directory.list(Order.STALEST, 2, null);

    assertEquals(List.of("a", "b"), page.agentIds());
    assertNull(page.next());
  }

  @Test
  void continuesAfterTheCursorWhenEarlierAgentsChange() throws SQLException {
    row("a", 0, null, 10);
    row("b", 0, null, 20);
    row("c", 0, null, 30);
    AgentPage first = directory.list(Order.STALEST, 1, null);
    assertNotNull(first.next());

    row("0-new", 0, null, null);

    assertEquals(List.of("b", "c"), directory.list(Order.STALEST, 5, first.next()).agentIds());
  }

  @Test
  void describesAgentsWhoseRowHoldsTheirConfigurationAndNoOthers() throws SQLException {
    row("old", 0, null, null);
    row("new", 3, 10, 20);
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "UPDATE agent_schedule SET config = ?, activation_count = 4, dead_letters = 1,"
                    + " lease_runner_id = 'runner-9', lease_kind = 'inbox', lease_id = 'secret',"
                    + " lease_granted_at = ?, lease_expires_at = ? WHERE agent_id = 'new'")) {
      s.setString(
          1,
          "{\"name\":\"New\",\"capabilities\":[\"code\"],\"priority\":2,"
              + "\"minActivationIntervalSeconds\":60,\"maxInboxDepth\":50,\"maxAttempts\":4,"
              + "\"metadata\":{\"model\":\"m\"},\"schedules\":[]}");
      s.setObject(2, at(30));
      s.setObject(3, at(330));
      s.executeUpdate();
    }

    AgentPage page = directory.list(Order.STALEST, 10, null);

    assertEquals(List.of("old", "new"), page.agentIds());
    assertEquals(Set.of("new"), page.described().keySet());
    AgentSummary agent = page.described().get("new");
    assertEquals("New", agent.config().name());
    assertEquals(50, agent.config().maxInboxDepth());
    assertEquals(4, agent.config().maxAttempts());
    assertEquals("m", agent.config().metadata().get("model").asText());
    assertEquals(3, agent.unread());
    assertEquals(T0.plusSeconds(10), agent.oldestUnreadAt());
    assertEquals(T0.plusSeconds(20), agent.lastActivatedAt());
    assertEquals(4, agent.activationCount());
    assertEquals(1, agent.deadLetters());
    assertEquals("runner-9", agent.lease().runnerId());
    assertEquals(T0.plusSeconds(30), agent.lease().grantedAt());
    assertEquals(T0.plusSeconds(330), agent.lease().expiresAt());
    assertNull(agent.lease().leaseId(), "a listing never carries the lease id");
    assertEquals("leased", agent.status(T0));
  }

  @Test
  void listsNothingFromAnEmptyTable() {
    AgentPage page = directory.list(Order.INBOX, 10, null);

    assertEquals(List.of(), page.agentIds());
    assertNull(page.next());
  }

  @Test
  void refusesCursorsOfTheOtherOrderAndGarbage() throws SQLException {
    row("a", 1, 0, null);
    row("b", 1, 1, null);
    String inboxCursor = directory.list(Order.INBOX, 1, null).next();

    assertThrows(
        AgentDirectory.InvalidCursorException.class,
        () -> directory.list(Order.STALEST, 1, inboxCursor));
    assertThrows(
        AgentDirectory.InvalidCursorException.class,
        () -> directory.list(Order.INBOX, 1, "not a cursor!"));
    assertThrows(
        AgentDirectory.InvalidCursorException.class,
        () -> directory.list(Order.INBOX, 1, "aGVsbG8"));
  }

  @Test
  void reportsUnavailableWhenTheTableDoesNotExist() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE agent_schedule");
    }

    assertThrows(
        AgentDirectory.UnavailableException.class, () -> directory.list(Order.STALEST, 1, null));
  }
}

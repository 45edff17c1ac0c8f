package dev.rota.cluster.tenant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.rota.cluster.metrics.RotaMetrics;
import dev.rota.cluster.metrics.TenantMeters;
import dev.rota.cluster.tenant.TenantDirectory.Command;
import dev.rota.cluster.tenant.TenantDirectory.Deleted;
import dev.rota.cluster.tenant.TenantDirectory.Event;
import dev.rota.cluster.tenant.TenantDirectory.Listing;
import dev.rota.cluster.tenant.TenantDirectory.Outcome;
import dev.rota.cluster.tenant.TenantDirectory.State;
import dev.rota.cluster.tenant.TenantDirectory.Stored;
import dev.rota.cluster.tenant.TenantDirectory.TenantDeleted;
import dev.rota.cluster.tenant.TenantDirectory.TenantSet;
import dev.rota.core.tenant.TenantSpec;
import dev.rota.core.tenant.TenantTable;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LogCapturingExtension;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.pubsub.Topic;
import org.apache.pekko.persistence.testkit.javadsl.EventSourcedBehaviorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The tenant directory: what admins set over what configuration declares, its events, what it
 * publishes (after every change and after recovery), and its messages' serialization.
 */
@ExtendWith(LogCapturingExtension.class)
class TenantDirectoryTest {
  private static final ActorTestKit TEST_KIT =
      ActorTestKit.create(
          "TenantDirectoryTest",
          EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));

  /** Configuration declares acme (weight 3, capped) beside default. */
  private static final TenantTable CONFIGURED =
      TenantTable.of(Map.of("acme", new TenantSpec("acme", 3, 10, 600)));

  private TestProbe<Listing> published;
  private EventSourcedBehaviorTestKit<Command, Event, State> kit;

  @AfterAll
  static void shutdown() {
    TEST_KIT.shutdownTestKit();
  }

  @BeforeEach
  void setUp() {
    ActorRef<Topic.Command<Listing>> topic =
        TEST_KIT.spawn(Topic.create(Listing.class, "tenants-" + System.nanoTime()));
    published = TEST_KIT.createTestProbe();
    topic.tell(Topic.subscribe(published.ref()));
    // The subscription must be in place before the directory publishes its recovery.
    TEST_KIT
        .createTestProbe()
        .awaitAssert(
            () -> {
              var stats = TEST_KIT.<Topic.TopicStats>createTestProbe();
              topic.tell(Topic.getTopicStats(stats.ref()));
              assertEquals(1, stats.receiveMessage().localSubscriberCount());
              return null;
            });
    kit =
        EventSourcedBehaviorTestKit.create(
            TEST_KIT.system(),
            TenantDirectory.behaviorForTests(topic, CONFIGURED),
            EventSourcedBehaviorTestKit.enabledSerializationSettings());
    kit.clear();
  }

  private Stored set(TenantSpec spec) {
    return kit.<Stored>runCommand(replyTo -> new TenantDirectory.SetTenant(spec, replyTo)).reply();
  }

  private Outcome delete(String name) {
    return kit.<Deleted>runCommand(replyTo -> new TenantDirectory.DeleteTenant(name, replyTo))
        .reply()
        .outcome();
  }

  private Listing listing() {
    return kit.<Listing>runCommand(TenantDirectory.GetTenants::new).reply();
  }

  private static List<String> names(Listing listing) {
    return listing.tenants().stream().map(TenantSpec::name).toList();
  }

  @Test
  void startsFromConfigurationWithDefault() {
    Listing listing = listing();
    assertEquals(List.of("acme", "default"), names(listing));
    assertEquals(new TenantSpec("acme", 3, 10, 600), listing.table().specOf("acme"));
    assertEquals(0, listing.revision());
  }

  @Test
  void createsATenantPersistsItAndPublishesTheTable() {
    var result =
        kit.<Stored>runCommand(
            replyTo -> new TenantDirectory.SetTenant(new TenantSpec("beta", 2, null, 60), replyTo));
    assertTrue(result.reply().created());
    TenantSet event = assertInstanceOf(TenantSet.class, result.event());
    assertEquals("beta", event.name());
    assertEquals(2, event.weight());
    assertEquals(60, event.maxActivationsPerMinute());
    Listing sent =
        published
            .fishForMessage(
                Duration.ofSeconds(5),
                l ->
                    l.table().exists("beta")
                        ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
                        : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes
                            .continueAndIgnore())
            .get(0);
    assertEquals(List.of("acme", "beta", "default"), names(sent));
    assertEquals(1, sent.revision());
  }

  @Test
  void settingAnExistingTenantAgainAnswersNotCreatedAndTheSameValueWritesNothing() {
    assertTrue(set(new TenantSpec("beta", 2, null, null)).created());
    Stored again = set(new TenantSpec("beta", 5, null, null));
    assertFalse(again.created());
    assertEquals(5, listing().table().specOf("beta").weight());
    var same =
        kit.<Stored>runCommand(
            replyTo ->
                new TenantDirectory.SetTenant(new TenantSpec("beta", 5, null, null), replyTo));
    assertTrue(same.hasNoEvents());
    assertFalse(same.reply().created());
  }

  @Test
  void anAdminsSettingOfAConfiguredTenantWinsAndSurvivesARestart() {
    Stored stored = set(new TenantSpec("acme", 7, null, null));
    assertFalse(stored.created(), "configuration declared it");
    kit.restart();
    TenantSpec acme = listing().table().specOf("acme");
    assertEquals(7, acme.weight());
    assertEquals(null, acme.maxConcurrent());
  }

  @Test
  void deletesATenantAnAdminCreatedAndRefusesDefaultAndConfiguredOnes() {
    set(new TenantSpec("beta", 1, null, null));
    var deleted =
        kit.<Deleted>runCommand(replyTo -> new TenantDirectory.DeleteTenant("beta", replyTo));
    assertEquals(Outcome.DELETED, deleted.reply().outcome());
    assertInstanceOf(TenantDeleted.class, deleted.event());
    assertFalse(listing().table().exists("beta"));
    assertEquals(Outcome.NOT_FOUND, delete("beta"));
    assertEquals(Outcome.DEFAULT, delete("default"));
    assertEquals(Outcome.CONFIGURED, delete("acme"));
    assertTrue(listing().table().exists("acme"));
  }

  @Test
  void publishesTheTableAfterRecovery() {
    set(new TenantSpec("beta", 4, null, null));
    kit.restart();
    published.fishForMessage(
        Duration.ofSeconds(5),
        l ->
            l.table().exists("beta") && l.revision() == 1 && l.tenants().size() == 3
                ? org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.complete()
                : org.apache.pekko.actor.testkit.typed.javadsl.FishingOutcomes.continueAndIgnore());
  }

  @Test
  void messagesThatCrossNodesOrAreStoredSurviveSerialization() {
    var serialization = TEST_KIT.serializationTestKit();
    TestProbe<Object> probe = TEST_KIT.createTestProbe();
    TenantSpec spec = new TenantSpec("acme", 3, 10, null);
    Instant at = Instant.parse("2026-11-27T00:00:00Z");
    for (Object message :
        List.of(
            new TenantDirectory.SetTenant(spec, probe.ref().narrow()),
            new TenantDirectory.DeleteTenant("acme", probe.ref().narrow()),
            new TenantDirectory.GetTenants(probe.ref().narrow()),
            new Listing(4, List.of(spec, TenantSpec.plain("default"))),
            new Stored(spec, true),
            new Deleted(Outcome.CONFIGURED),
            new TenantSet("acme", 3, 10, null, at),
            new TenantDeleted("acme", at),
            new State(Map.of("acme", spec), 2),
            new TenantSharesView(
                58.5, List.of(new TenantSharesView.Share("acme", 3, 12, 34.0, 0.7, 0.75, 1))))) {
      serialization.verifySerialization(message, true);
    }
  }

  @Test
  void theFollowerAppliesWhatTheDirectoryPublishesToTheNodesTable() {
    ActorTestKit node =
        ActorTestKit.create(
            "TenantFollowerTest",
            EventSourcedBehaviorTestKit.config().withFallback(ConfigFactory.load()));
    try {
      ActorRef<Topic.Command<Listing>> topic =
          node.spawn(Topic.create(Listing.class, "tenants-follower"));
      TestProbe<Command> directory = node.createTestProbe();
      TenantTables tables = TenantTables.get(node.system());
      RotaMetrics metrics = RotaMetrics.get(node.system());
      node.spawn(TenantFollower.behavior(directory.ref(), topic, tables, metrics));
      // At start the follower asks the directory; its answer is applied.
      var ask = directory.expectMessageClass(TenantDirectory.GetTenants.class);
      ask.replyTo().tell(new Listing(3, List.of(new TenantSpec("acme", 2, null, null))));
      node.createTestProbe()
          .awaitAssert(
              () -> {
                assertEquals(2, tables.current().specOf("acme").weight());
                return null;
              });
      assertEquals("acme", metrics.tenants().label("acme"));
      assertEquals(TenantMeters.OTHER, metrics.tenants().label("stranger"));
      // A publication is applied; an older listing (a late answer) is not.
      node.createTestProbe()
          .awaitAssert(
              () -> {
                topic.tell(
                    Topic.publish(new Listing(5, List.of(new TenantSpec("acme", 9, null, null)))));
                assertEquals(9, tables.current().specOf("acme").weight());
                return null;
              });
      ask.replyTo().tell(new Listing(4, List.of(new TenantSpec("acme", 1, null, null))));
      directory.expectNoMessage(Duration.ofMillis(300));
      assertEquals(9, tables.current().specOf("acme").weight());
    } finally {
      node.shutdownTestKit();
    }
  }
}

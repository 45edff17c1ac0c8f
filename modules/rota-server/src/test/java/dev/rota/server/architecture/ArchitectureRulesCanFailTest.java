package dev.rota.server.architecture;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * Each architecture rule, run on fixture classes that break it, reports the break: a rule that
 * cannot fail would pass {@link ArchitectureTest} whatever the code does. The fixture packages
 * mirror Rota's under {@value #ROOT}.
 */
class ArchitectureRulesCanFailTest {

  static final String ROOT = "dev.rota.server.architecture.fixture";

  private static final JavaClasses FIXTURES = new ClassFileImporter().importPackages(ROOT);

  @Test
  void aModuleImportingAModuleAboveItFails() {
    assertViolation(
        ArchitectureRules.modules(ROOT, true),
        "fixture.core.CoreUsesServer",
        "fixture.server.Node");
  }

  @Test
  void aClusterPackageImportingAPackageAboveItFails() {
    assertViolation(
        ArchitectureRules.clusterPackages(ROOT, true),
        "fixture.cluster.metrics.MetricsUsesAgent",
        "fixture.cluster.agent.Agent");
  }

  @Test
  void theClusterKernelImportingAPackageFails() {
    assertViolation(
        ArchitectureRules.clusterPackages(ROOT, true),
        "fixture.cluster.Kernel",
        "fixture.cluster.agent.Agent");
  }

  @Test
  void anApiRecordImportingTheRoutesFails() {
    assertViolation(
        ArchitectureRules.httpPackages(ROOT, true),
        "fixture.http.api.RecordUsesRoutes",
        "fixture.http.Routes");
  }

  @Test
  void aPackageCycleFails() {
    assertViolation(
        ArchitectureRules.noPackageCycles(ROOT),
        "fixture.core.model.Value",
        "fixture.core.scheduling.Rank");
  }

  @Test
  void theJournalImportingADomainPackageFails() {
    assertViolation(
        ArchitectureRules.journalKnowsNoDomain(ROOT),
        "fixture.cluster.journal.JournalUsesAgent",
        "fixture.cluster.agent.Agent");
  }

  @Test
  void theJournalImportingStorageOnlyPasses() {
    JavaClasses clean =
        new ClassFileImporter()
            .importPackages(ROOT + ".cluster.journal.clean", ROOT + ".cluster.agent");
    EvaluationResult result = ArchitectureRules.journalKnowsNoDomain(ROOT).evaluate(clean);
    assertFalse(result.hasViolation(), result.getFailureReport().toString());
  }

  private static void assertViolation(ArchRule rule, String origin, String target) {
    EvaluationResult result = rule.evaluate(FIXTURES);
    String report = result.getFailureReport().toString();
    assertTrue(result.hasViolation(), "no violation reported by: " + rule.getDescription());
    assertTrue(
        report.contains(origin) && report.contains(target),
        "the report names neither " + origin + " nor " + target + ":\n" + report);
  }
}

package dev.rota.server.architecture;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * Rota's main code against its architecture (decision 78). rota-server sees the main classes of
 * core, cluster, http and itself, so the rules run here; rota-client and rota-cli check theirs in
 * their modules.
 */
@AnalyzeClasses(packages = "dev.rota", importOptions = ArchitectureTest.MainCodeOnly.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule modulesImportOnlyTheModulesBelow =
      ArchitectureRules.modules("dev.rota", false);

  @ArchTest
  static final ArchRule clusterPackagesImportOnlyThePackagesBelow =
      ArchitectureRules.clusterPackages("dev.rota", false);

  @ArchTest
  static final ArchRule httpPackagesImportOnlyThePackagesBelow =
      ArchitectureRules.httpPackages("dev.rota", false);

  @ArchTest
  static final ArchRule packagesHaveNoCycles = ArchitectureRules.noPackageCycles("dev.rota");

  @ArchTest
  static final ArchRule journalImportsNoDomainPackage =
      ArchitectureRules.journalKnowsNoDomain("dev.rota");

  /** Classes compiled from src/main: not test classes, not test jars of other modules. */
  static final class MainCodeOnly implements ImportOption {
    @Override
    public boolean includes(Location location) {
      return !location.contains("/test-classes/") && !location.contains("-tests.jar");
    }
  }
}

package dev.rota.client.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The client speaks to Rota over HTTP only: its main code imports no server module, so it runs
 * beside any server version that keeps the contract (decision 78). Its tests may start a server.
 */
@AnalyzeClasses(packages = "dev.rota.client", importOptions = ImportOption.DoNotIncludeTests.class)
class ClientArchitectureTest {

  @ArchTest
  static final ArchRule clientImportsNoServerModule =
      noClasses()
          .that()
          .resideInAPackage("dev.rota.client..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.rota.core..", "dev.rota.cluster..", "dev.rota.http..", "dev.rota.server..");
}

package dev.rota.cli.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The command line is a client of the HTTP API: its main code imports the client and no server
 * module (decision 78). Its tests may start a server.
 */
@AnalyzeClasses(packages = "dev.rota.cli", importOptions = ImportOption.DoNotIncludeTests.class)
class CliArchitectureTest {

  @ArchTest
  static final ArchRule cliImportsNoServerModule =
      noClasses()
          .that()
          .resideInAPackage("dev.rota.cli..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(
              "dev.rota.core..", "dev.rota.cluster..", "dev.rota.http..", "dev.rota.server..");
}

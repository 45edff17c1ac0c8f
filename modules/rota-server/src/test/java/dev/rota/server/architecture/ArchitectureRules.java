package dev.rota.server.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.List;

/**
 * The architecture of Rota's main code as rules over a root package: {@code dev.rota} for the
 * product, a fixture package for the tests that show each rule can fail. The layers are drawn in
 * docs/architecture.md and argued in docs/decisions.md (decision 78).
 */
final class ArchitectureRules {
  private ArchitectureRules() {}

  /** Rota-cluster's packages, lowest first: each may import only the ones before it. */
  static final List<String> CLUSTER_LAYERS =
      List.of(
          "kernel",
          "metrics",
          "system",
          "health",
          "tenant",
          "journal",
          "agent",
          "assign",
          "readmodel",
          "rescue",
          "runner",
          "pool",
          "wiring");

  /** What the journal, a storage plugin, must not know: the domain it stores events of. */
  static final List<String> DOMAIN =
      List.of("cluster.agent", "cluster.assign", "cluster.readmodel");

  /**
   * The modules, lowest first: core imports no other module, cluster only core, http only cluster
   * and core, server any of them.
   */
  static ArchRule modules(String root, boolean optionalLayers) {
    return layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .withOptionalLayers(optionalLayers)
        .layer("core")
        .definedBy(root + ".core..")
        .layer("cluster")
        .definedBy(root + ".cluster..")
        .layer("http")
        .definedBy(root + ".http..")
        .layer("server")
        .definedBy(root + ".server..")
        .whereLayer("core")
        .mayNotAccessAnyLayer()
        .whereLayer("cluster")
        .mayOnlyAccessLayers("core")
        .whereLayer("http")
        .mayOnlyAccessLayers("cluster", "core")
        .whereLayer("server")
        .mayOnlyAccessLayers("http", "cluster", "core");
  }

  /**
   * Rota-cluster's packages in the order of {@link #CLUSTER_LAYERS}. The root package holds two
   * things told apart by name: {@code RotaCluster}, which wires every package and sits on top, and
   * the kernel every package uses ({@code CborSerializable}, {@code Asks}, {@code ClusterAsk}),
   * which sits at the bottom.
   */
  static ArchRule clusterPackages(String root, boolean optionalLayers) {
    String cluster = root + ".cluster";
    DescribedPredicate<JavaClass> wiring = inClass(cluster + ".RotaCluster");
    LayeredArchitecture layers =
        layeredArchitecture()
            .consideringOnlyDependenciesInLayers()
            .withOptionalLayers(optionalLayers)
            .layer("kernel")
            .definedBy(inPackageOnly(cluster).and(DescribedPredicate.not(wiring)))
            .layer("wiring")
            .definedBy(wiring);
    for (String name : CLUSTER_LAYERS) {
      if (!name.equals("kernel") && !name.equals("wiring")) {
        layers = layers.layer(name).definedBy(cluster + "." + name + "..");
      }
    }
    layers = layers.whereLayer(CLUSTER_LAYERS.get(0)).mayNotAccessAnyLayer();
    for (int i = 1; i < CLUSTER_LAYERS.size(); i++) {
      layers =
          layers
              .whereLayer(CLUSTER_LAYERS.get(i))
              .mayOnlyAccessLayers(CLUSTER_LAYERS.subList(0, i).toArray(String[]::new));
    }
    return layers;
  }

  /**
   * Rota-http's root package holds the routes and, at the bottom, the error every layer throws
   * ({@code ApiException} and its {@code ApiError}); the wire records of {@code api} sit between.
   */
  static ArchRule httpPackages(String root, boolean optionalLayers) {
    String http = root + ".http";
    DescribedPredicate<JavaClass> errors =
        inClass(http + ".ApiException").or(inClass(http + ".ApiError"));
    return layeredArchitecture()
        .consideringOnlyDependenciesInLayers()
        .withOptionalLayers(optionalLayers)
        .layer("errors")
        .definedBy(errors)
        .layer("api")
        .definedBy(http + ".api..")
        .layer("routes")
        .definedBy(inPackageOnly(http).and(DescribedPredicate.not(errors)))
        .whereLayer("errors")
        .mayNotAccessAnyLayer()
        .whereLayer("api")
        .mayOnlyAccessLayers("errors")
        .whereLayer("routes")
        .mayOnlyAccessLayers("api", "errors");
  }

  /**
   * No cycle between the packages below a module's root. A root package's own classes are placed by
   * {@link #clusterPackages} and {@link #httpPackages}, which leave them no way into a cycle.
   */
  static ArchRule noPackageCycles(String root) {
    return slices().matching(root + ".(*).(*)..").should().beFreeOfCycles();
  }

  /** The journal stores events as bytes and knows nothing of the domain that wrote them. */
  static ArchRule journalKnowsNoDomain(String root) {
    String[] domain = DOMAIN.stream().map(p -> root + "." + p + "..").toArray(String[]::new);
    String[] forbidden = new String[domain.length + 1];
    System.arraycopy(domain, 0, forbidden, 0, domain.length);
    forbidden[domain.length] = root + ".core..";
    return noClasses()
        .that()
        .resideInAPackage(root + ".cluster.journal..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(forbidden)
        .because("the journal is a storage plugin; the read model plugs into it, not the reverse");
  }

  /** A class, the classes nested in it, and arrays of them. */
  private static DescribedPredicate<JavaClass> inClass(String name) {
    return DescribedPredicate.describe(
        name,
        c -> {
          String base = c.getBaseComponentType().getName();
          return base.equals(name) || base.startsWith(name + "$");
        });
  }

  /** The classes of exactly this package, not of its sub-packages. */
  private static DescribedPredicate<JavaClass> inPackageOnly(String packageName) {
    return DescribedPredicate.describe(
        "in package " + packageName,
        c -> c.getBaseComponentType().getPackageName().equals(packageName));
  }
}

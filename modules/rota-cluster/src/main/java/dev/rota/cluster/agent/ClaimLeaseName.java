package dev.rota.cluster.agent;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.pekko.serialization.jackson.JacksonMigration;

/**
 * Reads the agent's claim command sent under {@code AgentEntity$ClaimLease}, the name the next
 * release gives {@link AgentEntity.Claim}: the manifest of a message between nodes is its class
 * name, so a node of this release must know the new name before any node sends it (decision 133).
 * Registered in this module's {@code reference.conf}; the fields are the same under both names.
 */
public final class ClaimLeaseName extends JacksonMigration {
  /** Above the version 1 of a manifest without one, so that the class name is always rewritten. */
  @Override
  public int currentVersion() {
    return 2;
  }

  @Override
  public String transformClassName(int fromVersion, String className) {
    return AgentEntity.Claim.class.getName();
  }

  @Override
  public JsonNode transform(int fromVersion, JsonNode json) {
    return json;
  }
}

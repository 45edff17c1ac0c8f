package dev.rota.cluster.journal;

import java.util.List;
import org.apache.pekko.persistence.PersistentRepr;
import org.apache.pekko.persistence.journal.Tagged;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;
import scala.jdk.javaapi.CollectionConverters;

/**
 * One event ready for its {@code event_journal} row: serialized, with its tags, and the event
 * object itself for the read model's sink.
 */
record EventRow(
    String persistenceId,
    long sequenceNr,
    String writer,
    long timestamp,
    String adapterManifest,
    byte[] payload,
    int serializerId,
    String serializerManifest,
    byte[] metaPayload,
    Integer metaSerializerId,
    String metaManifest,
    List<String> tags,
    Object event) {

  /** Serializes one persisted event; throws if it (or its metadata) cannot be. */
  static EventRow of(PersistentRepr repr, Serialization serialization) {
    Object payload = repr.payload();
    List<String> tags = List.of();
    if (payload instanceof Tagged tagged) {
      payload = tagged.payload();
      tags = List.copyOf(CollectionConverters.asJava(tagged.tags()));
    }
    Serializer serializer = serialization.findSerializerFor(payload);
    byte[] bytes = serializer.toBinary(payload);
    byte[] metaBytes = null;
    Integer metaId = null;
    String metaManifest = null;
    if (repr.metadata().isDefined()) {
      Object meta = repr.metadata().get();
      Serializer metaSerializer = serialization.findSerializerFor(meta);
      metaBytes = metaSerializer.toBinary(meta);
      metaId = metaSerializer.identifier();
      metaManifest = Serializers.manifestFor(metaSerializer, meta);
    }
    return new EventRow(
        repr.persistenceId(),
        repr.sequenceNr(),
        repr.writerUuid(),
        repr.timestamp() > 0 ? repr.timestamp() : System.currentTimeMillis(),
        repr.manifest(),
        bytes,
        serializer.identifier(),
        Serializers.manifestFor(serializer, payload),
        metaBytes,
        metaId,
        metaManifest,
        tags,
        payload);
  }

  ReadModelSink.Persisted persisted() {
    return new ReadModelSink.Persisted(persistenceId, sequenceNr, event);
  }
}

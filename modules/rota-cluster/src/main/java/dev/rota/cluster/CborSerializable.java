package dev.rota.cluster;

/**
 * Marker for every message and event that is stored or crosses nodes; bound to Jackson CBOR once in
 * this module's {@code reference.conf}.
 */
public interface CborSerializable {}

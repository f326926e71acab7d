package io.github.shardtenancy.boot.isoapp;

/**
 * What a transaction's statement saw of its H2 session.
 * @param session the H2 session id (the same id means the same pooled connection)
 * @param isolation the session's isolation level, as H2 reports it (e.g. {@code SERIALIZABLE})
 */
public record Seen(int session, String isolation) {

}

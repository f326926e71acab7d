/**
 * Micrometer observations (tracing spans and timers) of the retried units of work, their attempts and the steps of
 * tenant moves, through the core's observer SPI.
 */
package io.github.shardtenancy.micrometer.observation;

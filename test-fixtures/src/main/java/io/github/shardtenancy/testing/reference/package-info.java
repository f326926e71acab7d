/** The reference-table tests' domain: pet types (reference data) and pets (tenant data referencing them). */
@NullMarked
package io.github.shardtenancy.testing.reference;

import org.jspecify.annotations.NullMarked;

/**
 * The entity check's test domain ({@code io.github.shardtenancy.EntityCheck}): one entity of each kind the check tells
 * apart, on tables {@code ec_note}, {@code ec_leaky_note}, {@code ec_pet_type} and {@code ec_country}.
 */
@NullMarked
package io.github.shardtenancy.testing.entities;

import org.jspecify.annotations.NullMarked;

/**
 * Implementation. Never imported by applications or by the other modules' main code; nothing here appears in
 * a public signature of the API or SPI packages. May change in any release.
 */
@NullMarked
package io.github.shardtenancy.internal;

import org.jspecify.annotations.NullMarked;

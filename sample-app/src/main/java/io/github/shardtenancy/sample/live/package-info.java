/**
 * The live page ({@code /live}): moves started from a browser, with the writes they meet.
 */
@NullMarked
package io.github.shardtenancy.sample.live;

import org.jspecify.annotations.NullMarked;

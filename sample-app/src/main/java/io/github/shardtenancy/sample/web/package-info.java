/**
 * The REST API and the mapping of the library's exceptions to HTTP answers.
 */
@NullMarked
package io.github.shardtenancy.sample.web;

import org.jspecify.annotations.NullMarked;

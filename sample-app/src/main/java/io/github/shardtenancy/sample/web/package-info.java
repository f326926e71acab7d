/**
 * The REST API (tenant from the {@code X-Tenant-Id} header), the server-rendered order pages (tenant from the path)
 * and the sample's own errors as HTTP answers.
 */
@NullMarked
package io.github.shardtenancy.sample.web;

import org.jspecify.annotations.NullMarked;

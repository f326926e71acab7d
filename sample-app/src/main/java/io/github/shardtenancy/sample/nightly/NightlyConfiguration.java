package io.github.shardtenancy.sample.nightly;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;

/** Turns on {@code @Scheduled} for {@link NightlyOrderCount}, only when {@code sample.nightly.enabled=true}. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("sample.nightly.enabled")
@EnableScheduling
class NightlyConfiguration {

}

package io.github.shardtenancy.boot;

import java.time.Duration;

import io.github.shardtenancy.InstanceSettings;
import io.github.shardtenancy.ShardTenancyConfigurationException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code shard-tenancy.instances.*} to {@link InstanceSettings}: defaults as the core's, out-of-range values named. */
class InstancesPropertiesTests {

	@Test
	@DisplayName("the defaults are the core's (a generated id), a blank id means generated")
	void defaults() {
		InstancesProperties properties = new InstancesProperties();
		assertThat(properties.toSettings()).isEqualTo(InstanceSettings.defaults());
		properties.setId(" ");
		assertThat(properties.toSettings().instanceId()).isNull();
	}

	@Test
	@DisplayName("gone-after not longer than the heartbeat interval fails naming the property and the remedy")
	void goneAfterTooShort() {
		InstancesProperties properties = new InstancesProperties();
		properties.setGoneAfter(Duration.ofSeconds(5));
		assertThatThrownBy(properties::toSettings).isInstanceOf(ShardTenancyConfigurationException.class)
			.hasMessageContaining("goneAfter (PT5S)")
			.hasMessageContaining("gone-after longer than heartbeat-interval")
			.extracting((ex) -> ((ShardTenancyConfigurationException) ex).setting())
			.isEqualTo("shard-tenancy.instances");
	}

}

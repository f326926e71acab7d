package io.github.shardtenancy.postgresql;

import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

@DisplayName("Directory notification payloads")
class DirectoryNotificationTest {

	@Test
	@DisplayName("a payload with an entry gives that entry at the notified version")
	void payloadWithAnEntryIsParsed() {
		assertThat(DirectoryNotification.parse("42/acme:eu-1/shard-2/MIGRATING/7/shard-3")).contains(
				new DirectoryNotification(42, new DirectoryEntry("acme:eu-1", "shard-2", TenantState.MIGRATING,
						"shard-3", 7, 42)));
		assertThat(DirectoryNotification.parse("43/acme/shard-2/ACTIVE/8/")).contains(new DirectoryNotification(43,
				new DirectoryEntry("acme", "shard-2", TenantState.ACTIVE, null, 8, 43)));
	}

	@Test
	@DisplayName("a bare version is a notification without an entry")
	void bareVersionHasNoEntry() {
		assertThat(DirectoryNotification.parse(" 17 ")).contains(new DirectoryNotification(17, null));
	}

	@Test
	@DisplayName("anything else is unreadable, so that the watcher reads the directory instead")
	void malformedPayloadsAreUnreadable() {
		assertThat(DirectoryNotification.parse(null)).isEmpty();
		assertThat(DirectoryNotification.parse("")).isEmpty();
		assertThat(DirectoryNotification.parse("-1")).isEmpty();
		assertThat(DirectoryNotification.parse("v42")).isEmpty();
		assertThat(DirectoryNotification.parse("42/acme/shard/with/slash/ACTIVE/1/")).isEmpty();
		assertThat(DirectoryNotification.parse("42/bad tenant/shard-1/ACTIVE/1/")).isEmpty();
		assertThat(DirectoryNotification.parse("42/acme/shard-1/SLEEPING/1/")).isEmpty();
		assertThat(DirectoryNotification.parse("42/acme/shard-1/ACTIVE/0/")).isEmpty();
		assertThat(DirectoryNotification.parse("42/acme//ACTIVE/1/")).isEmpty();
		assertThat(DirectoryNotification.parse("42/acme/shard-1/ACTIVE/x/")).isEmpty();
	}

}

package io.github.shardtenancy.sample;

import io.github.shardtenancy.sample.demo.DemoReport;
import io.github.shardtenancy.sample.demo.OrdersDemo;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The demo, shortened: writers and a mover with its own router on three real H2 shards, then every shard read back.
 * The application's router syncs only every 30 s here, so it learns of the mover's moves only through the fence's
 * rejections, as a second application instance would.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.NONE, properties = {
		"shard-tenancy.directory.url=jdbc:h2:mem:demo-test-directory;DB_CLOSE_DELAY=-1",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:demo-test-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:demo-test-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-3.url=jdbc:h2:mem:demo-test-shard-3;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.sync.interval=30s", "sample.seed.tenants=6", "demo.duration=3s", "demo.writers=4",
		"demo.move-pause=100ms" })
class DemoRunTest {

	@Autowired
	OrdersDemo demo;

	@Test
	@DisplayName("writers racing a mover lose, duplicate and misplace nothing, and stale routes are retried to a commit")
	void writersRacingMoverLoseNothingAndStaleRoutesAreRetried() throws InterruptedException {
		DemoReport report = this.demo.run();
		System.out.println(report.render());

		assertThat(report.moves()).as("moves done").isNotEmpty();
		assertThat(report.committed()).as("committed writer calls").isPositive();
		assertThat(report.lost()).as("committed orders missing on the owner").isZero();
		assertThat(report.duplicated()).as("order ids on more than one shard or twice").isZero();
		assertThat(report.misplaced()).as("rows on a shard that does not own their tenant").isZero();
		assertThat(report.unexpected()).as("rows no writer saw committed").isZero();
		assertThat(report.staleRejections()).as("stale-route fence rejections").isPositive();
		assertThat(report.staleRetriedToSuccess()).as("calls committed after a stale-route rejection").isPositive();
		assertThat(report.untypedFailures()).as("writer calls failing with an untyped error").isZero();
		assertThat(report.attemptsHistogram().keySet()).as("attempts per transaction").anyMatch(a -> a > 1);
		assertThat(report.narration()).contains("fence rejected it").contains("invalidated");
		assertThat(report.problems()).isEmpty();
	}

}

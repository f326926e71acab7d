package io.github.shardtenancy.sample.live;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import io.github.shardtenancy.directory.Directory;
import io.github.shardtenancy.directory.DirectoryEntry;
import io.github.shardtenancy.directory.TenantState;
import io.github.shardtenancy.topology.ShardTopology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The live page end to end: the sample app on a real server and three real H2 shards, the page in Debian's headless
 * Chromium driven by Selenium. The browser and its driver are taken from {@code /usr/bin} (packages {@code chromium}
 * and {@code chromium-driver}); Selenium Manager is never asked to fetch anything. Without them the test is skipped,
 * unless {@value #REQUIRE_BROWSER}=1 (as in CI), which makes their absence a failure.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
		"shard-tenancy.directory.url=jdbc:h2:mem:live-test-directory;DB_CLOSE_DELAY=-1",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:live-test-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:live-test-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-3.url=jdbc:h2:mem:live-test-shard-3;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"sample.seed.tenants=9", "shard-tenancy.move.clean-delay=1s" })
@DisplayName("the live page in headless Chromium")
class LivePageBrowserTest {

	static final Path CHROMIUM = Path.of("/usr/bin/chromium");

	static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

	static final String REQUIRE_BROWSER = "SHARD_TENANCY_REQUIRE_BROWSER";

	static final String TENANT = "tenant-01";

	/** Pause after each step of the move before its flip: the freeze lasts at least this long. */
	static final int STEP_PAUSE_MS = 500;

	@LocalServerPort
	int port;

	@Autowired
	Directory directory;

	@Autowired
	ShardTopology topology;

	private Path profile;

	private ChromeDriverService service;

	private WebDriver browser;

	@BeforeAll
	static void browserIsInstalled() {
		boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
		String reason = "Headless Chromium not found at " + CHROMIUM + " and " + CHROMEDRIVER
				+ ": install the Debian packages chromium and chromium-driver (apt-get install -y chromium "
				+ "chromium-driver) to run the live page's browser test";
		if (!installed && "1".equals(System.getenv(REQUIRE_BROWSER))) {
			fail(reason + " (" + REQUIRE_BROWSER + "=1 makes this a failure)");
		}
		assumeTrue(installed, reason + "; skipped");
	}

	@BeforeEach
	void startBrowser() throws IOException {
		System.setProperty(ChromeDriverService.CHROME_DRIVER_EXE_PROPERTY, CHROMEDRIVER.toString());
		this.profile = Files.createTempDirectory("live-page-chromium-");
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM.toFile());
		options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--user-data-dir=" + this.profile, "--window-size=1400,1300");
		this.service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.usingAnyFreePort()
			.build();
		this.browser = new ChromeDriver(this.service, options);
	}

	@AfterEach
	void stopBrowser() throws IOException {
		try {
			if (this.browser != null) {
				this.browser.quit();
			}
		}
		finally {
			if (this.service != null) {
				this.service.stop();
			}
			if (this.profile != null) {
				try (Stream<Path> files = Files.walk(this.profile)) {
					files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
				}
			}
		}
	}

	@Test
	@DisplayName("a move started on the page shows the tenant under its new shard, and the burst writing through "
			+ "the move is rejected by the freeze, retried and loses nothing")
	void moveStartedOnThePageShowsTenantUnderNewShardAndBurstIsRetriedThroughIt() throws IOException {
		DirectoryEntry before = this.directory.find(TENANT).orElseThrow();
		String source = before.shardId();
		String target = this.topology.shardIds().stream().filter(s -> !s.equals(source)).findFirst().orElseThrow();

		this.browser.get("http://localhost:" + this.port + "/live");
		waitUpTo(Duration.ofSeconds(30)).until(d -> polls() > 0);
		assertThat(text("directory-version")).isEqualTo(String.valueOf(this.directory.currentVersion()));
		assertThat(tenantUnder(source)).as("%s listed under its owner %s", TENANT, source).isNotEmpty();
		assertThat(tenantUnder(target)).isEmpty();
		long attemptsBefore = number("count-attempts");
		long retriesBefore = number("count-retries");
		assertThat(number("count-rejections")).as("fence rejections before anything ran").isZero();

		// A burst of writers for the tenant, long enough to outlast the move.
		new Select(element("burst-tenant")).selectByValue(TENANT);
		type("burst-threads", "4");
		type("burst-orders", "20000");
		element("burst-start").click();
		waitUpTo(Duration.ofSeconds(30)).until(d -> burstCommitted() > 0);

		// The move, from the page's control.
		new Select(element("move-tenant")).selectByValue(TENANT);
		new Select(element("move-target")).selectByValue(target);
		type("move-pause", String.valueOf(STEP_PAUSE_MS));
		element("move-start").click();

		waitUpTo(Duration.ofSeconds(120)).until(d -> tenantUnder(target).stream()
			.anyMatch(li -> "ACTIVE".equals(li.getAttribute("data-state"))));
		assertThat(tenantUnder(source)).as("%s no longer listed under %s", TENANT, source).isEmpty();
		assertThat(burstRunning()).as("burst writers still running after the flip, so they wrote through the freeze")
			.isPositive();
		waitUpTo(Duration.ofSeconds(30)).until(d -> rejections("FROZEN") > 0 && number("count-retries") > retriesBefore);
		assertThat(number("count-attempts")).isGreaterThan(attemptsBefore);
		assertThat(moveStep()).isIn("FLIPPED", "DONE");
		assertThat(Long.parseLong(text("directory-version"))).isGreaterThan(before.version());
		screenshot(Path.of("target", "live-page.png"));

		// The page's stop control ends the burst; the move's clean-up removes the source's rows.
		element("burst-stop").click();
		waitUpTo(Duration.ofSeconds(60)).until(d -> burstRunning() == 0 && "DONE".equals(moveStep()));
		// A failed order must be a typed give-up, never an untyped error. Known: a writer that waited out the freeze
		// beyond retry.max-attempts is given up at the stale MOVED rejection right after the flip, so a few orders can
		// end in RetriesExhaustedException (reported to the caller, nothing written).
		assertThat(burstFailureTypes()).as("types of the burst's failed orders")
			.allMatch("RetriesExhaustedException"::equals);

		DirectoryEntry after = this.directory.find(TENANT).orElseThrow();
		assertThat(after.shardId()).isEqualTo(target);
		assertThat(after.state()).isEqualTo(TenantState.ACTIVE);
		long committed = burstCommitted();
		assertThat(ordersOn(target)).as("orders of %s on %s", TENANT, target).isEqualTo(committed);
		assertThat(ordersOn(source)).as("orders of %s left on %s", TENANT, source).isZero();
		waitUpTo(Duration.ofSeconds(10)).until(d -> copyUnder(source).isEmpty());
	}

	private WebDriverWait waitUpTo(Duration timeout) {
		WebDriverWait wait = new WebDriverWait(this.browser, timeout, Duration.ofMillis(100));
		wait.ignoring(org.openqa.selenium.StaleElementReferenceException.class);
		wait.ignoring(NumberFormatException.class);
		return wait;
	}

	private WebElement element(String id) {
		return this.browser.findElement(By.id(id));
	}

	private String text(String id) {
		return element(id).getText().trim();
	}

	private long number(String id) {
		return Long.parseLong(text(id));
	}

	private void type(String id, String value) {
		WebElement input = element(id);
		input.clear();
		input.sendKeys(value);
	}

	private long polls() {
		return Long.parseLong(this.browser.findElement(By.tagName("body")).getAttribute("data-polls"));
	}

	private List<WebElement> tenantUnder(String shard) {
		return this.browser
			.findElements(By.cssSelector(".shard[data-shard='" + shard + "'] li[data-tenant='" + TENANT + "']"));
	}

	private List<WebElement> copyUnder(String shard) {
		return this.browser
			.findElements(By.cssSelector(".shard[data-shard='" + shard + "'] li[data-copy='" + TENANT + "']"));
	}

	private long rejections(String reason) {
		List<WebElement> badge = this.browser.findElements(By.cssSelector("#rejections [data-reason='" + reason + "'] b"));
		return badge.isEmpty() ? 0 : Long.parseLong(badge.get(0).getText().trim());
	}

	private WebElement burstRow() {
		return this.browser.findElement(By.cssSelector("#bursts tbody tr[data-tenant='" + TENANT + "']"));
	}

	private long burstCommitted() {
		return Long.parseLong(burstRow().findElement(By.className("committed")).getText().trim());
	}

	private List<String> burstFailureTypes() {
		String title = burstRow().findElement(By.className("failed")).getAttribute("title");
		return (title == null || title.isBlank()) ? List.of()
				: Stream.of(title.split(", ")).map(entry -> entry.substring(0, entry.indexOf(':'))).toList();
	}

	private long burstRunning() {
		return Long.parseLong(burstRow().getAttribute("data-running"));
	}

	private String moveStep() {
		return this.browser.findElement(By.cssSelector("#moves tbody tr[data-tenant='" + TENANT + "']"))
			.getAttribute("data-step");
	}

	private long ordersOn(String shard) {
		try (Connection c = this.topology.shard(shard).dataSource().getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM orders WHERE tenant_id = ?")) {
			ps.setString(1, TENANT);
			try (ResultSet rs = ps.executeQuery()) {
				rs.next();
				return rs.getLong(1);
			}
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void screenshot(Path file) throws IOException {
		Files.createDirectories(file.toAbsolutePath().getParent());
		Files.write(file, ((TakesScreenshot) this.browser).getScreenshotAs(OutputType.BYTES));
	}

}

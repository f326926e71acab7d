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

import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.DirectoryEntry;
import io.github.shardtenancy.TenantState;
import io.github.shardtenancy.ShardTopology;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
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

/**
 * The live page and the server-rendered order pages end to end: the sample app on a real server and three real H2
 * shards, the pages in Debian's headless Chromium driven by Selenium. The browser and its driver are taken from
 * {@code /usr/bin} (packages {@code chromium} and {@code chromium-driver}); Selenium Manager is never asked to fetch
 * anything. Without them the test is skipped (disabled, with the reason), unless {@value #REQUIRE_BROWSER}=1 (as in
 * CI), which makes their absence a failure.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
		"shard-tenancy.directory.url=jdbc:h2:mem:live-test-directory;DB_CLOSE_DELAY=-1",
		"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:live-test-shard-1;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:live-test-shard-2;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"shard-tenancy.shards.shard-3.url=jdbc:h2:mem:live-test-shard-3;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000",
		"sample.seed.tenants=9", "shard-tenancy.move.clean-delay=1s" })
@DisplayName("the live page in headless Chromium")
class LivePageBrowserTest {

	/** Debian's Chromium; the system property {@code live-test.chromium} names another. */
	static final Path CHROMIUM = Path.of(System.getProperty("live-test.chromium", "/usr/bin/chromium"));

	/** Debian's ChromeDriver; the system property {@code live-test.chromedriver} names another. */
	static final Path CHROMEDRIVER = Path.of(System.getProperty("live-test.chromedriver", "/usr/bin/chromedriver"));

	static final String REQUIRE_BROWSER = "SHARD_TENANCY_REQUIRE_BROWSER";

	static final String BROWSER_MISSING = "Headless Chromium not found (Debian's packages chromium and "
			+ "chromium-driver: /usr/bin/chromium, /usr/bin/chromedriver): the live page's browser test is skipped; "
			+ "install them with apt-get install -y chromium chromium-driver. With " + REQUIRE_BROWSER
			+ "=1 a missing browser fails the test instead";

	static final String TENANT = "tenant-01";

	/** Pause after each step of the move before its flip: the freeze lasts at least this long. */
	static final int STEP_PAUSE_MS = 500;

	/** Milliseconds each burst writer waits after each order. */
	static final int BURST_PAUSE_MS = 10;

	@LocalServerPort
	int port;

	@Autowired
	TenantAdmin directory;

	@Autowired
	ShardTopology topology;

	private Path profile;

	private ChromeDriverService service;

	private WebDriver browser;

	static boolean browserInstalled() {
		return Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
	}

	@BeforeAll
	static void browserIsInstalledWhenRequired() {
		if (!browserInstalled() && "1".equals(System.getenv(REQUIRE_BROWSER))) {
			fail("Headless Chromium not found at " + CHROMIUM + " and " + CHROMEDRIVER + ", and " + REQUIRE_BROWSER
					+ "=1: install the Debian packages chromium and chromium-driver");
		}
	}

	@BeforeEach
	void startBrowser() throws IOException {
		// both paths given: Selenium Manager is not asked to find (or download) a browser or driver
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
	@EnabledIf(value = "browserInstalled", disabledReason = BROWSER_MISSING)
	@DisplayName("a move started on the page shows the tenant under its new shard, and the burst writing through "
			+ "the move is rejected by the freeze, retried and loses nothing; the timeline shades the freeze window")
	void moveStartedOnThePageShowsTenantUnderNewShardAndBurstIsRetriedThroughIt() throws IOException {
		DirectoryEntry before = this.directory.find(TENANT).orElseThrow();
		String source = before.shardId();
		String target = this.topology.shardIds().stream().filter(s -> !s.equals(source)).findFirst().orElseThrow();

		this.browser.get("http://localhost:" + this.port + "/live");
		waitUpTo(Duration.ofSeconds(30)).until(d -> polls() > 0);
		long directoryVersion = this.directory.snapshot((entry) -> {
		});
		assertThat(text("directory-version")).isEqualTo(String.valueOf(directoryVersion));
		assertThat(tenantState(source)).as("%s listed under its owner %s", TENANT, source).isEqualTo("ACTIVE");
		assertThat(tenantState(target)).isNull();
		long attemptsBefore = number("count-attempts");
		long retriesBefore = number("count-retries");
		assertThat(number("count-rejections")).as("fence rejections before anything ran").isZero();

		// A burst of writers for the tenant that outlasts the move (the page's maximum per thread; the test stops it
		// with the page's control once the move has flipped), paced so that the tenant does not grow by hundreds of
		// thousands of rows, which the move would copy and verify: the writers never stop, so the move freezes after
		// its last catch-up round while they are still writing.
		new Select(element("burst-tenant")).selectByValue(TENANT);
		type("burst-threads", "4");
		type("burst-orders", "1000000");
		type("burst-pause", String.valueOf(BURST_PAUSE_MS));
		element("burst-start").click();
		waitUpTo(Duration.ofSeconds(30)).until(d -> burstCommitted() > 0);

		// The move, from the page's control.
		new Select(element("move-tenant")).selectByValue(TENANT);
		new Select(element("move-target")).selectByValue(target);
		type("move-pause", String.valueOf(STEP_PAUSE_MS));
		element("move-start").click();

		waitUpTo(Duration.ofSeconds(180)).until(d -> "ACTIVE".equals(tenantState(target)));
		assertThat(tenantState(source)).as("%s no longer listed under %s", TENANT, source).isNull();
		assertThat(burstRunning()).as("burst writers still running after the flip, so they wrote through the freeze")
			.isPositive();
		waitUpTo(Duration.ofSeconds(30))
			.until(d -> rejections("FROZEN") > 0 && number("count-retries") > retriesBefore);
		assertThat(number("count-attempts")).isGreaterThan(attemptsBefore);
		assertThat(moveStep()).isIn("FLIPPED", "DONE");
		assertThat(Long.parseLong(text("directory-version"))).isGreaterThan(before.version());

		// The timeline, drawn from the endpoint's series while the burst still writes: the move's freeze window is
		// shaded on the chart of every transaction and on the tenant's own, over non-zero series.
		for (String chart : List.of("total", TENANT)) {
			String band = "svg.timeline[data-series='" + chart + "'] rect.freeze[data-tenant='" + TENANT + "']";
			// drawn open (shaded up to now) while the tenant is frozen, closed at the flip once the chart is redrawn
			waitUpTo(Duration.ofSeconds(30)).until(d -> "FLIPPED".equals(read(band, "data-ended-by")));
			long frozenAt = Long.parseLong(read(band, "data-frozen-at"));
			long endedAt = Long.parseLong(read(band, "data-ended-at"));
			assertThat(frozenAt).as("freeze before flip on chart %s", chart).isLessThan(endedAt);
			assertThat(endedAt - frozenAt).as("freeze window in ms: at least the pauses inside it")
				.isGreaterThanOrEqualTo(STEP_PAUSE_MS);
			assertThat(Double.parseDouble(read(band, "width"))).as("width of the band on chart %s", chart).isPositive();
			waitUpTo(Duration.ofSeconds(30)).until(d -> seriesSum(chart, "committed") > 0
					&& seriesSum(chart, "retries") > 0 && seriesSum(chart, "rejections") > 0);
		}
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
		waitUpTo(Duration.ofSeconds(10)).until(d -> read(shardItem(source, "data-copy"), "data-copy") == null);
	}

	@Test
	@EnabledIf(value = "browserInstalled", disabledReason = BROWSER_MISSING)
	@DisplayName("the order pages keep the tenant in the path across the form post and its redirect: the order is "
			+ "listed under that tenant only and stored on that tenant's shard only")
	void orderFormKeepsTheTenantAcrossPostAndRedirect() {
		String tenant = "tenant-05";
		String other = "tenant-06";
		String product = "form-widget-" + System.nanoTime();

		this.browser.get("http://localhost:" + this.port + "/t/" + tenant + "/orders");
		assertThat(text("title")).isEqualTo("Orders of " + tenant);
		element("new-order").click();
		waitUpTo(Duration.ofSeconds(30)).until(d -> d.getCurrentUrl().endsWith("/t/" + tenant + "/orders/new"));
		type("customer", "Form customer");
		type("product", product);
		type("quantity", "3");
		element("place").click();

		// the post answers 303 to the list; the browser follows it with a GET that names the tenant in its path only
		waitUpTo(Duration.ofSeconds(30)).until(d -> d.getCurrentUrl().endsWith("/t/" + tenant + "/orders"));
		assertThat(text("title")).isEqualTo("Orders of " + tenant);
		assertThat(listedProducts()).contains(product);
		WebElement row = this.browser.findElement(By.xpath("//tr[td[@class='product' and text()='" + product + "']]"));
		assertThat(row.findElement(By.className("quantity")).getText()).isEqualTo("3");

		this.browser.get("http://localhost:" + this.port + "/t/" + other + "/orders");
		assertThat(text("title")).isEqualTo("Orders of " + other);
		assertThat(listedProducts()).doesNotContain(product);

		String owner = this.directory.find(tenant).orElseThrow().shardId();
		for (String shard : this.topology.shardIds()) {
			assertThat(linesOn(shard, product)).as("lines of %s's form order on %s (owner %s)", tenant, shard, owner)
				.isEqualTo(shard.equals(owner) ? List.of(tenant) : List.of());
		}
	}

	private List<String> listedProducts() {
		return this.browser.findElements(By.cssSelector("#orders td.product")).stream().map(WebElement::getText).toList();
	}

	/** @return the tenant of every order line of the product on the shard, read with plain JDBC */
	private List<String> linesOn(String shard, String product) {
		try (Connection c = this.topology.dataSource(shard).getConnection();
				PreparedStatement ps = c.prepareStatement("SELECT tenant_id FROM order_lines WHERE product = ?")) {
			ps.setString(1, product);
			List<String> tenants = new java.util.ArrayList<>();
			try (ResultSet rs = ps.executeQuery()) {
				while (rs.next()) {
					tenants.add(rs.getString(1));
				}
			}
			return tenants;
		}
		catch (SQLException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private WebDriverWait waitUpTo(Duration timeout) {
		WebDriverWait wait = new WebDriverWait(this.browser, timeout, Duration.ofMillis(100));
		wait.ignoring(NumberFormatException.class);
		return wait;
	}

	private WebElement element(String id) {
		return this.browser.findElement(By.id(id));
	}

	private void type(String id, String value) {
		WebElement input = element(id);
		input.clear();
		input.sendKeys(value);
	}

	/**
	 * Reads the page in one script, so that a redraw (every poll replaces the lists) cannot pull an element away
	 * between finding and reading it.
	 * @return the attribute, or the trimmed text when {@code attribute} is {@code null}; {@code null} if no element
	 * matches
	 */
	private String read(String css, String attribute) {
		Object value = ((JavascriptExecutor) this.browser).executeScript(
				"const e = document.querySelector(arguments[0]);"
						+ " return e ? (arguments[1] ? e.getAttribute(arguments[1]) : e.textContent.trim()) : null;",
				css, attribute);
		return (value != null) ? value.toString() : null;
	}

	private String text(String id) {
		return read("#" + id, null);
	}

	private long number(String id) {
		return Long.parseLong(text(id));
	}

	private long polls() {
		return Long.parseLong(read("body", "data-polls"));
	}

	private static String shardItem(String shard, String kind) {
		return ".shard[data-shard='" + shard + "'] li[" + kind + "='" + TENANT + "']";
	}

	/** @return the tenant's state as listed under the shard as owner, {@code null} if not listed there */
	private String tenantState(String shard) {
		return read(shardItem(shard, "data-tenant"), "data-state");
	}

	private long rejections(String reason) {
		String count = read("#rejections [data-reason='" + reason + "'] b", null);
		return (count != null) ? Long.parseLong(count) : 0;
	}

	private static final String BURST_ROW = "#bursts tbody tr[data-tenant='" + TENANT + "']";

	private long burstCommitted() {
		return Long.parseLong(read(BURST_ROW + " .committed", null));
	}

	private long burstRunning() {
		return Long.parseLong(read(BURST_ROW, "data-running"));
	}

	private List<String> burstFailureTypes() {
		String title = read(BURST_ROW + " .failed", "title");
		return (title == null || title.isBlank()) ? List.of()
				: Stream.of(title.split(", ")).map(entry -> entry.substring(0, entry.indexOf(':'))).toList();
	}

	private String moveStep() {
		return read("#moves tbody tr[data-tenant='" + TENANT + "']", "data-step");
	}

	/** @return the sum of one series of one timeline chart, as the page drew it */
	private long seriesSum(String chart, String series) {
		String sum = read("svg.timeline[data-series='" + chart + "'] polyline.line." + series, "data-sum");
		return (sum != null) ? Long.parseLong(sum) : 0;
	}

	private long ordersOn(String shard) {
		try (Connection c = this.topology.dataSource(shard).getConnection();
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

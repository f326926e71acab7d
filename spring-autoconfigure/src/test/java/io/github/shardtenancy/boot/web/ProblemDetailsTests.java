package io.github.shardtenancy.boot.web;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

import io.github.shardtenancy.DirectoryUnavailableException;
import io.github.shardtenancy.IdGenerationException;
import io.github.shardtenancy.MoveInProgressException;
import io.github.shardtenancy.NoTenantBoundException;
import io.github.shardtenancy.ReferenceWriteException;
import io.github.shardtenancy.RetriesExhaustedException;
import io.github.shardtenancy.ShardConnectionLostException;
import io.github.shardtenancy.ShardTenancyException;
import io.github.shardtenancy.TenantAdmin;
import io.github.shardtenancy.TenantContext;
import io.github.shardtenancy.TenantSeedException;
import io.github.shardtenancy.UnknownTenantException;
import io.github.shardtenancy.boot.testapp.Note;
import io.github.shardtenancy.boot.testapp.NoteRepository;
import io.github.shardtenancy.boot.testapp.TestApplication;
import jakarta.servlet.ServletException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.annotation.Order;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.transaction.CannotCreateTransactionException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.not;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/**
 * The starter's RFC 9457 answers to the library's typed errors, over MockMvc with the tenant header filter, on two
 * H2 shards: real requests for the tenant errors (no tenant, invalid, unknown, deleted), a controller throwing the
 * unavailability errors (which need a failing shard or directory), the precedence over the application's handlers
 * (a catch-all advice, an advice for the same exception, one ordered first, a controller's own handler), a
 * replacement bean, the {@code Retry-After} setting and the switch.
 */
class ProblemDetailsTests {

	static final String H2 = ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000";

	/** The test application's notes over HTTP, and errors thrown as the library throws them. */
	@RestController
	static class NotesController {

		private final NoteRepository notes;

		private final TenantAdmin admin;

		NotesController(NoteRepository notes, TenantAdmin admin) {
			this.notes = notes;
			this.admin = admin;
		}

		@PostMapping("/tenants/{tenant}")
		String create(@PathVariable String tenant) {
			return this.admin.create(tenant).shardId();
		}

		@GetMapping("/fail/move")
		void moveInProgress() {
			throw new MoveInProgressException("Tenant acme already has move m-1 in progress", "acme", "shard-1", 9,
					"m-1");
		}

		@GetMapping("/notes")
		List<String> notes() {
			return this.notes.findAll().stream().map(Note::getTitle).toList();
		}

		@GetMapping("/tenants/{tenant}/notes")
		List<String> notesOf(@PathVariable String tenant) throws Exception {
			return TenantContext.callAs(tenant, this::notes);
		}

		@GetMapping("/fail/retries")
		void retriesExhausted() {
			throw new RetriesExhaustedException("acme", "shard-1", 7, 5, new IllegalStateException("fenced"));
		}

		@GetMapping("/fail/directory")
		void directoryDown() {
			throw new DirectoryUnavailableException("acme", 7, new IllegalStateException("directory down"));
		}

		@GetMapping("/fail/ids")
		void idsDown() {
			throw new IdGenerationException("The lease of generator id 3 expired", null);
		}

		@GetMapping("/fail/wrapped")
		void wrapped() {
			throw new DataAccessResourceFailureException("wrapped",
					new ShardConnectionLostException("acme", "shard-2", 8, new IllegalStateException("lost")));
		}

		@GetMapping("/fail/unknown")
		void unknownTenant() {
			throw new UnknownTenantException("nobody", 4);
		}

		/** A typed error wrapped as Spring's transaction manager wraps a failure to open the transaction. */
		@GetMapping("/fail/tx/{kind}")
		void transactionNotCreated(@PathVariable String kind) {
			ShardTenancyException cause = switch (kind) {
				case "no-tenant" -> new NoTenantBoundException("a shard connection");
				case "unknown" -> new UnknownTenantException("nobody", 4);
				case "retries" -> new RetriesExhaustedException("acme", "shard-1", 7, 5, new IllegalStateException("x"));
				case "seed" -> seedFailed();
				default -> throw new IllegalArgumentException(kind);
			};
			throw new CannotCreateTransactionException("Could not open JPA EntityManager for transaction", cause);
		}

		@GetMapping("/fail/illegal-state")
		void illegalState() {
			throw new IllegalStateException("the application's own bug");
		}

		@GetMapping("/fail/seed")
		void seed() {
			throw seedFailed();
		}

		@GetMapping("/fail/reference")
		void reference() {
			throw new ReferenceWriteException("no ACTIVE shard could be reached", null, null);
		}

		private static TenantSeedException seedFailed() {
			return new TenantSeedException("The seed of tenant acme failed", "acme", "shard-1", 3, true,
					new IllegalStateException("seed script"));
		}

	}

	/** A controller with an {@code @ExceptionHandler} of its own for one of the library's exceptions. */
	@RestController
	static class LocalHandlerController {

		@GetMapping("/local/unknown")
		void unknownTenant() {
			throw new UnknownTenantException("nobody", 4);
		}

		@ExceptionHandler(UnknownTenantException.class)
		ProblemDetail unknownTenant(UnknownTenantException ex) {
			return ProblemDetail.forStatusAndDetail(HttpStatus.GONE, "the controller's own");
		}

	}

	/** The application's catch-all advice of a ported application: everything it does not know is a 500. */
	@RestControllerAdvice
	static class CatchAllErrors {

		@ExceptionHandler(Exception.class)
		ResponseEntity<ProblemDetail> any(Exception ex) {
			ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.INTERNAL_SERVER_ERROR,
					ex.getClass().getSimpleName());
			problem.setTitle("Application catch-all");
			return ResponseEntity.internalServerError().body(problem);
		}

	}

	@Test
	@DisplayName("the handler names exactly the mapped exception types (or their supertypes among the mapped)")
	void handlerNamesTheMappedTypes() throws Exception {
		Method handler = ShardTenancyProblemDetails.class.getMethod("handleShardTenancyException", Exception.class);
		List<Class<? extends Throwable>> declared = Arrays
			.asList(handler.getAnnotation(ExceptionHandler.class).value());
		List<Class<? extends ShardTenancyException>> mapped = ShardTenancyProblemDetails.mappedTypes();
		assertThat(mapped).containsAll(declared.stream().map((type) -> type.asSubclass(ShardTenancyException.class))
			.toList());
		assertThat(mapped).allSatisfy((type) -> assertThat(declared).anyMatch((d) -> d.isAssignableFrom(type)));
	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesController.class }, properties = {
			"shard-tenancy.web.access.policy=none",
			"shard-tenancy.directory.url=jdbc:h2:mem:problems-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:problems-shard-1" + H2,
			"shard-tenancy.shards.shard-2.url=jdbc:h2:mem:problems-shard-2" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"spring.jpa.open-in-view=false" })
	@AutoConfigureMockMvc
	@DisplayName("by default")
	class Defaults {

		@Autowired
		private MockMvc mvc;

		@Autowired
		private TenantAdmin admin;

		@Test
		@DisplayName("a known tenant is answered 200 (the mapping leaves successful requests alone)")
		void knownTenantIs200() throws Exception {
			if (this.admin.find("acme").isEmpty()) {
				this.admin.create("acme");
			}
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "acme")).andExpect(status().isOk());
		}

		@Test
		@DisplayName("no tenant bound: 400 naming the header")
		void noTenantIs400() throws Exception {
			this.mvc.perform(get("/notes"))
				.andExpect(status().isBadRequest())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.title").value("No tenant"))
				.andExpect(jsonPath("$.type").value("urn:shard-tenancy:NoTenantBoundException"))
				.andExpect(jsonPath("$.detail", containsString("X-Tenant-Id")))
				.andExpect(jsonPath("$.detail", not(containsString("thread"))))
				.andExpect(header().doesNotExist("Retry-After"));
		}

		@Test
		@DisplayName("an invalid tenant id bound by the application: 400, the id only quoted in the detail")
		void invalidTenantIs400() throws Exception {
			this.mvc.perform(get("/tenants/{tenant}/notes", "bad id!"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("Invalid tenant id"))
				.andExpect(jsonPath("$.detail", containsString("Invalid tenant id 'bad id!'")))
				.andExpect(jsonPath("$.tenant").doesNotExist());
		}

		@Test
		@DisplayName("an invalid tenant header: 400 problem detail from the header filter, quotes escaped")
		void invalidHeaderIs400ProblemDetail() throws Exception {
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "a\"b\\c"))
				.andExpect(status().isBadRequest())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.status").value(400))
				.andExpect(jsonPath("$.title").value("Invalid tenant id"))
				.andExpect(jsonPath("$.detail", containsString("a\"b\\c")));
		}

		@Test
		@DisplayName("a repeated tenant header: 400 problem detail")
		void repeatedHeaderIs400ProblemDetail() throws Exception {
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "acme", "globex"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.title").value("Repeated tenant header"))
				.andExpect(jsonPath("$.detail", containsString("appears more than once")));
		}

		@Test
		@DisplayName("an unknown tenant: 404 with the tenant and the directory version")
		void unknownTenantIs404() throws Exception {
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "nobody"))
				.andExpect(status().isNotFound())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.status").value(404))
				.andExpect(jsonPath("$.title").value("Unknown tenant"))
				.andExpect(jsonPath("$.tenant").value("nobody"))
				.andExpect(jsonPath("$.directoryVersion").isNumber());
		}

		@Test
		@DisplayName("a deleted tenant: 404 with the tenant and its shard")
		void deletedTenantIs404() throws Exception {
			this.admin.create("gone", "shard-2");
			this.admin.delete("gone");

			this.mvc.perform(get("/notes").header("X-Tenant-Id", "gone"))
				.andExpect(status().isNotFound())
				.andExpect(jsonPath("$.title").value("Tenant deleted"))
				.andExpect(jsonPath("$.tenant").value("gone"))
				.andExpect(jsonPath("$.shard").value("shard-2"));
		}

		@Test
		@DisplayName("creating a tenant that exists: 409 with the tenant, no Retry-After")
		void existingTenantIs409() throws Exception {
			this.mvc.perform(post("/tenants/{tenant}", "twice")).andExpect(status().isOk());
			this.mvc.perform(post("/tenants/{tenant}", "twice"))
				.andExpect(status().isConflict())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.title").value("Tenant exists"))
				.andExpect(jsonPath("$.type").value("urn:shard-tenancy:TenantAlreadyExistsException"))
				.andExpect(jsonPath("$.tenant").value("twice"))
				.andExpect(header().doesNotExist("Retry-After"));
		}

		@Test
		@DisplayName("a move in progress: 409")
		void moveInProgressIs409() throws Exception {
			this.mvc.perform(get("/fail/move"))
				.andExpect(status().isConflict())
				.andExpect(jsonPath("$.title").value("Move in progress"))
				.andExpect(jsonPath("$.tenant").value("acme"))
				.andExpect(jsonPath("$.directoryVersion").value(9));
		}

		@Test
		@DisplayName("retries exhausted: 503 with Retry-After and the tenant, shard and version")
		void retriesExhaustedIs503() throws Exception {
			this.mvc.perform(get("/fail/retries"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(header().string("Retry-After", "1"))
				.andExpect(jsonPath("$.title").value("Retries exhausted"))
				.andExpect(jsonPath("$.tenant").value("acme"))
				.andExpect(jsonPath("$.shard").value("shard-1"))
				.andExpect(jsonPath("$.directoryVersion").value(7));
		}

		@Test
		@DisplayName("directory unavailable: 503 with Retry-After")
		void directoryUnavailableIs503() throws Exception {
			this.mvc.perform(get("/fail/directory"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(header().string("Retry-After", "1"))
				.andExpect(jsonPath("$.title").value("Directory unavailable"));
		}

		@Test
		@DisplayName("no valid @ShardSafeId lease: 503 with Retry-After")
		void idsUnavailable() throws Exception {
			this.mvc.perform(get("/fail/ids"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(header().string("Retry-After", "1"))
				.andExpect(jsonPath("$.title").value("Ids unavailable"));
		}

		@Test
		@DisplayName("a typed error wrapped by Spring is found in the cause chain: 503")
		void wrappedErrorIsUnwrapped() throws Exception {
			this.mvc.perform(get("/fail/wrapped"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(header().string("Retry-After", "1"))
				.andExpect(jsonPath("$.title").value("Shard unavailable"))
				.andExpect(jsonPath("$.shard").value("shard-2"));
		}

	}

	/** The application's own advice for one of the exceptions, of the default order. */
	@RestControllerAdvice
	static class ApplicationErrors {

		@ExceptionHandler(UnknownTenantException.class)
		ProblemDetail unknownTenant(UnknownTenantException ex) {
			return ProblemDetail.forStatusAndDetail(HttpStatus.GONE, "ours");
		}

	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesController.class, LocalHandlerController.class },
			properties = { "shard-tenancy.web.access.policy=none", "shard-tenancy.directory.url=jdbc:h2:mem:problems-own-directory" + H2,
					"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:problems-own-shard-1" + H2,
					"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
					"shard-tenancy.web.problem-details.retry-after=2500ms", "spring.jpa.open-in-view=false" })
	@Import({ CatchAllErrors.class, ApplicationErrors.class })
	@AutoConfigureMockMvc
	@DisplayName("with the application's catch-all advice, its advice for UnknownTenantException and retry-after=2500ms")
	class ApplicationCatchAll {

		@Autowired
		private MockMvc mvc;

		@Test
		@DisplayName("no tenant bound: the starter's 400, not the catch-all's 500")
		void noTenantIs400() throws Exception {
			this.mvc.perform(get("/notes"))
				.andExpect(status().isBadRequest())
				.andExpect(jsonPath("$.type").value("urn:shard-tenancy:NoTenantBoundException"))
				.andExpect(jsonPath("$.title").value("No tenant"));
		}

		@Test
		@DisplayName("an unknown tenant: the starter's 404, over the application's advice (default order) for it")
		void unknownTenantIs404() throws Exception {
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "nobody"))
				.andExpect(status().isNotFound())
				.andExpect(jsonPath("$.title").value("Unknown tenant"))
				.andExpect(jsonPath("$.tenant").value("nobody"));
			this.mvc.perform(get("/fail/unknown"))
				.andExpect(status().isNotFound())
				.andExpect(jsonPath("$.title").value("Unknown tenant"))
				.andExpect(jsonPath("$.directoryVersion").value(4));
		}

		@Test
		@DisplayName("retries exhausted: the starter's 503, with Retry-After rounded up to whole seconds")
		void retriesExhaustedIs503() throws Exception {
			this.mvc.perform(get("/fail/retries"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(header().string("Retry-After", "3"))
				.andExpect(jsonPath("$.title").value("Retries exhausted"));
		}

		@ParameterizedTest(name = "{0} wrapped in CannotCreateTransactionException: {1}")
		@CsvSource({ "no-tenant, 400, No tenant", "unknown, 404, Unknown tenant", "retries, 503, Retries exhausted" })
		@DisplayName("a typed error wrapped by Spring: the starter's answer from the cause chain")
		void wrappedErrorIsMapped(String kind, int status, String title) throws Exception {
			this.mvc.perform(get("/fail/tx/{kind}", kind))
				.andExpect(status().is(status))
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.title").value(title));
		}

		@Test
		@DisplayName("any other exception: the application's catch-all")
		void otherExceptionIsTheApplications() throws Exception {
			this.mvc.perform(get("/fail/illegal-state"))
				.andExpect(status().isInternalServerError())
				.andExpect(jsonPath("$.title").value("Application catch-all"))
				.andExpect(jsonPath("$.detail").value("IllegalStateException"));
		}

		@Test
		@DisplayName("a library exception the starter does not map, thrown or wrapped: the application's catch-all")
		void unmappedLibraryExceptionIsTheApplications() throws Exception {
			this.mvc.perform(get("/fail/seed"))
				.andExpect(status().isInternalServerError())
				.andExpect(jsonPath("$.title").value("Application catch-all"))
				.andExpect(jsonPath("$.detail").value("TenantSeedException"));
			this.mvc.perform(get("/fail/reference"))
				.andExpect(status().isInternalServerError())
				.andExpect(jsonPath("$.detail").value("ReferenceWriteException"));
			this.mvc.perform(get("/fail/tx/{kind}", "seed"))
				.andExpect(status().isInternalServerError())
				.andExpect(jsonPath("$.detail").value("CannotCreateTransactionException"));
		}

		@Test
		@DisplayName("a controller's own @ExceptionHandler for a mapped exception wins over the starter")
		void controllerHandlerWins() throws Exception {
			this.mvc.perform(get("/local/unknown"))
				.andExpect(status().isGone())
				.andExpect(jsonPath("$.detail").value("the controller's own"));
		}

	}

	/** The application's advice for one of the exceptions, ordered before the starter's. */
	@RestControllerAdvice
	@Order(ShardTenancyProblemDetails.ORDER - 1)
	static class FirstApplicationErrors {

		@ExceptionHandler(UnknownTenantException.class)
		ProblemDetail unknownTenant(UnknownTenantException ex) {
			return ProblemDetail.forStatusAndDetail(HttpStatus.GONE, "ours, first");
		}

	}

	/** The application's own mapping: a missing tenant is 401, 503s ask for 5 seconds. */
	@Configuration(proxyBeanMethods = false)
	static class OwnProblemDetails {

		@Bean
		ShardTenancyProblemDetails ownProblemDetails() {
			return new ShardTenancyProblemDetails(Duration.ofSeconds(5), null) {

				@Override
				protected HttpStatus statusOf(ShardTenancyException ex) {
					return (ex instanceof NoTenantBoundException) ? HttpStatus.UNAUTHORIZED : super.statusOf(ex);
				}

			};
		}

	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesController.class }, properties = {
			"shard-tenancy.web.access.policy=none",
			"shard-tenancy.directory.url=jdbc:h2:mem:problems-first-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:problems-first-shard-1" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"spring.jpa.open-in-view=false" })
	@Import({ CatchAllErrors.class, FirstApplicationErrors.class, OwnProblemDetails.class })
	@AutoConfigureMockMvc
	@DisplayName("with the application's own ShardTenancyProblemDetails bean and an advice ordered before it")
	class ApplicationFirst {

		@Autowired
		private MockMvc mvc;

		@Autowired
		private ApplicationContext context;

		@Test
		@DisplayName("the starter backs off: the application's bean is the only one")
		void starterBacksOff() {
			assertThat(this.context.getBeansOfType(ShardTenancyProblemDetails.class)).containsOnlyKeys(
					"ownProblemDetails");
		}

		@Test
		@DisplayName("the application's advice ordered before the starter's answers its exception")
		void firstAdviceWins() throws Exception {
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "nobody"))
				.andExpect(status().isGone())
				.andExpect(jsonPath("$.detail").value("ours, first"));
		}

		@Test
		@DisplayName("the application's subclass keeps the order before the catch-all, with its own statuses")
		void subclassAnswersBeforeTheCatchAll() throws Exception {
			this.mvc.perform(get("/notes"))
				.andExpect(status().isUnauthorized())
				.andExpect(jsonPath("$.title").value("No tenant"));
			this.mvc.perform(get("/fail/retries"))
				.andExpect(status().isServiceUnavailable())
				.andExpect(header().string("Retry-After", "5"));
			this.mvc.perform(get("/fail/illegal-state"))
				.andExpect(status().isInternalServerError())
				.andExpect(jsonPath("$.title").value("Application catch-all"));
		}

	}

	@Nested
	@SpringBootTest(classes = { TestApplication.class, NotesController.class }, properties = {
			"shard-tenancy.web.access.policy=none",
			"shard-tenancy.directory.url=jdbc:h2:mem:problems-off-directory" + H2,
			"shard-tenancy.shards.shard-1.url=jdbc:h2:mem:problems-off-shard-1" + H2,
			"shard-tenancy.liquibase.shard-changelogs=db/test-shard.xml", "shard-tenancy.sync.interval=1h",
			"shard-tenancy.web.problem-details.enabled=false", "spring.jpa.open-in-view=false" })
	@AutoConfigureMockMvc
	@DisplayName("with shard-tenancy.web.problem-details.enabled=false")
	class Disabled {

		@Autowired
		private MockMvc mvc;

		@Autowired
		private ApplicationContext context;

		@Test
		@DisplayName("no handler bean, and the error reaches the servlet container unanswered")
		void errorIsNotMapped() {
			assertThat(this.context.getBeansOfType(ShardTenancyProblemDetails.class)).isEmpty();
			assertThatThrownBy(() -> this.mvc.perform(get("/notes").header("X-Tenant-Id", "nobody")))
				.isInstanceOf(ServletException.class)
				.hasCauseInstanceOf(UnknownTenantException.class);
		}

		@Test
		@DisplayName("an invalid tenant header is answered 400 in plain text")
		void invalidHeaderIsPlainText() throws Exception {
			this.mvc.perform(get("/notes").header("X-Tenant-Id", "bad id!"))
				.andExpect(status().isBadRequest())
				.andExpect(content().contentTypeCompatibleWith(MediaType.TEXT_PLAIN))
				.andExpect(content().string(containsString("Invalid tenant id")));
		}

	}

}

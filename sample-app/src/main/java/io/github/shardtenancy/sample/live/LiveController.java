package io.github.shardtenancy.sample.live;

import java.util.Map;

import io.github.shardtenancy.InvalidTenantIdException;
import io.github.shardtenancy.MoveException;
import io.github.shardtenancy.UnknownShardException;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The live page's JSON API, under {@code /live/api}. The page ({@code /live}) polls {@link #state()} about twice a
 * second.
 * <ul>
 * <li>{@code GET /live/api/state}: {@link LiveState}.</li>
 * <li>{@code POST /live/api/moves} {@code {"tenant": "tenant-01", "target": "shard-2", "stepPauseMs": 300}}: starts
 * an online move; 202, or 400 (invalid input), 404 (unknown tenant), 409 (tenant not movable now).</li>
 * <li>{@code POST /live/api/bursts} {@code {"tenant": "tenant-01", "threads": 4, "ordersPerThread": 500, "pauseMs": 0}}: starts a
 * burst of writers; 202 with {@code {"id": n}}, or 400, 404.</li>
 * <li>{@code POST /live/api/bursts/stop}: asks every burst to stop; 202.</li>
 * </ul>
 * Errors are answered as {@code {"error": "message"}} (an unknown tenant by the application's problem details).
 */
@RestController
@RequestMapping("/live/api")
@ConditionalOnWebApplication
public class LiveController {

	private final LiveStateReader state;

	private final LiveMoves moves;

	private final LiveBursts bursts;

	/**
	 * @param state reads the state
	 * @param moves starts moves
	 * @param bursts starts bursts
	 */
	public LiveController(LiveStateReader state, LiveMoves moves, LiveBursts bursts) {
		this.state = state;
		this.moves = moves;
		this.bursts = bursts;
	}

	/** A move asked for by the page. @param tenant the tenant @param target the shard @param stepPauseMs pause */
	public record MoveRequest(String tenant, String target, Long stepPauseMs) {
	}

	/**
	 * A burst asked for by the page.
	 * @param tenant the tenant
	 * @param threads threads, 4 if null
	 * @param ordersPerThread orders per thread, 500 if null
	 * @param pauseMs milliseconds each thread waits after each order, 0 if null
	 */
	public record BurstRequest(String tenant, Integer threads, Integer ordersPerThread, Integer pauseMs) {
	}

	/** @return the state now */
	@GetMapping("/state")
	public LiveState state() {
		return this.state.read();
	}

	/**
	 * @param request the move
	 * @return 202 once started
	 */
	@PostMapping("/moves")
	public ResponseEntity<Map<String, String>> move(@RequestBody MoveRequest request) {
		required("tenant", request.tenant());
		required("target", request.target());
		this.moves.start(request.tenant(), request.target(),
				(request.stepPauseMs() != null) ? request.stepPauseMs() : 0L);
		return ResponseEntity.accepted().body(Map.of("tenant", request.tenant(), "target", request.target()));
	}

	/**
	 * @param request the burst
	 * @return 202 with the burst's id
	 */
	@PostMapping("/bursts")
	public ResponseEntity<Map<String, Integer>> burst(@RequestBody BurstRequest request) {
		required("tenant", request.tenant());
		int id = this.bursts.start(request.tenant(), (request.threads() != null) ? request.threads() : 4,
				(request.ordersPerThread() != null) ? request.ordersPerThread() : 500,
				(request.pauseMs() != null) ? request.pauseMs() : 0);
		return ResponseEntity.accepted().body(Map.of("id", id));
	}

	/** @return 202 */
	@PostMapping("/bursts/stop")
	public ResponseEntity<Void> stopBursts() {
		this.bursts.stopAll();
		return ResponseEntity.accepted().build();
	}

	private static void required(String field, String value) {
		if (value == null || value.isBlank()) {
			throw new IllegalArgumentException("\"" + field + "\" is required");
		}
	}

	@ExceptionHandler({ IllegalArgumentException.class, InvalidTenantIdException.class, UnknownShardException.class })
	ResponseEntity<Map<String, String>> badRequest(RuntimeException ex) {
		return error(HttpStatus.BAD_REQUEST, ex);
	}

	@ExceptionHandler(MoveException.class)
	ResponseEntity<Map<String, String>> conflict(MoveException ex) {
		return error(HttpStatus.CONFLICT, ex);
	}

	@ExceptionHandler(IllegalStateException.class)
	ResponseEntity<Map<String, String>> unavailable(IllegalStateException ex) {
		return error(HttpStatus.SERVICE_UNAVAILABLE, ex);
	}

	private static ResponseEntity<Map<String, String>> error(HttpStatus status, RuntimeException ex) {
		return ResponseEntity.status(status)
			.body(Map.of("error", String.valueOf(ex.getMessage())));
	}

}

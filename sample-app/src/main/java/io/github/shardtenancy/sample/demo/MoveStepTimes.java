package io.github.shardtenancy.sample.demo;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.shardtenancy.spi.MoveHook;
import io.github.shardtenancy.MoveStep;
import io.github.shardtenancy.TenantMover;

/**
 * The online mover's hook in the demo: records when each step of each move was recorded, and the step's data (the
 * directory versions of the freeze and the flip, the rows copied). Thread-safe.
 */
final class MoveStepTimes implements MoveHook {

	private final TenantMover reader;

	private final Map<String, List<String[]>> steps = new ConcurrentHashMap<>();

	private final Map<String, Long> last = new ConcurrentHashMap<>();

	/** @param reader reads the step data of a move */
	MoveStepTimes(TenantMover reader) {
		this.reader = reader;
	}

	@Override
	public void stepRecorded(String moveId, MoveStep step) {
		long now = System.nanoTime();
		Long previous = this.last.put(moveId, now);
		String data = this.reader.status(moveId).stepData();
		this.steps.computeIfAbsent(moveId, id -> Collections.synchronizedList(new ArrayList<>()))
			.add(new String[] { step.name(), previous == null ? "0" : "" + (now - previous) / 1_000_000,
					data == null ? "" : data });
	}

	/** @return e.g. {@code MARKED 4 ms, COPIED 9 ms (rows=120), ...} */
	String describe(String moveId) {
		StringBuilder out = new StringBuilder();
		for (String[] step : this.steps.getOrDefault(moveId, List.of())) {
			if (step[0].equals(MoveStep.PLANNED.name())) {
				continue;
			}
			out.append(out.isEmpty() ? "" : ", ").append(step[0]).append(' ').append(step[1]).append(" ms");
			if (step[0].equals(MoveStep.COPIED.name()) || step[0].equals(MoveStep.CAUGHT_UP.name())) {
				out.append(" (").append(step[2].replaceAll(" tables=\\{.*\\}", "")).append(')');
			}
		}
		return out.toString();
	}

}

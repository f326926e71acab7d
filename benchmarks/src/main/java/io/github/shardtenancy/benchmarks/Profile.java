package io.github.shardtenancy.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.util.List;
import java.util.Set;

import jdk.jfr.Configuration;
import jdk.jfr.Recording;

/**
 * The harness's {@code --profile} mode: the whole run under a JDK Flight Recorder recording with the JDK's
 * {@code profile} settings (method samples every 10 ms, allocation and lock events), written to a {@code .jfr} file
 * at the end. Worker threads are named {@code bench-worker-p...} (plain) and {@code bench-worker-l...} (library), so
 * the samples of the two sides can be told apart; see docs/performance.md for reading the file with {@code jfr}.
 */
final class Profile {

	private Profile() {
	}

	/**
	 * Runs the figures under a recording.
	 * @param jfr where the recording is written (its directory is created)
	 * @param sizes how long and how big
	 * @param only the figures (see {@link BenchmarkHarness#FIGURES}); empty for all
	 * @return the figures
	 * @throws IllegalStateException if the JDK's {@code profile} settings cannot be read
	 * @throws UncheckedIOException if the recording cannot be written
	 */
	static List<Figure> record(Path jfr, Sizes sizes, Set<String> only) {
		Configuration settings;
		try {
			settings = Configuration.getConfiguration("profile");
		}
		catch (IOException | ParseException ex) {
			throw new IllegalStateException("Cannot read the JDK's JFR profile settings: " + ex, ex);
		}
		try (Recording recording = new Recording(settings)) {
			recording.setName("bench");
			recording.setToDisk(true);
			recording.start();
			List<Figure> figures = BenchmarkHarness.run(sizes, only);
			recording.stop();
			if (jfr.getParent() != null) {
				Files.createDirectories(jfr.getParent());
			}
			recording.dump(jfr);
			System.err.println("[bench] profile written to " + jfr.toAbsolutePath());
			return figures;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot write the profile " + jfr, ex);
		}
	}

}

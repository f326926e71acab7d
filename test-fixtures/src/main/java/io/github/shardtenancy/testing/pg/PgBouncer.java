package io.github.shardtenancy.testing.pg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Assumptions;

import static org.awaitility.Awaitility.await;

/**
 * A PgBouncer in <em>transaction</em> pooling mode, run by a test as a child process on a free port, with its ini
 * file, user list, log and pid file in a temporary directory. Each database alias leads to one PostgreSQL server of
 * the cluster. Close it to stop the process and delete the directory.
 *
 * <p>The binary is {@code /usr/sbin/pgbouncer} (Debian's {@code pgbouncer} package) or {@code pgbouncer} on the
 * {@code PATH}. When it is missing the test is skipped with a message saying how to install it, unless the
 * environment variable {@value #REQUIRE} is {@code 1} (CI sets it), in which case the test fails. PgBouncer refuses
 * to run as root; as root it is started with {@code -u postgres} (or {@code -u nobody}).
 */
public final class PgBouncer implements AutoCloseable {

	/** The environment variable that turns a missing binary from a skip into a failure. */
	public static final String REQUIRE = "SHARD_TENANCY_REQUIRE_PGBOUNCER";

	private final Path directory;

	private final Process process;

	private final int port;

	private PgBouncer(Path directory, Process process, int port) {
		this.directory = directory;
		this.process = process;
		this.port = port;
	}

	/**
	 * @return the binary's path; skips the calling test (or fails it under {@value #REQUIRE}=1) when there is none
	 */
	public static Path binary() {
		Path found = Stream.concat(Stream.of(Path.of("/usr/sbin/pgbouncer")),
				Stream.of(System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator))
					.filter(p -> !p.isEmpty())
					.map(p -> Path.of(p, "pgbouncer")))
			.filter(Files::isExecutable)
			.findFirst()
			.orElse(null);
		String message = "PgBouncer is not installed (no /usr/sbin/pgbouncer, none on the PATH): install Debian's "
				+ "'pgbouncer' package (apt-get install -y pgbouncer) to run the transaction-pooling tests";
		if (found == null && "1".equals(System.getenv(REQUIRE))) {
			throw new AssertionError(message + "; " + REQUIRE + "=1 requires them");
		}
		Assumptions.assumeTrue(found != null, message);
		return found;
	}

	/**
	 * Starts PgBouncer in transaction pooling mode.
	 * @param databases alias to (server, pool size): each alias leads to that server's {@code postgres} database
	 * @return the running proxy, accepting connections
	 */
	public static PgBouncer start(Map<String, Map.Entry<PostgresServer, Integer>> databases) {
		Path binary = binary();
		int port = freePort();
		try {
			Path dir = Files.createTempDirectory("it-pgbouncer-");
			Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
			StringBuilder ini = new StringBuilder("[databases]\n");
			for (Map.Entry<String, Map.Entry<PostgresServer, Integer>> db : databases.entrySet()) {
				PostgresServer server = db.getValue().getKey();
				ini.append(db.getKey())
					.append(" = host=127.0.0.1 port=")
					.append(serverPort(server))
					.append(" dbname=postgres user=")
					.append(server.user())
					.append(" password=")
					.append(server.password())
					.append(" pool_size=")
					.append(db.getValue().getValue())
					.append('\n');
			}
			ini.append("[pgbouncer]\n")
				.append("listen_addr = 127.0.0.1\n")
				.append("listen_port = ").append(port).append('\n')
				.append("unix_socket_dir =\n")
				.append("auth_type = trust\n")
				.append("auth_file = ").append(dir.resolve("userlist.txt")).append('\n')
				.append("pool_mode = transaction\n")
				.append("max_client_conn = 500\n")
				.append("ignore_startup_parameters = extra_float_digits,options\n")
				.append("logfile = ").append(dir.resolve("pgbouncer.log")).append('\n')
				.append("pidfile = ").append(dir.resolve("pgbouncer.pid")).append('\n');
			Files.writeString(dir.resolve("pgbouncer.ini"), ini);
			Files.writeString(dir.resolve("userlist.txt"), "\"postgres\" \"postgres\"\n");
			for (String f : new String[] { "pgbouncer.ini", "userlist.txt" }) {
				Files.setPosixFilePermissions(dir.resolve(f), PosixFilePermissions.fromString("rw-r--r--"));
			}
			ProcessBuilder builder = isRoot()
					? new ProcessBuilder(binary.toString(), "-u", runAsUser(), dir.resolve("pgbouncer.ini").toString())
					: new ProcessBuilder(binary.toString(), dir.resolve("pgbouncer.ini").toString());
			builder.redirectErrorStream(true).redirectOutput(dir.resolve("stdout.txt").toFile());
			Process process = builder.start();
			PgBouncer bouncer = new PgBouncer(dir, process, port);
			try {
				await("PgBouncer accepts connections on port " + port).atMost(Duration.ofSeconds(20))
					.pollInterval(Duration.ofMillis(50))
					.until(() -> bouncer.accepts() || !process.isAlive());
			}
			catch (ConditionTimeoutException ex) {
				// reported below, with PgBouncer's output
			}
			if (!bouncer.accepts()) {
				Path stdout = dir.resolve("stdout.txt");
				String output = Files.exists(stdout) ? Files.readString(stdout) : "";
				bouncer.close();
				throw new IllegalStateException("PgBouncer did not start on port " + port + ": " + output);
			}
			return bouncer;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * @param database an alias given to {@link #start}
	 * @return a JDBC URL of that alias through the proxy; server-side prepared statements are off
	 * ({@code prepareThreshold=0}), which transaction pooling requires before PgBouncer 1.21
	 */
	public String jdbcUrl(String database) {
		return "jdbc:postgresql://127.0.0.1:" + this.port + "/" + database + "?prepareThreshold=0";
	}

	private boolean accepts() {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress("127.0.0.1", this.port), 200);
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	private static boolean isRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	private static String runAsUser() {
		try {
			Process id = new ProcessBuilder("id", "-u", "postgres").redirectErrorStream(true).start();
			return id.waitFor() == 0 ? "postgres" : "nobody";
		}
		catch (IOException ex) {
			return "nobody";
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return "nobody";
		}
	}

	private static int serverPort(PostgresServer server) {
		String url = server.jdbcUrl();
		String hostPort = url.substring(url.indexOf("//") + 2, url.indexOf('/', url.indexOf("//") + 2));
		return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** @return one alias leading to a server with a server-side pool of that size, for {@link #start} */
	public static Map<String, Map.Entry<PostgresServer, Integer>> alias(String name, PostgresServer server,
			int poolSize) {
		Map<String, Map.Entry<PostgresServer, Integer>> map = new LinkedHashMap<>();
		map.put(name, Map.entry(server, poolSize));
		return map;
	}

	@Override
	public void close() {
		this.process.destroy();
		try {
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		try (Stream<Path> paths = Files.walk(this.directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
		}
		catch (IOException ex) {
			// best effort
		}
	}

}

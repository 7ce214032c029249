package io.bourse.store;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real PostgreSQL server for tests: a fresh cluster made with {@code initdb} in a temporary directory, listening on
 * 127.0.0.1 on a free port (and a Unix socket in that directory only), stopped and deleted by {@link #close()}.
 * PostgreSQL refuses to run as root, so when the tests run as root (as on CI) the server runs as the {@code postgres}
 * user through {@code runuser}. The binaries come from Debian's postgresql package (installed by {@code .ci/run}).
 * Also used by the store benchmark.
 */
public final class PostgresServer implements AutoCloseable
{
    private static final long COMMAND_TIMEOUT_S = 120;

    private final File dir;
    private final File binDir;
    private final int port;
    private final boolean asPostgresUser;
    private boolean running;

    private PostgresServer(final File dir, final File binDir, final int port, final boolean asPostgresUser)
    {
        this.dir = dir;
        this.binDir = binDir;
        this.port = port;
        this.asPostgresUser = asPostgresUser;
    }

    public static PostgresServer start() throws Exception
    {
        final File binDir = findBinDir();
        final boolean root = "root".equals(System.getProperty("user.name"));
        final File dir = Files.createTempDirectory("bourse-store-pg-").toFile();
        final PostgresServer server = new PostgresServer(dir, binDir, freePort(), root);
        try
        {
            server.startServer();
            return server;
        }
        catch (final Exception | Error ex)
        {
            server.close();
            throw ex;
        }
    }

    private void startServer() throws Exception
    {
        final File data = new File(dir, "data");
        if (asPostgresUser)
        {
            run(List.of("chown", "postgres:", dir.getPath()), false);
        }
        run(List.of(new File(binDir, "initdb").getPath(), "-D", data.getPath(), "-U", "bourse", "--auth=trust",
            "-E", "UTF8", "--no-sync"), asPostgresUser);
        startPostmaster();
        try (Connection connection = DriverManager.getConnection(
            "jdbc:postgresql://127.0.0.1:" + port + "/postgres", "bourse", "");
            Statement statement = connection.createStatement())
        {
            statement.execute("CREATE DATABASE bourse");
        }
    }

    private void startPostmaster() throws Exception
    {
        running = true;
        run(List.of(new File(binDir, "pg_ctl").getPath(), "-D", new File(dir, "data").getPath(), "-l",
            new File(dir, "server.log").getPath(), "-w", "-t", "60", "-o",
            "-p " + port + " -k " + dir.getPath() + " -c listen_addresses=127.0.0.1 -c max_connections=20", "start"),
            asPostgresUser);
    }

    /**
     * Stop the server as a crash would (immediate shutdown: clients' connections are cut, recovery runs at the next
     * start); {@link #restart} starts it again on the same data and port.
     */
    public void stop() throws Exception
    {
        running = false;
        run(List.of(new File(binDir, "pg_ctl").getPath(), "-D", new File(dir, "data").getPath(), "-m", "immediate",
            "-w", "stop"), asPostgresUser);
    }

    public void restart() throws Exception
    {
        startPostmaster();
    }

    /**
     * @return a JDBC URL of a database of its own, created now.
     */
    public String newDatabase(final String name) throws Exception
    {
        try (Connection connection = DriverManager.getConnection(
            "jdbc:postgresql://127.0.0.1:" + port + "/postgres", "bourse", "");
            Statement statement = connection.createStatement())
        {
            statement.execute("CREATE DATABASE " + name);
        }
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + name + "?user=bourse";
    }

    /**
     * @return the process id of the server (the postmaster), whose descendants are its backends and workers.
     */
    public long serverPid() throws Exception
    {
        final List<String> lines = Files.readAllLines(new File(new File(dir, "data"), "postmaster.pid").toPath());
        return Long.parseLong(lines.get(0).trim());
    }

    public String jdbcUrl()
    {
        return "jdbc:postgresql://127.0.0.1:" + port + "/bourse?user=bourse";
    }

    public void close() throws Exception
    {
        try
        {
            if (running)
            {
                stop();
            }
        }
        finally
        {
            try (var paths = Files.walk(dir.toPath()))
            {
                paths.sorted(Comparator.reverseOrder()).map(java.nio.file.Path::toFile).forEach(File::delete);
            }
        }
    }

    private static void run(final List<String> command, final boolean asPostgresUser) throws Exception
    {
        final List<String> full = new ArrayList<>();
        if (asPostgresUser)
        {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        final Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
        final byte[] output;
        if (!process.waitFor(COMMAND_TIMEOUT_S, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new IllegalStateException("timed out after " + COMMAND_TIMEOUT_S + " s: " + full);
        }
        output = process.getInputStream().readAllBytes();
        if (process.exitValue() != 0)
        {
            throw new IllegalStateException("failed (" + process.exitValue() + "): " + full + "\n" +
                new String(output, StandardCharsets.UTF_8));
        }
    }

    private static File findBinDir()
    {
        final File[] versions = new File("/usr/lib/postgresql").listFiles();
        if (versions != null)
        {
            Arrays.sort(versions, Comparator.comparing(File::getName).reversed());
            for (final File version : versions)
            {
                final File bin = new File(version, "bin");
                if (new File(bin, "initdb").canExecute() && new File(bin, "pg_ctl").canExecute())
                {
                    return bin;
                }
            }
        }
        throw new IllegalStateException("PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin: " +
            "install the postgresql package (.ci/run does)");
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}

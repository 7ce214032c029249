package io.bourse.app;

import io.aeron.cluster.service.Cluster;
import io.bourse.app.journal.JournalTool;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.LogRetention;
import io.bourse.store.Store;
import io.bourse.store.StoreMetrics;
import io.bourse.store.StoreState;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.gateway.http.ApiKey;
import io.bourse.gateway.http.DemoTraders;
import io.bourse.gateway.http.HttpGateway;
import io.bourse.gateway.fix.FixGateway;
import org.agrona.CloseHelper;
import sun.misc.Signal;

import java.io.File;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The one runnable jar: {@code run} (a single embedded node, with the post-trade store), {@code node} (one member
 * of a cluster), {@code store} (the post-trade store for a member on this machine),
 * {@code journal inspect|dump|verify|snapshot}, {@code help}. Usage errors exit with 2, failures with 1.
 */
public final class Bourse
{
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;

    private static final long STARTUP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(120);
    private static final Set<String> FLAGS = Set.of("tail", "demo-traders");

    static final String USAGE = """
        usage: bourse <command> [options]

          run                    a single embedded node (media driver, journal, consensus, exchange) in this JVM;
                                 applies the configured assets, instruments and demo accounts, serves the HTTP
                                 API, web UI and monitor (http.port), then runs until SIGTERM or Ctrl-C, which
                                 stop it cleanly (with a snapshot)      [--demo-traders: simulated traders]
          node                   one member of a cluster: --member-id N --member-hosts host0,host1,host2
          store                  the post-trade store for a member running on this machine (same --config and
                                 options as the member): writes its committed log to SQLite or PostgreSQL
                                 (store.jdbc.url) and prints its lag, until SIGTERM or Ctrl-C
          gateway-http           the HTTP gateway alone, a client of the cluster at member.hosts/port.base
          gateway-fix            the FIX 4.4 gateway alone, a client of the cluster that member.hosts and port.base
                                 name (run starts one in its JVM when fix.enabled=true, the default)
          journal inspect        a stopped node's journal: recordings, snapshots, message counts and bytes per type
          journal dump           the log as JSON lines       [--tail: only after the latest snapshot] [--limit N]
          journal verify         replay the log from the latest snapshot offline; print the state hash and rates,
                                 and check each fragment read against its checksum (exit 1 when one is damaged)
          journal snapshot       ask a running node to take a snapshot now     [--timeout-s N, default 60]
          aot-training           order flow, a snapshot, a crash and a recovery of a node in a new --data-dir:
                                 ./bourse runs it with -XX:AOTCacheOutput to train the JVM's AOT cache
          help                   this text

        options of run, node and journal:
          --config FILE          a configuration file (default: the packaged config/bourse.properties)
          --KEY=VALUE            override any configuration key, e.g. --data-dir=/var/bourse --port-base=9100
                                 (dashes stand for dots in keys without dots: --data-dir means data.dir)
        """;

    /**
     * A command line that cannot be run as given.
     */
    static final class UsageException extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        UsageException(final String message)
        {
            super(message);
        }
    }

    private record Options(File configFile, Map<String, String> overrides, Map<String, String> toolOptions)
    {
    }

    private final PrintStream out;
    private final PrintStream err;

    Bourse(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    public static void main(final String[] args)
    {
        System.exit(new Bourse(System.out, System.err).execute(args));
    }

    /**
     * Run a command line.
     *
     * @return the process exit code.
     */
    int execute(final String[] args)
    {
        try
        {
            if (args.length == 0)
            {
                throw new UsageException("no command given");
            }
            final List<String> rest = List.of(args).subList(1, args.length);
            return switch (args[0])
            {
                case "run" -> run(options(rest, Set.of("demo-traders")), false);
                case "node" -> run(options(rest, Set.of()), true);
                case "store" -> store(options(rest, Set.of()));
                case "gateway-http" -> gateway(options(rest, Set.of()));
                case "gateway-fix" -> gatewayFix(options(rest, Set.of()));
                case "journal" -> journal(rest);
                case "aot-training" -> aotTraining(options(rest, Set.of()));
                case "help", "--help", "-h" ->
                {
                    out.print(USAGE);
                    yield EXIT_OK;
                }
                default -> throw new UsageException("unknown command '" + args[0] + "'");
            };
        }
        catch (final UsageException | BourseConfig.ConfigException ex)
        {
            err.println("bourse: " + ex.getMessage());
            err.println("bourse: see 'bourse help'");
            return EXIT_USAGE;
        }
        catch (final RuntimeException ex)
        {
            err.println("bourse: " + (ex.getMessage() != null ? ex.getMessage() : ex.toString()));
            return EXIT_FAILED;
        }
    }

    private int journal(final List<String> args)
    {
        if (args.isEmpty())
        {
            throw new UsageException("journal needs a subcommand: inspect, dump, verify or snapshot");
        }
        final List<String> rest = args.subList(1, args.size());
        final JournalTool tool = new JournalTool(out);
        switch (args.getFirst())
        {
            case "inspect" ->
            {
                tool.inspect(config(options(rest, Set.of())).nodeContext().dataDir());
                return EXIT_OK;
            }
            case "dump" ->
            {
                final Options options = options(rest, Set.of("tail", "limit"));
                final long limit = positiveLong(options.toolOptions(), "limit", 0);
                tool.dump(config(options).nodeContext().dataDir(), "true".equals(options.toolOptions().get("tail")), limit);
                return EXIT_OK;
            }
            case "verify" ->
            {
                final ClusterNode.Context context = config(options(rest, Set.of())).nodeContext();
                tool.verify(context.dataDir(), context.historyCapacityBytes());
                return EXIT_OK;
            }
            case "snapshot" ->
            {
                final Options options = options(rest, Set.of("timeout-s"));
                final long timeoutS = positiveLong(options.toolOptions(), "timeout-s", 60);
                final ClusterNode.Context context = config(options).nodeContext();
                return tool.snapshot(context.aeronDirectoryName(), TimeUnit.SECONDS.toNanos(timeoutS)) ?
                    EXIT_OK : EXIT_FAILED;
            }
            default -> throw new UsageException("unknown journal subcommand '" + args.getFirst() +
                "' (known: inspect, dump, verify, snapshot)");
        }
    }

    private int aotTraining(final Options options)
    {
        final BourseConfig config = config(options);
        final File dataDir = config.nodeContext().dataDir().getAbsoluteFile();
        final String[] existing = dataDir.list();
        if (existing != null && existing.length > 0)
        {
            // It defines its own instrument and crashes the node on purpose: never on a real exchange's journal.
            throw new UsageException("aot-training needs a new or empty --data-dir, and " + dataDir + " is not empty");
        }
        AotTraining.run(config::nodeContext, out);
        return EXIT_OK;
    }

    private int run(final Options options, final boolean member)
    {
        final BourseConfig config = config(options);
        final ClusterNode.Context context = config.nodeContext();
        // Checked now, not when they are used: by then the node would have started and the bootstrap written to its
        // journal.
        final HttpConfig httpConfig = member ? null : new HttpConfig(config);
        final long reportIntervalMs = config.storeReportIntervalMs();
        if (!member && context.memberHosts().size() != 1)
        {
            throw new UsageException("run starts one embedded node, but member.hosts lists " +
                context.memberHosts().size() + " members: start each member with 'bourse node'");
        }
        if (member && options.configFile() == null &&
            !(options.overrides().containsKey("member.id") && options.overrides().containsKey("member.hosts")))
        {
            throw new UsageException("node needs --member-id and --member-hosts (or a --config file that sets them)");
        }
        if (httpConfig != null)
        {
            // The last check, once every value has been read: it makes the file.
            httpConfig.checkAdminAuditLog();
        }

        // Handle the signals rather than stop in a shutdown hook: the node then closes on this thread, in order,
        // and the process exits 0 (a JVM ended by SIGTERM exits 143 whatever its hooks do).
        final CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), signal -> stop.countDown());
        Signal.handle(new Signal("INT"), signal -> stop.countDown());

        // The store's database opens first: it tells the node's journal purge which log the store still needs.
        final Store store = !member && config.storeEnabled() ? Store.open(config.storeContext()) : null;
        if (store == null && LogRetention.floor(context.dataDir()) != Long.MAX_VALUE)
        {
            out.printf("bourse: the journal is kept from log position %,d for a post-trade store (%s in the data " +
                "directory); delete that file if no store will read this node again%n",
                LogRetention.floor(context.dataDir()), LogRetention.FILE_NAME);
        }
        final ClusterNode node;
        AutoCloseable http = null;
        FixGateway fixGateway = null;
        final FixSessionCounts fixSessions = config.fixEnabled() ? new FixSessionCounts() : null;
        try
        {
            node = ClusterNode.launch(context);
        }
        catch (final RuntimeException ex)
        {
            if (store != null)
            {
                store.close();
            }
            throw ex;
        }
        try
        {
            if (store != null)
            {
                store.start();
                out.printf("bourse: post-trade store: %s%n", store.databaseDescription());
            }
            if (!member)
            {
                awaitLeader(node, stop);
            }
            if (stop.getCount() > 0 && (!member || context.memberId() == 0))
            {
                bootstrap(config, context);
            }
            if (!member && stop.getCount() > 0)
            {
                http = startHttp(config, httpConfig, node, store, fixSessions,
                    "true".equals(options.toolOptions().get("demo-traders")));
            }
            if (stop.getCount() > 0 && !member && config.fixEnabled())
            {
                fixGateway = FixGateway.launch(config.fixContext().exchangeClient(node.clientContext()).log(out));
                fixSessions.gateway(fixGateway);
            }
            out.printf("bourse: data directory %s%n", context.dataDir().getAbsolutePath());
            out.printf("bourse: cluster ingress %s (Aeron Cluster clients: aeron.cluster.ingress.endpoints)%n",
                context.ingressEndpoints());
            out.printf("bourse: media driver %s%n", context.aeronDirectoryName());
            out.println("bourse: running; stop with Ctrl-C or SIGTERM");
            awaitStop(stop, store == null ? null : store.metrics(), reportIntervalMs);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            out.println("bourse: stopping");
            CloseHelper.quietClose(http);
            CloseHelper.quietClose(fixGateway);
            if (store != null)
            {
                store.close();
            }
            node.close();
        }
        out.println("bourse: stopped cleanly");
        return EXIT_OK;
    }

    /**
     * The post-trade store alone, following a member that runs on this machine (it reads the member's journal through
     * the member's media driver).
     */
    private int store(final Options options)
    {
        final BourseConfig config = config(options);
        final Store.Context context = config.storeContext().log(out);
        final long reportIntervalMs = Math.max(1_000, config.storeReportIntervalMs());
        if (!new File(context.aeronDirectoryName()).isDirectory())
        {
            throw new IllegalStateException("no node runs on " + context.nodeDataDir().getAbsolutePath() +
                " here (media driver " + context.aeronDirectoryName() + " not found): start the node first, " +
                "with the same configuration");
        }
        final CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), signal -> stop.countDown());
        Signal.handle(new Signal("INT"), signal -> stop.countDown());
        try (Store store = Store.open(context).start())
        {
            out.printf("bourse: post-trade store %s for the node in %s; stop with Ctrl-C or SIGTERM%n",
                store.databaseDescription(), context.nodeDataDir().getAbsolutePath());
            awaitStop(stop, store.metrics(), reportIntervalMs);
            out.println("bourse: stopping the store; " + store.metrics().summary());
            return store.metrics().state() == StoreState.FAILED ? EXIT_FAILED : EXIT_OK;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return EXIT_FAILED;
        }
    }

    /**
     * Wait for a stop signal, printing the store's progress and lag every interval when it has changed, and at once
     * when the store fails (it then starts again by itself, from its fence, after a wait).
     */
    private void awaitStop(final CountDownLatch stop, final StoreMetrics metrics, final long reportIntervalMs)
        throws InterruptedException
    {
        if (metrics == null || reportIntervalMs == 0)
        {
            stop.await();
            return;
        }
        String last = "";
        boolean failureReported = false;
        while (!stop.await(reportIntervalMs, TimeUnit.MILLISECONDS))
        {
            final String report = metrics.summary();
            if (!report.equals(last))
            {
                out.println("bourse: " + report);
                last = report;
            }
            if (metrics.state() == StoreState.FAILED && !failureReported)
            {
                err.println("bourse: the post-trade store failed, and starts again by itself: " + metrics.failure());
                failureReported = true;
            }
            else if (metrics.state().isFollowing())
            {
                failureReported = false;
            }
        }
    }

    /**
     * The embedded HTTP gateway's configuration: the node over IPC, the post-trade store's history and lag when the
     * store runs, and the FIX gateway's sessions when it runs.
     */
    static HttpGateway.Context embeddedHttpContext(
        final HttpConfig httpConfig, final ClusterNode node, final StoreHistory history,
        final FixSessionCounts fixSessions)
    {
        final HttpGateway.Context context = httpConfig.context()
            .clientContext(node.clientContext())
            .nodeStatus(new EmbeddedNodeStatus(node));
        if (history != null)
        {
            context.history(history).storeStatus(history);
        }
        if (fixSessions != null)
        {
            context.sessionCounts(fixSessions).monitorSection(fixSessions);
        }
        return context;
    }

    /**
     * The HTTP gateway in the node's JVM (over IPC), and the demo traders when asked for.
     */
    private AutoCloseable startHttp(
        final BourseConfig config, final HttpConfig httpConfig, final ClusterNode node, final Store store,
        final FixSessionCounts fixSessions, final boolean demoTraders)
    {
        final StoreHistory history = store == null ? null : StoreHistory.open(config.storeContext(), store.metrics());
        final HttpGateway gateway;
        try
        {
            gateway = HttpGateway.launch(embeddedHttpContext(httpConfig, node, history, fixSessions));
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(history);
            throw ex;
        }
        DemoTraders traders = null;
        try
        {
            gateway.awaitReady(STARTUP_TIMEOUT_NS);
            final String url = "http://" + httpConfig.host() + ":" + gateway.port();
            out.printf("bourse: web UI %s/ (monitor %s/monitor, REST %s/api/v1, OpenAPI %s/api/openapi.json, WebSocket %s/ws)%n",
                url, url, url, url, url.replace("http:", "ws:"));
            final List<ApiKey> tradingKeys = httpConfig.keys().stream().filter(key -> !key.admin()).toList();
            if (!tradingKeys.isEmpty())
            {
                out.printf("bourse: demo API keys (see http.key.* in the configuration): %s%n",
                    String.join(", ", tradingKeys.stream().map(k -> k.key() + " (account " + k.accountId() + ")").toList()));
            }
            if (demoTraders)
            {
                final List<ApiKey> traderKeys = tradingKeys.stream()
                    .filter(k -> k.key().startsWith("demo-trader") && !k.readOnly()).toList();
                if (traderKeys.size() < 2 || config.instruments().isEmpty())
                {
                    throw new UsageException("--demo-traders needs two http.key.demo-trader*.account keys and an instrument");
                }
                final long seed = System.nanoTime();
                final BourseConfig.InstrumentConfig instrument = config.instruments().getFirst();
                final BigDecimal startMid = instrument.referencePrice() > 0 ?
                    BigDecimal.valueOf(instrument.referencePrice(), instrument.priceScale()) : new BigDecimal("30000");
                traders = new DemoTraders(url, traderKeys, instrument.symbol(), startMid,
                    httpConfig.demoTradersPerSecond(), seed);
                out.printf("bourse: demo traders on %s with accounts %s (seed %d)%n", instrument.symbol(),
                    traderKeys.stream().map(k -> Long.toString(k.accountId())).toList(), seed);
            }
        }
        catch (final RuntimeException ex)
        {
            CloseHelper.quietClose(gateway);
            CloseHelper.quietClose(history);
            throw ex;
        }
        final DemoTraders startedTraders = traders;
        return () ->
        {
            CloseHelper.quietClose(startedTraders);
            gateway.close();
            CloseHelper.quietClose(history);
        };
    }

    /**
     * The HTTP gateway in its own process: a cluster client over UDP with its own media driver.
     */
    private int gateway(final Options options)
    {
        final BourseConfig config = config(options);
        final ClusterNode.Context context = config.nodeContext();
        final HttpConfig httpConfig = new HttpConfig(config);
        httpConfig.checkAdminAuditLog();
        final CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), signal -> stop.countDown());
        Signal.handle(new Signal("INT"), signal -> stop.countDown());
        final HttpGateway gateway = HttpGateway.launch(httpConfig.context()
            .clientContext(new ExchangeClient.Context().ingressEndpoints(context.ingressEndpoints())));
        try
        {
            out.printf("bourse: HTTP gateway on http://%s:%d/ for the cluster at %s; waiting for its state%n",
                httpConfig.host(), gateway.port(), context.ingressEndpoints());
            while (stop.getCount() > 0 && !gateway.isReady())
            {
                stop.await(100, TimeUnit.MILLISECONDS);
            }
            out.println("bourse: gateway ready; stop with Ctrl-C or SIGTERM");
            stop.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            gateway.close();
        }
        out.println("bourse: HTTP gateway stopped");
        return EXIT_OK;
    }

    /**
     * The FIX gateway in its own process: a cluster client over UDP with its own media driver.
     */
    private int gatewayFix(final Options options)
    {
        final BourseConfig config = config(options);
        final ClusterNode.Context nodeContext = config.nodeContext();
        final CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), signal -> stop.countDown());
        Signal.handle(new Signal("INT"), signal -> stop.countDown());
        // A separate process: the cluster client brings its own media driver and reaches the members' ingress.
        final FixGateway gateway = FixGateway.launch(config.fixContext()
            .exchangeClient(new ExchangeClient.Context().ingressEndpoints(nodeContext.ingressEndpoints()))
            .log(out));
        try
        {
            out.printf("bourse: FIX gateway for cluster ingress %s; stop with Ctrl-C or SIGTERM%n",
                nodeContext.ingressEndpoints());
            stop.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            gateway.close();
        }
        out.println("bourse: FIX gateway stopped");
        return EXIT_OK;
    }

    private void bootstrap(final BourseConfig config, final ClusterNode.Context context)
    {
        try
        {
            final Bootstrap.Result result = Bootstrap.apply(
                config, context.ingressEndpoints(), context.aeronDirectoryName(), STARTUP_TIMEOUT_NS);
            out.printf("bourse: configuration applied: %d assets, %d instruments, %d accounts; %s%n",
                config.assets().size(), config.instruments().size(), config.accounts().size(), result.summary());
            for (final String rejection : result.rejections())
            {
                out.println("bourse: rejected: " + rejection);
            }
        }
        catch (final IllegalStateException ex)
        {
            err.println("bourse: " + ex.getMessage());
        }
    }

    private void awaitLeader(final ClusterNode node, final CountDownLatch stop) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + STARTUP_TIMEOUT_NS;
        while (node.role() != Cluster.Role.LEADER && stop.getCount() > 0)
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new IllegalStateException("the node did not become leader within " +
                    TimeUnit.NANOSECONDS.toSeconds(STARTUP_TIMEOUT_NS) + " s");
            }
            stop.await(10, TimeUnit.MILLISECONDS);
        }
    }

    private static BourseConfig config(final Options options)
    {
        return BourseConfig.load(options.configFile(), options.overrides());
    }

    static long positiveLong(final Map<String, String> toolOptions, final String name, final long defaultValue)
    {
        final String text = toolOptions.get(name);
        if (text == null)
        {
            return defaultValue;
        }
        try
        {
            final long value = Long.parseLong(text);
            if (value > 0)
            {
                return value;
            }
        }
        catch (final NumberFormatException ignore)
        {
            // Reported below.
        }
        throw new UsageException("option --" + name + ": expected a positive integer, got '" + text + "'");
    }

    /**
     * Parse {@code --config FILE}, the command's own options and {@code --key=value} / {@code --key value}
     * configuration overrides.
     */
    private static Options options(final List<String> args, final Set<String> toolOptionNames)
    {
        File configFile = null;
        final Map<String, String> overrides = new LinkedHashMap<>();
        final Map<String, String> toolOptions = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++)
        {
            final String arg = args.get(i);
            if (!arg.startsWith("--") || arg.length() == 2)
            {
                throw new UsageException("unexpected argument '" + arg + "' (options are --name=value)");
            }
            final int equals = arg.indexOf('=');
            final String name = equals < 0 ? arg.substring(2) : arg.substring(2, equals);
            final String value;
            if (equals >= 0)
            {
                value = arg.substring(equals + 1);
                if (FLAGS.contains(name) && toolOptionNames.contains(name) && !value.equals("true") &&
                    !value.equals("false"))
                {
                    throw new UsageException("option --" + name + " is a flag: give it alone, or =true or =false");
                }
            }
            else if (FLAGS.contains(name) && toolOptionNames.contains(name))
            {
                value = "true";
            }
            else if (i + 1 < args.size())
            {
                value = args.get(++i);
            }
            else
            {
                throw new UsageException("option --" + name + " needs a value");
            }
            if (name.equals("config"))
            {
                configFile = new File(value);
            }
            else if (toolOptionNames.contains(name))
            {
                toolOptions.put(name, value);
            }
            else
            {
                overrides.put(name.contains(".") ? name : name.replace('-', '.'), value);
            }
        }
        return new Options(configFile, overrides, toolOptions);
    }
}

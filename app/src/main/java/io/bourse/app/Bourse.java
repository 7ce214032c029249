package io.bourse.app;

import io.aeron.cluster.service.Cluster;
import io.bourse.app.journal.JournalTool;
import io.bourse.cluster.ClusterNode;
import io.bourse.cluster.client.ExchangeClient;
import io.bourse.gateway.fix.FixGateway;
import org.agrona.CloseHelper;
import sun.misc.Signal;

import java.io.File;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The one runnable jar: {@code run} (a single embedded node), {@code node} (one member of a cluster),
 * {@code journal inspect|dump|verify|snapshot}, {@code help}. Usage errors exit with 2, failures with 1.
 */
public final class Bourse
{
    static final int EXIT_OK = 0;
    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;

    private static final long STARTUP_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(120);
    private static final Set<String> FLAGS = Set.of("tail");

    static final String USAGE = """
        usage: bourse <command> [options]

          run                    a single embedded node (media driver, journal, consensus, exchange) in this JVM;
                                 applies the configured assets, instruments and demo accounts, then runs until
                                 SIGTERM or Ctrl-C, which stop it cleanly (with a snapshot)
          node                   one member of a cluster: --member-id N --member-hosts host0,host1,host2
          gateway-fix            the FIX 4.4 gateway alone, a client of the cluster that member.hosts and port.base
                                 name (run starts one in its JVM when fix.enabled=true, the default)
          journal inspect        a stopped node's journal: recordings, snapshots, message counts and bytes per type
          journal dump           the log as JSON lines       [--tail: only after the latest snapshot] [--limit N]
          journal verify         replay the log from the latest snapshot offline; print the state hash and rates
          journal snapshot       ask a running node to take a snapshot now     [--timeout-s N, default 60]
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
                case "run" -> run(options(rest, Set.of()), false);
                case "node" -> run(options(rest, Set.of()), true);
                case "gateway-fix" -> gatewayFix(options(rest, Set.of()));
                case "journal" -> journal(rest);
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
                tool.dump(config(options).nodeContext().dataDir(), options.toolOptions().containsKey("tail"), limit);
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

    private int run(final Options options, final boolean member)
    {
        final BourseConfig config = config(options);
        final ClusterNode.Context context = config.nodeContext();
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

        // Handle the signals rather than stop in a shutdown hook: the node then closes on this thread, in order,
        // and the process exits 0 (a JVM ended by SIGTERM exits 143 whatever its hooks do).
        final CountDownLatch stop = new CountDownLatch(1);
        Signal.handle(new Signal("TERM"), signal -> stop.countDown());
        Signal.handle(new Signal("INT"), signal -> stop.countDown());

        final ClusterNode node = ClusterNode.launch(context);
        FixGateway fixGateway = null;
        try
        {
            if (!member)
            {
                awaitLeader(node, stop);
            }
            if (stop.getCount() > 0 && (!member || context.memberId() == 0))
            {
                bootstrap(config, context);
            }
            if (stop.getCount() > 0 && !member && config.fixEnabled())
            {
                fixGateway = FixGateway.launch(config.fixContext().exchangeClient(node.clientContext()).log(out));
            }
            out.printf("bourse: data directory %s%n", context.dataDir().getAbsolutePath());
            out.printf("bourse: cluster ingress %s (Aeron Cluster clients: aeron.cluster.ingress.endpoints)%n",
                context.ingressEndpoints());
            out.printf("bourse: media driver %s%n", context.aeronDirectoryName());
            out.println("bourse: running; stop with Ctrl-C or SIGTERM");
            stop.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            out.println("bourse: stopping");
            CloseHelper.closeAll(fixGateway, node);
        }
        out.println("bourse: stopped cleanly");
        return EXIT_OK;
    }

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

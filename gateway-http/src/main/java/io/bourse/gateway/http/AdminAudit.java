package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The operators' audit trail: one JSON line per request that would change the exchange through the admin API (any
 * method but GET under {@code /api/v1/admin}) whose API key's signature held, whoever's key it was and however it
 * was answered: when, with which key, from which client address, the method, URI and body, and the answer's status
 * and error code. The journal holds every command the exchange applied but not who asked for it; this file says who,
 * and what was refused. Requests no key vouches for are not written (anyone could fill the disk with them): the
 * authentication failures' metrics count them.
 * <p>
 * A line is made as the answer is sent and appended and synced to disk by a thread of its own, so that no request
 * thread waits for the disk. A request whose answer was never sent (the gateway killed, or stopped while the exchange
 * had not answered) has no line, though the exchange may have applied it. A line that cannot be written is said on
 * stderr, and the gateway goes on. A file the gateway makes is readable by its owner only (one that exists keeps its
 * permissions).
 */
final class AdminAudit implements AutoCloseable
{
    private final File file;
    private final FileChannel channel;
    private final PrintStream log;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(runnable ->
    {
        final Thread thread = new Thread(runnable, "bourse-admin-audit");
        thread.setDaemon(true);
        return thread;
    });

    private AdminAudit(final File file, final FileChannel channel, final PrintStream log)
    {
        this.file = file;
        this.channel = channel;
        this.log = log;
    }

    /**
     * Open the file for appending, making it (readable by its owner only) and its directory if needed.
     *
     * @throws IllegalStateException naming the file when it cannot be opened: a gateway that could not keep its
     *                               audit trail does not start.
     */
    static AdminAudit open(final File file, final PrintStream log)
    {
        try
        {
            return new AdminAudit(file, openForAppend(file), log);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot open the admin audit log " + file + ": " + ex, ex);
        }
    }

    /**
     * Check, before anything starts, that the file can be opened for appending (it is made if need be).
     *
     * @return why not, or null.
     */
    static String problem(final File file)
    {
        try (FileChannel ignored = openForAppend(file))
        {
            return null;
        }
        catch (final IOException | java.nio.file.InvalidPathException ex)
        {
            return ex.toString();
        }
    }

    private static FileChannel openForAppend(final File file) throws IOException
    {
        final Path path = file.toPath().toAbsolutePath();
        if (path.getParent() != null)
        {
            Files.createDirectories(path.getParent());
        }
        if (!Files.exists(path))
        {
            try
            {
                Files.createFile(path,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            catch (final FileAlreadyExistsException raced)
            {
                // Made meanwhile, by another gateway on the same file: appended to as it is.
            }
            catch (final UnsupportedOperationException notPosix)
            {
                Files.createFile(path);
            }
        }
        return FileChannel.open(path, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    static boolean isAdminChange(final String method, final String path)
    {
        return !"GET".equals(method) && (path.equals("/api/v1/admin") || path.startsWith("/api/v1/admin/"));
    }

    /**
     * @param key  the API key whose signature held.
     * @param body the request's body, or null.
     * @param code the error code of a problem answer, or null.
     */
    void record(
        final long timeMs, final String key, final String address, final String method, final String uri,
        final byte[] body, final int status, final String code)
    {
        final ObjectNode line = Views.MAPPER.createObjectNode();
        line.put("time", Instant.ofEpochMilli(timeMs).toString());
        line.put("key", key);
        line.put("address", address);
        line.put("method", method);
        line.put("uri", uri);
        line.put("body", body == null ? null : new String(body, StandardCharsets.UTF_8));
        line.put("status", status);
        line.put("code", code);
        final String text = line + "\n";
        try
        {
            writer.execute(() -> write(text));
        }
        catch (final java.util.concurrent.RejectedExecutionException closed)
        {
            log.println("bourse HTTP gateway: the admin audit log " + file + " is closed; lost: " + text.strip());
        }
    }

    private void write(final String text)
    {
        final ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
        try
        {
            while (bytes.hasRemaining())
            {
                channel.write(bytes);
            }
            channel.force(false);
        }
        catch (final IOException ex)
        {
            log.println("bourse HTTP gateway: cannot write the admin audit log " + file + ": " + ex + "; lost: " +
                text.strip());
        }
    }

    /**
     * Write the lines made so far, then close the file.
     */
    public void close()
    {
        writer.shutdown();
        try
        {
            if (!writer.awaitTermination(10, TimeUnit.SECONDS))
            {
                log.println("bourse HTTP gateway: the admin audit log " + file + " took over 10 s to write");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        try
        {
            channel.close();
        }
        catch (final IOException ex)
        {
            log.println("bourse HTTP gateway: cannot close the admin audit log " + file + ": " + ex);
        }
    }
}

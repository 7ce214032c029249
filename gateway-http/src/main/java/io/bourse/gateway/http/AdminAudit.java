package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * The operators' audit trail: one JSON line per request that would change the exchange through the admin API (any
 * method but GET under {@code /api/v1/admin}), whoever sent it and however it was answered: when, with which key
 * (or, without a valid signature, the key it claimed), from which client address, the method, path and body, and the
 * answer's status and error code. The journal holds every command the exchange applied but not who asked for it; this file
 * says who, and what was refused.
 * <p>
 * Appended and synced to disk as each answer is sent (admin requests are few), by whichever event loop sends it. A
 * request whose answer was never sent (the gateway killed meanwhile) has no line, though the exchange may have applied
 * it. A line that cannot be written is said on stderr, and the gateway goes on.
 */
final class AdminAudit implements AutoCloseable
{
    private final File file;
    private final FileChannel channel;
    private final PrintStream log;

    private AdminAudit(final File file, final FileChannel channel, final PrintStream log)
    {
        this.file = file;
        this.channel = channel;
        this.log = log;
    }

    /**
     * Open the file for appending, making its directory if needed.
     *
     * @throws IllegalStateException naming the file when it cannot be opened: a gateway that could not keep its
     *                               audit trail does not start.
     */
    static AdminAudit open(final File file, final PrintStream log)
    {
        final File directory = file.getAbsoluteFile().getParentFile();
        if (!directory.isDirectory() && !directory.mkdirs())
        {
            throw new IllegalStateException("cannot make the directory of the admin audit log " + file);
        }
        try
        {
            return new AdminAudit(file, FileChannel.open(file.toPath(), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.APPEND), log);
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException("cannot open the admin audit log " + file + ": " + ex.getMessage(), ex);
        }
    }

    static boolean isAdminChange(final String method, final String path)
    {
        return !"GET".equals(method) && (path.equals("/api/v1/admin") || path.startsWith("/api/v1/admin/"));
    }

    /**
     * @param key        the API key whose signature held, or null.
     * @param claimedKey the key the request named, when none held; else null.
     * @param body       the request's body, or null.
     * @param code       the error code of a problem answer, or null.
     */
    synchronized void record(
        final long timeMs, final String key, final String claimedKey, final String address, final String method,
        final String uri, final byte[] body, final int status, final String code)
    {
        final ObjectNode line = Views.MAPPER.createObjectNode();
        line.put("time", Instant.ofEpochMilli(timeMs).toString());
        line.put("key", key);
        if (claimedKey != null)
        {
            line.put("claimedKey", claimedKey);
        }
        line.put("address", address);
        line.put("method", method);
        line.put("uri", uri);
        line.put("body", body == null ? null : new String(body, StandardCharsets.UTF_8));
        line.put("status", status);
        line.put("code", code);
        final ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8));
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
            log.println("bourse HTTP gateway: cannot write the admin audit log " + file + ": " + ex.getMessage() +
                "; lost: " + line);
        }
    }

    public synchronized void close()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ex)
        {
            log.println("bourse HTTP gateway: cannot close the admin audit log " + file + ": " + ex.getMessage());
        }
    }
}

package io.bourse.cluster;

import io.aeron.CommonContext;
import org.agrona.IoUtil;

import java.io.File;

/**
 * Directories for media drivers a process launches for itself (a gateway's, a client's), named by the process's id so
 * that those a process killed with {@code kill -9} left behind can be told from those of processes still running,
 * and removed.
 * <p>
 * Why: a media driver deletes its directory when it shuts down, which a killed process never does, and the directory
 * lives in {@code /dev/shm}: memory. Each is tens of megabytes, so a gateway restarted by a supervisor after every
 * crash, or a test suite that kills gateways, used to fill the machine's memory a crash at a time (on a test machine,
 * 500 directories, 23 GB, until everything swapped).
 * <p>
 * A directory is removed only when no process of its id runs and its driver's heartbeat has stopped, so that a driver
 * of another process namespace sharing {@code /dev/shm} is not taken for one left behind.
 */
public final class ProcessAeronDirectory
{
    private ProcessAeronDirectory()
    {
    }

    /**
     * Remove what processes no longer running left behind under {@code prefix}, then name this process's directory.
     *
     * @param prefix what the directories of this kind begin with, e.g. {@code bourse-client}.
     * @param suffix what tells this directory from others of the process (letters, digits and '-'), or empty.
     * @return {@code <parent>/<prefix>-<pid>[-<suffix>]}, the parent being where Aeron keeps its directories
     * ({@code /dev/shm} on Linux).
     */
    public static String forThisProcess(final String prefix, final String suffix)
    {
        final File parent = new File(CommonContext.AERON_DIR_PROP_DEFAULT).getParentFile();
        removeLeftBehind(parent, prefix);
        final String name = prefix + "-" + ProcessHandle.current().pid() + (suffix.isEmpty() ? "" : "-" + suffix);
        return new File(parent, name).getPath();
    }

    static void removeLeftBehind(final File parent, final String prefix)
    {
        final File[] directories = parent.listFiles(
            file -> file.isDirectory() && file.getName().startsWith(prefix + "-"));
        if (directories == null)
        {
            return;
        }
        for (final File directory : directories)
        {
            final long pid = pid(directory.getName().substring(prefix.length() + 1));
            if (pid > 0 && !ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false) &&
                !CommonContext.isDriverActive(directory, CommonContext.DEFAULT_DRIVER_TIMEOUT_MS, message -> { }))
            {
                IoUtil.delete(directory, true);
            }
        }
    }

    private static long pid(final String rest)
    {
        final int end = rest.indexOf('-');
        final String digits = end < 0 ? rest : rest.substring(0, end);
        if (digits.isEmpty() || digits.length() > 18)
        {
            return -1;
        }
        for (int i = 0; i < digits.length(); i++)
        {
            if (!Character.isDigit(digits.charAt(i)))
            {
                return -1;
            }
        }
        return Long.parseLong(digits);
    }
}

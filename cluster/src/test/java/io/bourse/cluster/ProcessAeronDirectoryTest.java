package io.bourse.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a process killed with {@code kill -9} left behind is removed; what a running process uses, and what is not one
 * of these directories, stays.
 */
class ProcessAeronDirectoryTest
{
    @Test
    void theDirectoriesOfProcessesNoLongerRunningAreRemovedAndNoOthers(@TempDir final File parent)
        throws IOException, InterruptedException
    {
        final Process exited = new ProcessBuilder("true").start();
        assertTrue(exited.waitFor(10, TimeUnit.SECONDS), "a process that exits");
        final File leftBehind = directory(parent, "bourse-test-" + exited.pid() + "-1");
        final File running = directory(parent, "bourse-test-" + ProcessHandle.current().pid() + "-1");
        final File notOurs = directory(parent, "bourse-test-driver");
        final File otherKind = directory(parent, "bourse-other-" + exited.pid());

        ProcessAeronDirectory.removeLeftBehind(parent, "bourse-test");

        assertFalse(leftBehind.exists(), "left behind by a process no longer running");
        assertTrue(running.exists(), "this process's");
        assertTrue(notOurs.exists(), "not named by a process id");
        assertTrue(otherKind.exists(), "another prefix");
    }

    @Test
    void thisProcesssDirectoryIsNamedByItsId()
    {
        final String path = ProcessAeronDirectory.forThisProcess("bourse-test", "7");
        assertEquals("bourse-test-" + ProcessHandle.current().pid() + "-7", new File(path).getName());
    }

    private static File directory(final File parent, final String name)
    {
        final File directory = new File(parent, name);
        assertTrue(directory.mkdir(), name);
        return directory;
    }
}

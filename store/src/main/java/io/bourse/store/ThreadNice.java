package io.bourse.store;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Lowers the calling thread's scheduling priority (its Linux nice value), so that on a busy machine the store takes
 * only CPU that the node's threads leave idle: the matching path keeps its share, and the store catches up when load
 * eases. Java thread priorities do not reach the Linux scheduler, so this calls {@code setpriority(2)} on the thread's
 * id through the foreign function interface.
 */
final class ThreadNice
{
    private static final int PRIO_PROCESS = 0;

    private ThreadNice()
    {
    }

    /**
     * @param nice 1 (slightly lower) to 19 (lowest).
     * @return null when applied, otherwise why not (not Linux, no libc symbol, or refused).
     */
    static String apply(final int nice)
    {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux"))
        {
            return "thread priorities are set only on Linux";
        }
        try
        {
            final Linker linker = Linker.nativeLinker();
            final SymbolLookup libc = linker.defaultLookup();
            final MethodHandle gettid = linker.downcallHandle(
                libc.find("gettid").orElseThrow(() -> new IllegalStateException("gettid not found")),
                FunctionDescriptor.of(ValueLayout.JAVA_INT));
            final MethodHandle setpriority = linker.downcallHandle(
                libc.find("setpriority").orElseThrow(() -> new IllegalStateException("setpriority not found")),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT));
            final int tid = (int)gettid.invokeExact();
            final int result = (int)setpriority.invokeExact(PRIO_PROCESS, tid, nice);
            return result == 0 ? null : "setpriority returned " + result;
        }
        catch (final Throwable ex)
        {
            return ex.toString();
        }
    }
}

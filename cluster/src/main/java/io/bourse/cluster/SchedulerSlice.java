package io.bourse.cluster;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;

/**
 * Gives the calling thread a short Linux scheduler slice (EEVDF's per-thread slice, {@code sched_setattr(2)} with
 * {@code sched_runtime} on a normal thread, Linux 6.12 and later; earlier kernels ignore it).
 * <p>
 * Why: on two cores the node's agents are often more runnable threads than there are cores. A thread with work then
 * waits until the one running has used its slice, 0.75 ms times (1 + log2 CPUs) by default, and a command crossing
 * four agents can wait that several times. With a 0.1 ms slice the wait is a tenth as long: measured side by side, the
 * 1,000/s round trip's p99 went from 1.7–2.8 ms to 0.4–0.7 ms and the 10,000/s one's from 1.7–1.9 to 0.5–1.1 ms, with
 * the same throughput (bench/README.md). A shorter slice changes when a thread runs, not its share of the CPU, which
 * stays that of its nice value. Threads a thread starts inherit its slice.
 */
final class SchedulerSlice
{
    /**
     * The shortest slice Linux accepts.
     */
    static final long AGENT_SLICE_NS = TimeUnit.MICROSECONDS.toNanos(100);

    private static final int ATTR_SIZE = 56;
    private static final long RUNTIME_OFFSET = 24;
    private static final long[] SYSCALL_NUMBERS = syscallNumbers();
    private static final MethodHandle SYSCALL = SYSCALL_NUMBERS == null ? null : syscall();

    private SchedulerSlice()
    {
    }

    /**
     * Set the calling thread's slice, keeping its policy and nice value.
     *
     * @return whether the kernel took the request (a kernel before 6.12 takes it and ignores the slice).
     */
    static boolean applyToCurrentThread(final long sliceNs)
    {
        if (SYSCALL == null)
        {
            return false;
        }
        try (Arena arena = Arena.ofConfined())
        {
            final MemorySegment attr = arena.allocate(ATTR_SIZE, Long.BYTES);
            // pid 0 is the calling thread; the current attributes are read first so only the slice changes.
            if ((long)SYSCALL.invokeExact(SYSCALL_NUMBERS[1], 0L, attr, (long)ATTR_SIZE, 0L) != 0)
            {
                return false;
            }
            attr.set(ValueLayout.JAVA_LONG, RUNTIME_OFFSET, sliceNs);
            return (long)SYSCALL.invokeExact(SYSCALL_NUMBERS[0], 0L, attr, 0L, 0L) == 0;
        }
        catch (final Throwable ex)
        {
            return false;
        }
    }

    /**
     * @return {@code sched_setattr} and {@code sched_getattr}'s numbers on this machine, or null off Linux.
     */
    private static long[] syscallNumbers()
    {
        if (!System.getProperty("os.name", "").startsWith("Linux"))
        {
            return null;
        }
        return switch (System.getProperty("os.arch", ""))
        {
            case "amd64", "x86_64" -> new long[] { 314, 315 };
            case "aarch64" -> new long[] { 274, 275 };
            default -> null;
        };
    }

    private static MethodHandle syscall()
    {
        try
        {
            final Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("syscall")
                .map(address -> linker.downcallHandle(
                    address,
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG),
                    Linker.Option.firstVariadicArg(1)))
                .orElse(null);
        }
        catch (final RuntimeException ex)
        {
            // IllegalCallerException when native access is denied: the thread keeps the default slice.
            return null;
        }
    }
}

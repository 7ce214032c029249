package io.bourse.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NodeIdleStrategyTest
{
    private static final int PR_GET_TIMERSLACK = 30;

    @Test
    @EnabledOnOs(OS.LINUX)
    void theFirstIdleLowersTheTimerSlackOfTheIdlingThreadOnly() throws Exception
    {
        final AtomicInteger before = new AtomicInteger();
        final AtomicInteger after = new AtomicInteger();
        final Thread agent = new Thread(() ->
        {
            before.set(timerSlackNs());
            final NodeIdleStrategy idle = new NodeIdleStrategy();
            idle.idle(0);
            after.set(timerSlackNs());
        });
        agent.start();
        agent.join(10_000);

        assertTrue(before.get() > 1, "a new thread starts with the default slack, got " + before.get());
        assertEquals(1, after.get());
        assertTrue(timerSlackNs() > 1, "the test thread's own slack is unchanged");
    }

    private static int timerSlackNs()
    {
        final Linker linker = Linker.nativeLinker();
        final MethodHandle prctl = linker.downcallHandle(
            linker.defaultLookup().find("prctl").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT),
            Linker.Option.firstVariadicArg(1));
        try
        {
            return (int)prctl.invokeExact(PR_GET_TIMERSLACK);
        }
        catch (final Throwable ex)
        {
            throw new IllegalStateException(ex);
        }
    }
}

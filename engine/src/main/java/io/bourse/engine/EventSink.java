package io.bourse.engine;

import org.agrona.DirectBuffer;

/**
 * Receives encoded event messages from an {@link EventEncoder}. The buffer is re-used for the next event: copy
 * what must be kept.
 */
@FunctionalInterface
public interface EventSink
{
    void onEvent(DirectBuffer buffer, int offset, int length);
}

package io.bourse.engine;

import io.bourse.protocol.codec.Side;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SmokeTest
{
    @Test
    void restingSellIsFilledByCrossingBuy()
    {
        final EngineFixture f = new EngineFixture();
        f.fundAll(1);
        f.fundAll(2);
        f.limit(1, 1, Side.SELL, 10_000, 5);
        f.limit(2, 1, Side.BUY, 10_100, 3);
        final EventRecorder.Trade trade = f.events.only(EventRecorder.Trade.class);
        assertEquals(10_000, trade.price());
        assertEquals(3, trade.quantity());
        f.engine.validateInternalState();
        f.events.events().forEach(System.out::println);
    }
}

package io.bourse.gateway.fix;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a restarted gateway reads back from its order record: open orders, and new orders recorded as sent whose
 * acceptance or refusal was not recorded after them (pending, with order id 0), each once, across compactions.
 */
class FixOrderStoreTest
{
    @Test
    void aPendingOrderIsReadBackUntilItsAcceptanceOrRefusalIsRecorded(@TempDir final File dir)
    {
        final File file = new File(dir, "open-orders.dat");
        try (FixOrderStore store = new FixOrderStore(file);
            FixEventPosition scratch = new FixEventPosition(new File(dir, "scratch.dat")))
        {
            store.open();
            final FixSessionState session = new FixSessionState(
                new FixSessionSpec("ALICE", "pw", 1, FixSessionSpec.CancelOnDisconnect.NONE, 0), FixRateLimit.NONE, scratch, scratch, scratch);
            final FixOrder accepted = recordedOrder(session, "A", 11, '1', 100, 1);
            final FixOrder refused = recordedOrder(session, "B", 12, '1', 100, 1);
            final FixOrder unanswered = recordedOrder(session, "C", 13, '1', 100, 1);
            store.writePending(accepted);
            store.writePending(refused);
            store.writePending(unanswered);
            accepted.orderId = 500;
            store.writeOpen(accepted);
            store.writeNotAccepted(refused.engineClientOrderId);
        }
        for (int start = 0; start < 2; start++)
        {
            try (FixOrderStore store = new FixOrderStore(file))
            {
                final List<FixOrderStore.Entry> entries = store.open();
                assertEquals(List.of("A:500", "C:0"),
                    entries.stream().map(entry -> entry.clOrdId() + ":" + entry.orderId()).toList(),
                    "after " + start + " compactions");
                assertEquals(13, entries.get(1).engineClientOrderId());
            }
        }
    }

    /**
     * A new order of account 1 in BTC-USD as the gateway records it before sending it.
     */
    static FixOrder recordedOrder(
        final FixSessionState session, final String clOrdId, final long engineClientOrderId, final char side,
        final long price, final long quantity)
    {
        final FixOrder order = new FixOrder();
        order.session = session;
        order.clOrdId(clOrdId.toCharArray(), clOrdId.length());
        order.engineClientOrderId = engineClientOrderId;
        order.accountId = 1;
        order.instrument = FixTestExchange.BTC_USD;
        order.side = side;
        order.ordType = '2';
        order.price = price;
        order.quantity = quantity;
        return order;
    }
}

package io.bourse.gateway.fix;

/**
 * Stage timestamps of an order's path through the gateway, for latency measurement (the benchmark in {@code bench}).
 * Called on the gateway's thread when the ExecutionReport acknowledging a new order has been handed to Artio. All
 * times are epoch nanoseconds: the gateway's clock ({@link FixGateway.Context#epochNanoClock}) except
 * {@code sequencedNs}, which is the cluster's time for the command.
 */
public interface FixLatencyProbe
{
    /**
     * @param clOrdId          the order's ClOrdID (valid during the call only).
     * @param clOrdIdLength    its length.
     * @param receivedNs       when Artio read the NewOrderSingle from the socket.
     * @param commandSentNs    when the gateway sent the order's command to the cluster.
     * @param sequencedNs      the cluster time of the command (when the leader sequenced it).
     * @param eventsReceivedNs when the engine's events for it reached the gateway.
     * @param reportSentNs     when the ExecutionReport was handed to Artio for sending.
     */
    void onNewOrderAcknowledged(
        char[] clOrdId, int clOrdIdLength, long receivedNs, long commandSentNs, long sequencedNs, long eventsReceivedNs,
        long reportSentNs);
}

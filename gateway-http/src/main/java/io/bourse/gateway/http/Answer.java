package io.bourse.gateway.http;

import io.bourse.protocol.codec.CancelAllAfterChangedDecoder;
import io.bourse.protocol.codec.CommandRejectedDecoder;
import io.bourse.protocol.codec.MassCancelCompletedDecoder;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.OrderAcceptedDecoder;
import io.bourse.protocol.codec.OrderCanceledDecoder;
import io.bourse.protocol.codec.OrderReplacedDecoder;
import io.bourse.protocol.codec.RejectReason;
import io.bourse.protocol.codec.TransferProcessedDecoder;
import io.bourse.protocol.codec.BooleanType;
import org.agrona.DirectBuffer;

/**
 * What the events answering one command say, read once on the gateway thread: rejected (and why), or the order
 * it created or changed, the number of orders a mass cancel canceled, whether a transfer was applied, the
 * cancel-all-after switch as armed.
 */
final class Answer
{
    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final CommandRejectedDecoder rejected = new CommandRejectedDecoder();
    private final OrderAcceptedDecoder accepted = new OrderAcceptedDecoder();
    private final OrderReplacedDecoder replacedOrder = new OrderReplacedDecoder();
    private final OrderCanceledDecoder canceled = new OrderCanceledDecoder();
    private final MassCancelCompletedDecoder massCanceled = new MassCancelCompletedDecoder();
    private final TransferProcessedDecoder transfer = new TransferProcessedDecoder();
    private final CancelAllAfterChangedDecoder cancelAllAfter = new CancelAllAfterChangedDecoder();

    RejectReason rejectReason;
    long orderId;
    long accountId;
    int canceledCount;
    /**
     * Whether the command's order was replaced, and if so whether it kept its place in the queue.
     */
    boolean replaced;
    boolean priorityKept;
    boolean transferApplied;
    boolean ignored;
    /**
     * The cancel-all-after switch as the command left it: its timeout and deadline (0 when disarmed), and the
     * command's time (cluster time).
     */
    long cancelAllAfterTimeoutMs;
    long cancelAllAfterDeadlineNs;
    long cancelAllAfterTimeNs;

    Answer read(final DirectBuffer buffer, final int offset, final int length)
    {
        rejectReason = null;
        orderId = 0;
        accountId = 0;
        canceledCount = 0;
        replaced = false;
        priorityKept = false;
        transferApplied = false;
        ignored = false;
        cancelAllAfterTimeoutMs = 0;
        cancelAllAfterDeadlineNs = 0;
        cancelAllAfterTimeNs = 0;
        final int end = offset + length;
        int position = offset;
        while (position < end)
        {
            header.wrap(buffer, position);
            final int body = position + MessageHeaderDecoder.ENCODED_LENGTH;
            final int blockLength = header.blockLength();
            final int version = header.version();
            switch (header.templateId())
            {
                case CommandRejectedDecoder.TEMPLATE_ID ->
                    rejectReason = rejected.wrap(buffer, body, blockLength, version).reason();
                case OrderAcceptedDecoder.TEMPLATE_ID -> first(accepted.wrap(buffer, body, blockLength, version).orderId(),
                    accepted.accountId());
                case OrderReplacedDecoder.TEMPLATE_ID ->
                {
                    replacedOrder.wrap(buffer, body, blockLength, version);
                    if (orderId == 0)
                    {
                        replaced = true;
                        priorityKept = replacedOrder.priorityKept() == BooleanType.TRUE;
                    }
                    first(replacedOrder.orderId(), replacedOrder.accountId());
                }
                case OrderCanceledDecoder.TEMPLATE_ID -> first(canceled.wrap(buffer, body, blockLength, version).orderId(),
                    canceled.accountId());
                case MassCancelCompletedDecoder.TEMPLATE_ID ->
                    canceledCount = massCanceled.wrap(buffer, body, blockLength, version).canceledCount();
                case CancelAllAfterChangedDecoder.TEMPLATE_ID ->
                {
                    cancelAllAfter.wrap(buffer, body, blockLength, version);
                    cancelAllAfterTimeoutMs = cancelAllAfter.timeoutMs();
                    cancelAllAfterDeadlineNs = cancelAllAfter.deadlineNs();
                    cancelAllAfterTimeNs = cancelAllAfter.timestampNs();
                }
                case TransferProcessedDecoder.TEMPLATE_ID ->
                    transferApplied = transfer.wrap(buffer, body, blockLength, version).applied() == BooleanType.TRUE;
                default ->
                {
                }
            }
            position = body + blockLength;
        }
        return this;
    }

    /**
     * The first order event is the command's own order; later ones are resting orders it traded with or removed.
     */
    private void first(final long orderId, final long accountId)
    {
        if (this.orderId == 0)
        {
            this.orderId = orderId;
            this.accountId = accountId;
        }
    }
}

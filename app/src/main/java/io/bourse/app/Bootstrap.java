package io.bourse.app;

import io.bourse.cluster.client.ExchangeClient;
import io.bourse.cluster.client.ExchangeClientListener;
import io.bourse.protocol.CommandEncoder;
import io.bourse.protocol.codec.BooleanType;
import io.bourse.protocol.codec.CommandRejectedDecoder;
import io.bourse.protocol.codec.MessageHeaderDecoder;
import io.bourse.protocol.codec.TransferProcessedDecoder;
import io.bourse.protocol.cluster.IgnoredReason;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Applies the configured assets, instruments and demo accounts to a running cluster as admin commands. Safe to
 * repeat at every start: definitions with the same values are accepted again, and deposits carry fixed
 * transaction ids, which the engine applies only once.
 */
public final class Bootstrap implements ExchangeClientListener
{
    /**
     * What the bootstrap did.
     *
     * @param commands          admin commands sent.
     * @param depositsApplied   deposits credited now.
     * @param depositsRepeated  deposits whose transaction id had already been applied.
     * @param rejections        one line per rejected command.
     */
    public record Result(int commands, int depositsApplied, int depositsRepeated, List<String> rejections)
    {
        public String summary()
        {
            return commands + " admin commands: " + depositsApplied + " deposits applied, " + depositsRepeated +
                " already applied earlier, " + rejections.size() + " rejected";
        }
    }

    private final MessageHeaderDecoder header = new MessageHeaderDecoder();
    private final CommandRejectedDecoder rejected = new CommandRejectedDecoder();
    private final TransferProcessedDecoder transfer = new TransferProcessedDecoder();
    private final List<String> rejections = new ArrayList<>();
    private final List<String> sentCommands = new ArrayList<>();
    private ExchangeClient client;
    private int depositsApplied;
    private int depositsRepeated;

    /**
     * Send the configuration's admin commands and wait until every one is answered.
     *
     * @param aeronDirectoryName the media driver to use (the node's), or null for an embedded one.
     */
    public static Result apply(
        final BourseConfig config, final String ingressEndpoints, final String aeronDirectoryName, final long timeoutNs)
    {
        return new Bootstrap().run(config, ingressEndpoints, aeronDirectoryName, timeoutNs);
    }

    private Result run(
        final BourseConfig config, final String ingressEndpoints, final String aeronDirectoryName, final long timeoutNs)
    {
        try (ExchangeClient exchangeClient = new ExchangeClient(new ExchangeClient.Context()
            .ingressEndpoints(ingressEndpoints)
            .aeronDirectoryName(aeronDirectoryName)
            .listener(this)))
        {
            client = exchangeClient;
            for (final AdminCommand command : commands(config))
            {
                send(command);
            }
            final long deadlineNs = System.nanoTime() + timeoutNs;
            while (client.unansweredCount() > 0)
            {
                if (System.nanoTime() > deadlineNs)
                {
                    throw new IllegalStateException("bootstrap: " + client.unansweredCount() + " of " +
                        sentCommands.size() + " admin commands unanswered after " +
                        TimeUnit.NANOSECONDS.toSeconds(timeoutNs) + " s (is the cluster up and has it a leader?)");
                }
                if (client.doWork() == 0)
                {
                    sleep();
                }
            }
            return new Result(sentCommands.size(), depositsApplied, depositsRepeated, List.copyOf(rejections));
        }
    }

    /**
     * The admin commands a configuration stands for, in the order they are sent: assets, instruments, then each
     * account's limits, fee rates and deposits.
     */
    static List<AdminCommand> commands(final BourseConfig config)
    {
        final CommandEncoder encoder = new CommandEncoder();
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(256);
        final List<AdminCommand> commands = new ArrayList<>();
        for (final BourseConfig.AssetConfig asset : config.assets())
        {
            commands.add(new AdminCommand("define asset " + asset.symbol(), buffer,
                encoder.defineAsset(buffer, 0, asset.id(), asset.scale(), asset.symbol())));
        }
        for (final BourseConfig.InstrumentConfig instrument : config.instruments())
        {
            commands.add(new AdminCommand("define instrument " + instrument.symbol(), buffer,
                encoder.defineInstrument(buffer, 0, instrument.id(), instrument.symbol(), instrument.base().id(),
                instrument.quote().id(), instrument.priceScale(), instrument.tickSize(), instrument.quantityScale(),
                instrument.lotSize(), instrument.minQuantity(), instrument.maxQuantity(), instrument.priceBandBps(),
                instrument.referencePrice(), instrument.makerFeePpm(), instrument.takerFeePpm(),
                instrument.tradingState())));
        }
        for (final BourseConfig.AccountConfig account : config.accounts())
        {
            if (account.hasLimits())
            {
                commands.add(new AdminCommand("limits of account " + account.id(), buffer,
                    encoder.setAccountLimits(buffer, 0, account.id(), account.maxOrderQuantity(),
                    account.maxOrderNotional(), account.maxOpenOrders(), account.selfTradePrevention())));
            }
            if (account.hasFees())
            {
                commands.add(new AdminCommand("fee rates of account " + account.id(), buffer,
                    encoder.setAccountFees(buffer, 0, account.id(), account.makerFeePpm(), account.takerFeePpm())));
            }
            for (final BourseConfig.DepositConfig deposit : account.deposits())
            {
                commands.add(new AdminCommand("deposit " + deposit.transactionId() + " to account " + account.id(),
                    buffer, encoder.deposit(buffer, 0, deposit.transactionId(), account.id(), deposit.asset().id(),
                    deposit.amount())));
            }
        }
        return commands;
    }

    /**
     * One admin command: what it does, and its SBE message (engine schema, header included).
     */
    record AdminCommand(String description, byte[] message)
    {
        AdminCommand(final String description, final ExpandableArrayBuffer buffer, final int length)
        {
            this(description, Arrays.copyOf(buffer.byteArray(), length));
        }
    }

    private void send(final AdminCommand command)
    {
        final UnsafeBuffer message = new UnsafeBuffer(command.message());
        if (client.trySend(message, 0, message.capacity()) < 0)
        {
            throw new IllegalStateException("bootstrap: too many admin commands in the configuration");
        }
        sentCommands.add(command.description());
        client.doWork();
    }

    public void onEventBatch(
        final long batchSequence,
        final long logPosition,
        final long timestampNs,
        final long clientId,
        final long requestSequence,
        final DirectBuffer events,
        final int offset,
        final int length,
        final int eventCount)
    {
        if (clientId != client.clientId())
        {
            return;
        }
        int position = offset;
        for (int i = 0; i < eventCount; i++)
        {
            header.wrap(events, position);
            final int bodyOffset = position + MessageHeaderDecoder.ENCODED_LENGTH;
            if (header.templateId() == CommandRejectedDecoder.TEMPLATE_ID)
            {
                rejected.wrap(events, bodyOffset, header.blockLength(), header.version());
                rejections.add(sentCommands.get((int)requestSequence - 1) + ": " + rejected.reason());
            }
            else if (header.templateId() == TransferProcessedDecoder.TEMPLATE_ID)
            {
                transfer.wrap(events, bodyOffset, header.blockLength(), header.version());
                if (transfer.applied() == BooleanType.TRUE)
                {
                    depositsApplied++;
                }
                else
                {
                    depositsRepeated++;
                }
            }
            position = bodyOffset + header.blockLength();
        }
    }

    public void onRequestIgnored(final long requestSequence, final IgnoredReason reason)
    {
        rejections.add(sentCommands.get((int)requestSequence - 1) + ": ignored by the cluster, " + reason);
    }

    private static void sleep()
    {
        try
        {
            Thread.sleep(1);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("bootstrap interrupted", ex);
        }
    }
}

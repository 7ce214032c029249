package io.bourse.app.journal;

import io.aeron.cluster.client.AeronCluster;
import io.aeron.cluster.codecs.ClusterActionRequestDecoder;
import io.aeron.cluster.codecs.MembershipChangeEventDecoder;
import io.aeron.cluster.codecs.MessageHeaderDecoder;
import io.aeron.cluster.codecs.NewLeadershipTermEventDecoder;
import io.aeron.cluster.codecs.SessionCloseEventDecoder;
import io.aeron.cluster.codecs.SessionMessageHeaderDecoder;
import io.aeron.cluster.codecs.SessionOpenEventDecoder;
import io.aeron.cluster.codecs.TimerEventDecoder;
import io.bourse.cluster.RequestAdmission;
import io.bourse.engine.CommandAdapter;
import io.bourse.protocol.cluster.BatchContinueDecoder;
import io.bourse.protocol.cluster.ReplayRequestDecoder;
import io.bourse.protocol.cluster.RequestDecoder;
import io.bourse.protocol.cluster.SnapshotRequestDecoder;
import io.bourse.protocol.cluster.StateContinueDecoder;
import io.bourse.protocol.cluster.StateHashCheckpointDecoder;
import io.bourse.protocol.cluster.StateRequestDecoder;
import io.bourse.protocol.codec.CancelOrderDecoder;
import io.bourse.protocol.codec.DefineAssetDecoder;
import io.bourse.protocol.codec.DefineInstrumentDecoder;
import io.bourse.protocol.codec.DepositDecoder;
import io.bourse.protocol.codec.ExpireOrdersDecoder;
import io.bourse.protocol.codec.MassCancelDecoder;
import io.bourse.protocol.codec.NewOrderDecoder;
import io.bourse.protocol.codec.QueryOrderDecoder;
import io.bourse.protocol.codec.ReplaceOrderDecoder;
import io.bourse.protocol.codec.SetAccountFeesDecoder;
import io.bourse.protocol.codec.SetAccountLimitsDecoder;
import io.bourse.protocol.codec.SetCancelAllAfterDecoder;
import io.bourse.protocol.codec.SetKillSwitchDecoder;
import io.bourse.protocol.codec.SetTradingStateDecoder;
import io.bourse.protocol.codec.WithdrawDecoder;
import org.agrona.DirectBuffer;

/**
 * Names and decodes the messages of a cluster log: Aeron Cluster's own (timers, session open and close, leadership
 * terms, cluster actions) and, inside session messages, the exchange's ingress (a {@code Request} envelope and its
 * engine command; a replay, snapshot or state request; the ask for a state answer's or a batch's next round). For the
 * journal tools, not the hot path: it allocates strings.
 */
final class LogMessageDecoder
{
    static final long NO_TIMESTAMP = Long.MIN_VALUE;

    private final MessageHeaderDecoder clusterHeader = new MessageHeaderDecoder();
    private final SessionMessageHeaderDecoder sessionHeader = new SessionMessageHeaderDecoder();
    private final TimerEventDecoder timerEvent = new TimerEventDecoder();
    private final SessionOpenEventDecoder sessionOpen = new SessionOpenEventDecoder();
    private final SessionCloseEventDecoder sessionClose = new SessionCloseEventDecoder();
    private final ClusterActionRequestDecoder actionRequest = new ClusterActionRequestDecoder();
    private final NewLeadershipTermEventDecoder newLeadershipTerm = new NewLeadershipTermEventDecoder();
    private final MembershipChangeEventDecoder membershipChange = new MembershipChangeEventDecoder();
    private final io.bourse.protocol.cluster.MessageHeaderDecoder ingressHeader =
        new io.bourse.protocol.cluster.MessageHeaderDecoder();
    private final RequestDecoder request = new RequestDecoder();
    private final ReplayRequestDecoder replayRequest = new ReplayRequestDecoder();
    private final SnapshotRequestDecoder snapshotRequest = new SnapshotRequestDecoder();
    private final StateRequestDecoder stateRequest = new StateRequestDecoder();
    private final StateHashCheckpointDecoder checkpoint = new StateHashCheckpointDecoder();
    private final StateContinueDecoder stateContinue = new StateContinueDecoder();
    private final BatchContinueDecoder batchContinue = new BatchContinueDecoder();
    private final io.bourse.protocol.codec.MessageHeaderDecoder commandHeader =
        new io.bourse.protocol.codec.MessageHeaderDecoder();
    private final NewOrderDecoder newOrder = new NewOrderDecoder();
    private final CancelOrderDecoder cancelOrder = new CancelOrderDecoder();
    private final ReplaceOrderDecoder replaceOrder = new ReplaceOrderDecoder();
    private final MassCancelDecoder massCancel = new MassCancelDecoder();
    private final QueryOrderDecoder queryOrder = new QueryOrderDecoder();
    private final ExpireOrdersDecoder expireOrders = new ExpireOrdersDecoder();
    private final DefineAssetDecoder defineAsset = new DefineAssetDecoder();
    private final DefineInstrumentDecoder defineInstrument = new DefineInstrumentDecoder();
    private final SetTradingStateDecoder setTradingState = new SetTradingStateDecoder();
    private final DepositDecoder deposit = new DepositDecoder();
    private final WithdrawDecoder withdraw = new WithdrawDecoder();
    private final SetAccountLimitsDecoder setAccountLimits = new SetAccountLimitsDecoder();
    private final SetAccountFeesDecoder setAccountFees = new SetAccountFeesDecoder();
    private final SetKillSwitchDecoder setKillSwitch = new SetKillSwitchDecoder();
    private final SetCancelAllAfterDecoder setCancelAllAfter = new SetCancelAllAfterDecoder();

    private String type;
    private long timestamp;
    private final StringBuilder fields = new StringBuilder();

    /**
     * Decode one whole log message; then read {@link #type()}, {@link #timestamp()} and {@link #appendJson}.
     */
    void decode(final DirectBuffer buffer, final int offset, final int length)
    {
        fields.setLength(0);
        timestamp = NO_TIMESTAMP;
        clusterHeader.wrap(buffer, offset);
        if (clusterHeader.schemaId() != MessageHeaderDecoder.SCHEMA_ID)
        {
            type = "unknown schema " + clusterHeader.schemaId();
            return;
        }
        final int body = offset + MessageHeaderDecoder.ENCODED_LENGTH;
        final int blockLength = clusterHeader.blockLength();
        final int version = clusterHeader.version();
        switch (clusterHeader.templateId())
        {
            case SessionMessageHeaderDecoder.TEMPLATE_ID ->
            {
                sessionHeader.wrap(buffer, body, blockLength, version);
                timestamp = sessionHeader.timestamp();
                field("clusterSessionId", sessionHeader.clusterSessionId());
                decodeIngress(buffer, offset + AeronCluster.SESSION_HEADER_LENGTH,
                    length - AeronCluster.SESSION_HEADER_LENGTH);
            }
            case TimerEventDecoder.TEMPLATE_ID ->
            {
                timerEvent.wrap(buffer, body, blockLength, version);
                type = "TimerEvent";
                timestamp = timerEvent.timestamp();
                field("correlationId", timerEvent.correlationId());
            }
            case SessionOpenEventDecoder.TEMPLATE_ID ->
            {
                sessionOpen.wrap(buffer, body, blockLength, version);
                type = "SessionOpenEvent";
                timestamp = sessionOpen.timestamp();
                field("clusterSessionId", sessionOpen.clusterSessionId());
                field("responseStreamId", sessionOpen.responseStreamId());
                field("responseChannel", sessionOpen.responseChannel());
            }
            case SessionCloseEventDecoder.TEMPLATE_ID ->
            {
                sessionClose.wrap(buffer, body, blockLength, version);
                type = "SessionCloseEvent";
                timestamp = sessionClose.timestamp();
                field("clusterSessionId", sessionClose.clusterSessionId());
                field("closeReason", String.valueOf(sessionClose.closeReason()));
            }
            case ClusterActionRequestDecoder.TEMPLATE_ID ->
            {
                actionRequest.wrap(buffer, body, blockLength, version);
                type = "ClusterActionRequest";
                timestamp = actionRequest.timestamp();
                field("action", String.valueOf(actionRequest.action()));
            }
            case NewLeadershipTermEventDecoder.TEMPLATE_ID ->
            {
                newLeadershipTerm.wrap(buffer, body, blockLength, version);
                type = "NewLeadershipTermEvent";
                timestamp = newLeadershipTerm.timestamp();
                field("leadershipTermId", newLeadershipTerm.leadershipTermId());
                field("leaderMemberId", newLeadershipTerm.leaderMemberId());
            }
            case MembershipChangeEventDecoder.TEMPLATE_ID ->
            {
                membershipChange.wrap(buffer, body, blockLength, version);
                type = "MembershipChangeEvent";
                timestamp = membershipChange.timestamp();
            }
            default -> type = "cluster template " + clusterHeader.templateId();
        }
    }

    /**
     * @return the message's type: an engine command's name for a request, else the ingress or cluster message's.
     */
    String type()
    {
        return type;
    }

    /**
     * @return the cluster timestamp of the message (ns with Bourse's clock), or {@link #NO_TIMESTAMP}.
     */
    long timestamp()
    {
        return timestamp;
    }

    /**
     * Append the decoded fields as JSON members (without braces), each preceded by a comma.
     */
    void appendJson(final StringBuilder out)
    {
        out.append(fields);
    }

    private void decodeIngress(final DirectBuffer buffer, final int offset, final int length)
    {
        ingressHeader.wrap(buffer, offset);
        if (length < io.bourse.protocol.cluster.MessageHeaderDecoder.ENCODED_LENGTH ||
            ingressHeader.schemaId() != io.bourse.protocol.cluster.MessageHeaderDecoder.SCHEMA_ID)
        {
            type = "MalformedIngress";
            return;
        }
        final int body = offset + io.bourse.protocol.cluster.MessageHeaderDecoder.ENCODED_LENGTH;
        switch (ingressHeader.templateId())
        {
            case RequestDecoder.TEMPLATE_ID ->
            {
                if (!RequestAdmission.isRequest(ingressHeader, length))
                {
                    // Ignored by the node and the store alike.
                    type = "MalformedIngress";
                    return;
                }
                request.wrap(buffer, body, ingressHeader.blockLength(), ingressHeader.version());
                field("clientId", request.clientId());
                field("requestSequence", request.requestSequence());
                final int commandOffset = body + ingressHeader.blockLength();
                decodeCommand(buffer, commandOffset, offset + length - commandOffset);
            }
            case ReplayRequestDecoder.TEMPLATE_ID ->
            {
                replayRequest.wrap(buffer, body, ingressHeader.blockLength(), ingressHeader.version());
                type = "ReplayRequest";
                field("clientId", replayRequest.clientId());
                field("fromLogPosition", replayRequest.fromLogPosition());
            }
            case SnapshotRequestDecoder.TEMPLATE_ID ->
            {
                snapshotRequest.wrap(buffer, body, ingressHeader.blockLength(), ingressHeader.version());
                type = "SnapshotRequest";
                field("clientId", snapshotRequest.clientId());
            }
            case StateRequestDecoder.TEMPLATE_ID ->
            {
                stateRequest.wrap(buffer, body, ingressHeader.blockLength(), ingressHeader.version());
                type = "StateRequest";
                field("clientId", stateRequest.clientId());
            }
            case StateContinueDecoder.TEMPLATE_ID ->
            {
                stateContinue.wrap(buffer, body, ingressHeader.blockLength(), ingressHeader.version());
                type = "StateContinue";
                field("clientId", stateContinue.clientId());
                field("logPosition", stateContinue.logPosition());
                field("fromChunkIndex", stateContinue.fromChunkIndex());
            }
            case BatchContinueDecoder.TEMPLATE_ID ->
            {
                batchContinue.wrap(buffer, body, ingressHeader.blockLength(), ingressHeader.version());
                type = "BatchContinue";
                field("clientId", batchContinue.clientId());
                field("batchSequence", batchContinue.batchSequence());
                field("fromPartIndex", batchContinue.fromPartIndex());
            }
            case StateHashCheckpointDecoder.TEMPLATE_ID ->
            {
                checkpoint.wrap(buffer, body, ingressHeader.blockLength(), ingressHeader.version());
                type = "StateHashCheckpoint";
                field("logPosition", checkpoint.logPosition());
                field("stateHash", checkpoint.stateHash());
                field("engineStateHash", checkpoint.engineStateHash());
                field("memberId", checkpoint.memberId());
            }
            default -> type = "MalformedIngress";
        }
    }

    private void decodeCommand(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < io.bourse.protocol.codec.MessageHeaderDecoder.ENCODED_LENGTH)
        {
            type = "MalformedCommand";
            return;
        }
        commandHeader.wrap(buffer, offset);
        final int body = offset + io.bourse.protocol.codec.MessageHeaderDecoder.ENCODED_LENGTH;
        final int blockLength = commandHeader.blockLength();
        final int version = commandHeader.version();
        // As the engine decides (CommandAdapter), so that the dump shows no fields read past a message's end.
        final int commandBlockLength = CommandAdapter.blockLength(commandHeader.templateId(), version);
        if (commandHeader.schemaId() != io.bourse.protocol.codec.MessageHeaderDecoder.SCHEMA_ID ||
            length - io.bourse.protocol.codec.MessageHeaderDecoder.ENCODED_LENGTH < blockLength ||
            (commandBlockLength >= 0 && blockLength != commandBlockLength))
        {
            type = "MalformedCommand";
            return;
        }
        final StringBuilder text = new StringBuilder();
        String symbol = null;
        // SBE prints a field newer than the command's version as its null value; the engine reads it as 0 (no stop).
        String absentField = null;
        switch (commandHeader.templateId())
        {
            case NewOrderDecoder.TEMPLATE_ID ->
            {
                newOrder.wrap(buffer, body, blockLength, version).appendTo(text);
                absentField = version < NewOrderDecoder.stopPriceSinceVersion() ? "stopPrice" : null;
            }
            case CancelOrderDecoder.TEMPLATE_ID -> cancelOrder.wrap(buffer, body, blockLength, version).appendTo(text);
            case ReplaceOrderDecoder.TEMPLATE_ID ->
            {
                replaceOrder.wrap(buffer, body, blockLength, version).appendTo(text);
                absentField = version < ReplaceOrderDecoder.stopPriceSinceVersion() ? "stopPrice" : null;
            }
            case MassCancelDecoder.TEMPLATE_ID -> massCancel.wrap(buffer, body, blockLength, version).appendTo(text);
            case QueryOrderDecoder.TEMPLATE_ID -> queryOrder.wrap(buffer, body, blockLength, version).appendTo(text);
            case ExpireOrdersDecoder.TEMPLATE_ID -> expireOrders.wrap(buffer, body, blockLength, version).appendTo(text);
            case DefineAssetDecoder.TEMPLATE_ID ->
            {
                defineAsset.wrap(buffer, body, blockLength, version).appendTo(text);
                symbol = printedSymbol(defineAsset::symbol, DefineAssetDecoder.symbolLength());
            }
            case DefineInstrumentDecoder.TEMPLATE_ID ->
            {
                defineInstrument.wrap(buffer, body, blockLength, version).appendTo(text);
                symbol = printedSymbol(defineInstrument::symbol, DefineInstrumentDecoder.symbolLength());
            }
            case SetTradingStateDecoder.TEMPLATE_ID ->
                setTradingState.wrap(buffer, body, blockLength, version).appendTo(text);
            case DepositDecoder.TEMPLATE_ID -> deposit.wrap(buffer, body, blockLength, version).appendTo(text);
            case WithdrawDecoder.TEMPLATE_ID -> withdraw.wrap(buffer, body, blockLength, version).appendTo(text);
            case SetAccountLimitsDecoder.TEMPLATE_ID ->
                setAccountLimits.wrap(buffer, body, blockLength, version).appendTo(text);
            case SetKillSwitchDecoder.TEMPLATE_ID -> setKillSwitch.wrap(buffer, body, blockLength, version).appendTo(text);
            case SetAccountFeesDecoder.TEMPLATE_ID ->
                setAccountFees.wrap(buffer, body, blockLength, version).appendTo(text);
            case SetCancelAllAfterDecoder.TEMPLATE_ID ->
                setCancelAllAfter.wrap(buffer, body, blockLength, version).appendTo(text);
            default ->
            {
                type = "UnknownCommand";
                field("commandTemplateId", commandHeader.templateId());
                return;
            }
        }
        appendSbeText(text, symbol, absentField);
    }

    /**
     * @return the symbol as SBE's {@code appendTo} prints it: its characters up to the first that is not 1 to 127.
     */
    private static String printedSymbol(final java.util.function.IntUnaryOperator character, final int length)
    {
        final StringBuilder printed = new StringBuilder(length);
        for (int i = 0; i < length && character.applyAsInt(i) > 0; i++)
        {
            printed.append((char)character.applyAsInt(i));
        }
        return printed.toString();
    }

    /**
     * Turn an SBE decoder's {@code appendTo} text, {@code [Name](sbe...):a=1|b=X}, into the type and JSON fields.
     * Command fields are flat (numbers, enums, a symbol), so splitting on '|' is exact once the symbol, which may hold
     * any printable character, is taken out.
     *
     * @param symbol      the command's symbol, or null when it has none.
     * @param absentField a field the command's version does not carry, left out; null when there is none.
     */
    private void appendSbeText(final CharSequence text, final String symbol, final String absentField)
    {
        final String value = text.toString();
        type = value.substring(1, value.indexOf(']'));
        String body = value.substring(value.indexOf("):") + 2);
        if (symbol != null)
        {
            body = body.replace("symbol=" + symbol, "");
            field("symbol", symbol);
        }
        for (final String pair : body.split("\\|"))
        {
            final int equals = pair.indexOf('=');
            if (equals > 0 && !pair.substring(0, equals).equals(absentField))
            {
                final String name = pair.substring(0, equals);
                final String fieldValue = pair.substring(equals + 1);
                // A JSON number has no leading zero: "0700" (a symbol) stays a string.
                if (fieldValue.matches("-?(0|[1-9]\\d*)"))
                {
                    fields.append(",\"").append(name).append("\":").append(fieldValue);
                }
                else
                {
                    field(name, fieldValue.startsWith("'") && fieldValue.endsWith("'") && fieldValue.length() > 1 ?
                        fieldValue.substring(1, fieldValue.length() - 1) : fieldValue);
                }
            }
        }
    }

    private void field(final String name, final long value)
    {
        fields.append(",\"").append(name).append("\":").append(value);
    }

    private void field(final String name, final String value)
    {
        fields.append(",\"").append(name).append("\":\"");
        Json.escape(value, fields);
        fields.append('"');
    }
}

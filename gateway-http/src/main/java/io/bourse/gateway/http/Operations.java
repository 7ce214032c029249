package io.bourse.gateway.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bourse.protocol.codec.RejectReason;

import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.ToLongFunction;

/**
 * The operations side of the gateway: {@code /health}, {@code /metrics} (Prometheus text) and the figures of the
 * monitor page ({@code /api/v1/monitor}), including the sections other components add.
 */
final class Operations
{
    private final NodeStatus nodeStatus;
    private final List<MonitorSection> monitorSections;
    private final StoreStatus storeStatus;
    private final List<SessionCounts> sessionCounts;
    private final GatewayMetrics metrics;
    private final GatewayAgent agent;
    private final BooleanSupplier isReady;
    private final long startedMs = System.currentTimeMillis();

    Operations(
        final NodeStatus nodeStatus, final List<MonitorSection> monitorSections, final StoreStatus storeStatus,
        final List<SessionCounts> sessionCounts, final GatewayMetrics metrics, final GatewayAgent agent,
        final BooleanSupplier isReady)
    {
        this.nodeStatus = nodeStatus;
        this.monitorSections = monitorSections;
        this.storeStatus = storeStatus;
        this.sessionCounts = List.copyOf(sessionCounts);
        this.metrics = metrics;
        this.agent = agent;
        this.isReady = isReady;
    }

    ObjectNode health()
    {
        final ObjectNode node = Views.MAPPER.createObjectNode();
        final boolean ready = isReady.getAsBoolean();
        final String role = nodeStatus.role();
        node.put("status", ready ? "UP" : "DOWN");
        node.put("acceptingOrders", ready);
        node.put("connected", agent.isConnected());
        node.put("stateLoaded", agent.isLive());
        node.put("role", role);
        node.put("leaderMemberId", agent.leaderMemberId());
        return node;
    }

    ObjectNode monitor()
    {
        final ObjectNode node = Views.MAPPER.createObjectNode();
        node.put("time", System.currentTimeMillis());
        node.put("uptimeMs", System.currentTimeMillis() - startedMs);
        final ObjectNode cluster = node.putObject("cluster");
        cluster.put("role", nodeStatus.role());
        cluster.put("leaderMemberId", agent.leaderMemberId());
        cluster.put("connected", agent.isConnected());
        cluster.put("acceptingOrders", isReady.getAsBoolean());
        cluster.put("journalBytes", nodeStatus.journalBytes());
        cluster.put("lastSnapshotAgeMs", nodeStatus.lastSnapshotAgeMs());
        cluster.put("stateHashesAgreed", nodeStatus.stateHashesAgreed());
        cluster.put("stateHashesDiverged", nodeStatus.stateHashesDiverged());
        final ObjectNode gateway = node.putObject("http");
        gateway.put("commandsPerSecond", Math.round(metrics.commandsPerSecond() * 10) / 10.0);
        gateway.put("batchesPerSecond", Math.round(metrics.batchesPerSecond() * 10) / 10.0);
        gateway.put("commandsTotal", metrics.commandsSent.sum());
        gateway.put("httpRequests", metrics.httpRequests.sum());
        gateway.put("httpErrors", metrics.httpErrors.sum());
        gateway.put("rateLimited", metrics.rateLimited.sum());
        gateway.put("authFailures", metrics.authFailures.sum());
        gateway.put("webSocketSessions", agent.wsSessionCount());
        gateway.put("webSocketMessages", metrics.wsMessages.sum());
        gateway.put("webSocketDropped", metrics.wsDropped.sum());
        gateway.put("webSocketSlowConsumersClosed", metrics.wsSlowConsumers.sum());
        gateway.put("webSocketRefused", metrics.wsRefused.sum());
        gateway.put("cancelOnDisconnectFailed", metrics.cancelOnDisconnectFailed.sum());
        gateway.put("cancelAllAfterArmed", agent.cancelAllAfterArmed());
        gateway.put("cancelAllAfterTriggered", agent.cancelAllAfterTriggered());
        gateway.put("eventGaps", metrics.eventGaps.sum());
        gateway.put("answersLost", metrics.answersLost.sum());
        gateway.put("commandsTimedOut", metrics.commandsTimedOut.sum());
        final ObjectNode sessions = node.putObject("sessions");
        sessions.put("webSocket", agent.wsSessionCount());
        for (final SessionCounts counts : sessionCounts)
        {
            final ObjectNode other = sessions.putObject(counts.gateway());
            other.put("loggedOn", counts.loggedOn());
            other.put("configured", counts.configured());
            other.put("messagesDropped", counts.messagesDropped());
            other.put("messagesRateLimited", counts.messagesRateLimited());
        }
        final ObjectNode store = node.putObject("store");
        store.put("available", storeStatus != null);
        if (storeStatus == null)
        {
            store.put("note", "no post-trade store in this process: history and store lag are not available here");
        }
        else
        {
            store.put("state", storeStatus.state());
            store.put("fenceLogPosition", storeStatus.fenceLogPosition());
            store.put("committedLogPosition", storeStatus.committedLogPosition());
            store.put("lagBytes", storeStatus.lagBytes());
            store.put("lagSeconds", Math.round(storeStatus.lagSeconds() * 1000) / 1000.0);
            store.put("stateHashesAgreed", storeStatus.stateHashesAgreed());
            store.put("stateHashesDiverged", storeStatus.stateHashesDiverged());
        }
        node.put("latencyNote", "to_sequenced and sequenced_to_answer split the cluster round trip at the cluster's " +
            "timestamp of the command: comparable when gateway and node share a clock");
        final ObjectNode latency = node.putObject("latencyUs");
        for (int stage = 0; stage < GatewayMetrics.STAGES.length; stage++)
        {
            final ObjectNode s = latency.putObject(GatewayMetrics.STAGES[stage]);
            final long[] last = metrics.lastPercentilesNs(stage);
            final long[] total = metrics.totalPercentilesNs(stage);
            s.put("p50", last[0] / 1000);
            s.put("p90", last[1] / 1000);
            s.put("p99", last[2] / 1000);
            s.put("max", last[3] / 1000);
            s.put("p99SinceStart", total[2] / 1000);
        }
        final ObjectNode rejects = node.putObject("rejects");
        for (final RejectReason reason : RejectReason.values())
        {
            if (reason != RejectReason.NULL_VAL && metrics.rejects.get(reason.value() & 255) > 0)
            {
                rejects.put(reason.name(), metrics.rejects.get(reason.value() & 255));
            }
        }
        final ObjectNode sections = node.putObject("sections");
        for (final MonitorSection section : monitorSections)
        {
            sections.set(section.name(), Views.MAPPER.valueToTree(section.values()));
        }
        return node;
    }

    String metricsText()
    {
        final StringBuilder out = new StringBuilder(4096);
        final String role = nodeStatus.role();
        gauge(out, "bourse_up", "1 when the gateway is connected and holds the exchange state", isReady.getAsBoolean() ? 1 : 0);
        if (role != null)
        {
            out.append("# HELP bourse_node_role the node's cluster role\n# TYPE bourse_node_role gauge\n")
                .append("bourse_node_role{role=\"").append(role).append("\"} 1\n");
        }
        gauge(out, "bourse_leader_member_id", "the cluster leader's member id", agent.leaderMemberId());
        gauge(out, "bourse_journal_bytes", "bytes of journal on disk (-1 unknown)", nodeStatus.journalBytes());
        gauge(out, "bourse_snapshot_age_seconds", "seconds since the last snapshot (-1 none)",
            nodeStatus.lastSnapshotAgeMs() < 0 ? -1 : nodeStatus.lastSnapshotAgeMs() / 1000.0);
        if (nodeStatus.stateHashesAgreed() >= 0)
        {
            counter(out, "bourse_state_hashes_agreed_total",
                "snapshots at which this member's state hashes agreed with another member's (or its own before a " +
                "restart)", nodeStatus.stateHashesAgreed());
            counter(out, "bourse_state_hashes_diverged_total",
                "snapshots at which they did not: this member's state went another way",
                nodeStatus.stateHashesDiverged());
        }
        counter(out, "bourse_http_requests_total", "HTTP requests received", metrics.httpRequests.sum());
        counter(out, "bourse_http_errors_total", "HTTP error responses", metrics.httpErrors.sum());
        counter(out, "bourse_http_rate_limited_total", "requests refused by a rate limit (a key's, a connection's or an address's)", metrics.rateLimited.sum());
        counter(out, "bourse_http_auth_failures_total", "requests refused by authentication", metrics.authFailures.sum());
        counter(out, "bourse_commands_total", "commands sent to the cluster", metrics.commandsSent.sum());
        counter(out, "bourse_http_event_gaps_total",
            "times the gateway missed event batches the node no longer held (its state fetched again)",
            metrics.eventGaps.sum());
        counter(out, "bourse_http_answers_lost_total",
            "commands the node applied whose answers were lost (answered 503 OUTCOME_UNKNOWN)",
            metrics.answersLost.sum());
        counter(out, "bourse_http_commands_timed_out_total",
            "commands with no answer within http.command.timeout.ms (answered 504 OUTCOME_UNKNOWN)",
            metrics.commandsTimedOut.sum());
        gauge(out, "bourse_commands_per_second", "commands sent in the last second", metrics.commandsPerSecond());
        gauge(out, "bourse_event_batches_per_second", "event batches received in the last second (all clients)",
            metrics.batchesPerSecond());
        out.append("# HELP bourse_rejects_total commands rejected by the engine, by reason\n")
            .append("# TYPE bourse_rejects_total counter\n");
        for (final RejectReason reason : RejectReason.values())
        {
            if (reason != RejectReason.NULL_VAL)
            {
                out.append("bourse_rejects_total{reason=\"").append(reason.name()).append("\"} ")
                    .append(metrics.rejects.get(reason.value() & 255)).append('\n');
            }
        }
        out.append("# HELP bourse_latency_seconds latency over the last second, by stage\n")
            .append("# TYPE bourse_latency_seconds gauge\n");
        final String[] quantiles = { "0.5", "0.9", "0.99", "1" };
        for (int stage = 0; stage < GatewayMetrics.STAGES.length; stage++)
        {
            final long[] last = metrics.lastPercentilesNs(stage);
            for (int q = 0; q < quantiles.length; q++)
            {
                out.append("bourse_latency_seconds{stage=\"").append(GatewayMetrics.STAGES[stage])
                    .append("\",quantile=\"").append(quantiles[q]).append("\"} ").append(last[q] / 1e9).append('\n');
            }
        }
        gauge(out, "bourse_websocket_sessions", "open WebSocket sessions", agent.wsSessionCount());
        counter(out, "bourse_websocket_messages_total", "WebSocket messages sent", metrics.wsMessages.sum());
        counter(out, "bourse_websocket_dropped_total", "WebSocket messages not sent to slow subscribers",
            metrics.wsDropped.sum());
        counter(out, "bourse_websocket_slow_consumers_closed_total",
            "WebSocket connections closed because an answer to their own message could not be queued",
            metrics.wsSlowConsumers.sum());
        counter(out, "bourse_websocket_refused_total", "WebSocket connections refused at the connection limits",
            metrics.wsRefused.sum());
        counter(out, "bourse_websocket_cancel_on_disconnect_failed_total",
            "cancels asked for by closed WebSocket connections that failed or whose outcome is unknown",
            metrics.cancelOnDisconnectFailed.sum());
        gauge(out, "bourse_http_cancel_all_after_armed", "accounts with a dead man's switch armed on the exchange",
            agent.cancelAllAfterArmed());
        counter(out, "bourse_http_cancel_all_after_triggered_total",
            "dead man's switches this gateway has seen reach their deadline",
            agent.cancelAllAfterTriggered());
        if (!sessionCounts.isEmpty())
        {
            byGateway(out, "bourse_sessions_logged_on", "sessions logged on now", "gauge", SessionCounts::loggedOn);
            byGateway(out, "bourse_sessions_configured", "sessions configured", "gauge", SessionCounts::configured);
            byGateway(out, "bourse_session_messages_dropped_total",
                "messages for sessions never sent (held for a session away past the gateway's limit)", "counter",
                SessionCounts::messagesDropped);
            byGateway(out, "bourse_session_messages_rate_limited_total",
                "messages of sessions refused by their rate limit", "counter", SessionCounts::messagesRateLimited);
        }
        gauge(out, "bourse_store_available", "1 when this process runs the post-trade store (history, lag), else 0",
            storeStatus == null ? 0 : 1);
        if (storeStatus != null)
        {
            out.append("# HELP bourse_store_state the post-trade store's state\n# TYPE bourse_store_state gauge\n")
                .append("bourse_store_state{state=\"").append(storeStatus.state()).append("\"} 1\n");
            gauge(out, "bourse_store_fence_log_position", "log position up to which the store's database is committed",
                storeStatus.fenceLogPosition());
            gauge(out, "bourse_store_committed_log_position", "the cluster's commit position as the store last saw it",
                storeStatus.committedLogPosition());
            gauge(out, "bourse_store_lag_bytes", "bytes of committed log not yet in the store's database",
                storeStatus.lagBytes());
            gauge(out, "bourse_store_lag_seconds", "seconds the store's database is behind the cluster",
                storeStatus.lagSeconds());
            counter(out, "bourse_store_state_hashes_agreed_total",
                "snapshots at which the store's engine had the leader's state hash", storeStatus.stateHashesAgreed());
            counter(out, "bourse_store_state_hashes_diverged_total",
                "snapshots at which it did not: the history written from there on may not be the exchange's",
                storeStatus.stateHashesDiverged());
        }
        for (final MonitorSection section : monitorSections)
        {
            for (final Map.Entry<String, Object> entry : section.values().entrySet())
            {
                if (entry.getValue() instanceof Number number)
                {
                    gauge(out, "bourse_" + section.name() + "_" + entry.getKey().replaceAll("[^A-Za-z0-9_]", "_"),
                        section.name() + " " + entry.getKey(), number.doubleValue());
                }
            }
        }
        return out.toString();
    }

    private static void gauge(final StringBuilder out, final String name, final String help, final double value)
    {
        out.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" gauge\n")
            .append(name).append(' ').append(value).append('\n');
    }

    /**
     * A metric of the other gateways' sessions, one sample per gateway.
     */
    private void byGateway(
        final StringBuilder out, final String name, final String help, final String type,
        final ToLongFunction<SessionCounts> value)
    {
        out.append("# HELP ").append(name).append(' ').append(help).append(", by gateway\n# TYPE ").append(name)
            .append(' ').append(type).append('\n');
        for (final SessionCounts counts : sessionCounts)
        {
            out.append(name).append("{gateway=\"").append(counts.gateway()).append("\"} ")
                .append(value.applyAsLong(counts)).append('\n');
        }
    }

    private static void counter(final StringBuilder out, final String name, final String help, final long value)
    {
        out.append("# HELP ").append(name).append(' ').append(help).append("\n# TYPE ").append(name).append(" counter\n")
            .append(name).append(' ').append(value).append('\n');
    }
}

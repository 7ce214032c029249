package io.bourse.gateway.http;

/**
 * Sessions of another gateway in the same process (the FIX gateway), shown beside the HTTP gateway's own WebSocket
 * sessions on the monitor page and exported on {@code /metrics}. Read from any thread.
 */
public interface SessionCounts
{
    /**
     * @return a short lower-case name, the metric label ({@code bourse_sessions{gateway="fix"}}).
     */
    String gateway();

    /**
     * @return sessions connected and logged on now.
     */
    int loggedOn();

    /**
     * @return sessions configured (that could log on).
     */
    int configured();

    /**
     * @return messages for sessions that were never sent, since the gateway started: kept for a session away past
     * what the gateway holds for one (the oldest go).
     */
    long messagesDropped();

    /**
     * @return messages of sessions refused by their rate limit, since the gateway started.
     */
    long messagesRateLimited();
}

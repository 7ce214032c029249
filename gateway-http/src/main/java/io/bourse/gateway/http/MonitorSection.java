package io.bourse.gateway.http;

import java.util.Map;

/**
 * A named group of figures shown on the monitor page and exported on {@code /metrics}: how other components
 * (FIX gateway sessions, post-trade store lag) add themselves without changing the gateway.
 */
public interface MonitorSection
{
    /**
     * @return a short title, also the metric name prefix ({@code bourse_<name>_<key>}): lower case, underscores.
     */
    String name();

    /**
     * @return the current figures, read from any thread: numbers are exported as metrics, other values only shown.
     */
    Map<String, Object> values();
}

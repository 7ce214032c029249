package io.bourse.gateway.http;

/**
 * A request that cannot be served: becomes an {@code application/problem+json} response with a stable error
 * code, a human message and, where there is one, the offending field.
 */
final class ApiException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    final int status;
    final String code;
    final String field;
    final long retryAfterS;

    ApiException(final int status, final String code, final String message, final String field)
    {
        this(status, code, message, field, 0);
    }

    /**
     * @param retryAfterS seconds for the {@code Retry-After} header, 0 for none. A 503 with one says that the request
     *                    was not acted on, so that the same signed request may be sent again (see
     *                    {@link #invitesResend()}).
     */
    ApiException(final int status, final String code, final String message, final String field, final long retryAfterS)
    {
        super(message, null, false, false);
        this.status = status;
        this.code = code;
        this.field = field;
        this.retryAfterS = retryAfterS;
    }

    /**
     * @return whether the request was refused before it acted, with an invitation to send it again.
     */
    boolean invitesResend()
    {
        return status == 503 && retryAfterS > 0;
    }

    static ApiException badRequest(final String code, final String message, final String field)
    {
        return new ApiException(400, code, message, field);
    }

    /**
     * A defect of the gateway's, answered 500 rather than leaving the request unanswered.
     */
    static ApiException internal(final RuntimeException defect)
    {
        return new ApiException(500, "INTERNAL_ERROR", "internal error: " + defect, null);
    }
}

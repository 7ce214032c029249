package io.bourse.gateway.http;

/**
 * An API key from configuration: a trading key acts for one account, an admin key for the operator.
 *
 * @param key       the public key id sent in {@code X-Bourse-Key}.
 * @param secret    the shared secret requests are signed with.
 * @param accountId the account a trading key acts for; 0 for an admin key.
 * @param admin     true for an admin key (admin endpoints only).
 * @param readOnly  true for a trading key that may read its account (orders, fills, balances, history, private
 *                  channels) but not place, replace or cancel orders: for reporting tools and dashboards.
 */
public record ApiKey(String key, String secret, long accountId, boolean admin, boolean readOnly)
{
    public ApiKey
    {
        if (admin && readOnly)
        {
            throw new IllegalArgumentException("API key " + key + ": read-only is for a trading key, not an admin key");
        }
    }

    /**
     * A key that may do all its kind may.
     */
    public ApiKey(final String key, final String secret, final long accountId, final boolean admin)
    {
        this(key, secret, accountId, admin, false);
    }

    @Override
    public String toString()
    {
        return "ApiKey[" + key + (admin ? ", admin" : ", account " + accountId) + (readOnly ? ", read-only" : "") + "]";
    }
}

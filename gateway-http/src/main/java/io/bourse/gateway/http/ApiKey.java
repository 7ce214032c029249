package io.bourse.gateway.http;

/**
 * An API key from configuration: a trading key acts for one account, an admin key for the operator.
 *
 * @param key       the public key id sent in {@code X-Bourse-Key}.
 * @param secret    the shared secret requests are signed with.
 * @param accountId the account a trading key acts for; 0 for an admin key.
 * @param admin     true for an admin key (admin endpoints only).
 */
public record ApiKey(String key, String secret, long accountId, boolean admin)
{
    @Override
    public String toString()
    {
        return "ApiKey[" + key + (admin ? ", admin" : ", account " + accountId) + "]";
    }
}

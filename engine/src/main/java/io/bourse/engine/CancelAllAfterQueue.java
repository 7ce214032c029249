package io.bourse.engine;

/**
 * The accounts whose cancel-all-after switch is armed, by deadline, then account id, so that switches due at the
 * same time trigger in a stable order on every replay. A switch is armed again every few seconds by each client that
 * uses it, on the matching thread: each arming moves one entry, in O(log n) however many accounts use it.
 */
final class CancelAllAfterQueue extends IndexedHeap<Account>
{
    CancelAllAfterQueue()
    {
        super(new Account[16]);
    }

    boolean before(final Account a, final Account b)
    {
        return a.cancelAllAfterDeadlineNs < b.cancelAllAfterDeadlineNs ||
            (a.cancelAllAfterDeadlineNs == b.cancelAllAfterDeadlineNs && a.accountId < b.accountId);
    }

    int index(final Account account)
    {
        return account.cancelAllAfterIndex;
    }

    void index(final Account account, final int index)
    {
        account.cancelAllAfterIndex = index;
    }
}

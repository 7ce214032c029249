package io.bourse.store;

import java.io.PrintStream;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The store's second thread: writes each sealed {@link HistoryBatch} through the {@link BatchCommitter} while the
 * store's thread applies the log into the next batch, so that the engine's replay and building rows overlap the
 * database's work. One batch at a time; batches come back in the order they went.
 * <p>
 * Exactly-once is unchanged: each batch is one transaction with its fence, and the store's thread moves its fence
 * (and lets the journal go) only once the batch is back, committed.
 */
final class CommitThread
{
    private static final long POLL_MS = 50;
    private static final long CLOSE_WAIT_MS = 60_000;

    private final BatchCommitter committer;
    private final int nice;
    private final ArrayBlockingQueue<HistoryBatch> sealed = new ArrayBlockingQueue<>(1);
    private final ArrayBlockingQueue<HistoryBatch> committed = new ArrayBlockingQueue<>(1);
    private final Thread thread;
    private volatile boolean running = true;
    private volatile Throwable failure;

    /**
     * @param nice Linux nice value for the thread, as the store's own (0 to leave it).
     */
    CommitThread(final BatchCommitter committer, final int nice, final String name)
    {
        this.committer = committer;
        this.nice = nice;
        thread = new Thread(this::run, name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Hand a sealed batch over to be written; only when the previous one has come back from {@link #poll()}.
     */
    void submit(final HistoryBatch batch)
    {
        if (!sealed.offer(batch))
        {
            throw new IllegalStateException("a batch is already being committed");
        }
    }

    /**
     * @return the batch submitted, once committed; null while it is still being written.
     * @throws StoreException when writing it failed (nothing of it is in the database).
     */
    HistoryBatch poll()
    {
        final HistoryBatch batch = committed.poll();
        final Throwable failed = failure;
        if (failed != null)
        {
            throw failed instanceof StoreException storeException ? storeException :
                new StoreException("committing a batch: " + failed.getMessage(), failed);
        }
        return batch;
    }

    private void run()
    {
        if (nice > 0)
        {
            ThreadNice.apply(nice);
        }
        while (running)
        {
            final HistoryBatch batch;
            try
            {
                batch = sealed.poll(POLL_MS, TimeUnit.MILLISECONDS);
            }
            catch (final InterruptedException ex)
            {
                return;
            }
            if (batch == null)
            {
                continue;
            }
            try
            {
                committer.commit(batch);
            }
            catch (final Throwable ex)
            {
                // An Error too (out of memory building a large batch): left to end this thread, it would leave the
                // store waiting for the batch for ever, following in name only; failed, the store starts again.
                failure = ex;
                return;
            }
            committed.add(batch);
        }
    }

    /**
     * Let the batch being written finish (a batch cut short would be rolled back and written again after a restart,
     * but a clean stop leaves no work undone), then stop the thread.
     *
     * @param log where to say so when the thread does not stop in time.
     */
    void close(final PrintStream log)
    {
        running = false;
        try
        {
            thread.join(CLOSE_WAIT_MS);
            if (thread.isAlive())
            {
                log.println("bourse store: the commit thread did not stop within " + CLOSE_WAIT_MS + " ms; interrupted");
                thread.interrupt();
                thread.join(CLOSE_WAIT_MS);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}

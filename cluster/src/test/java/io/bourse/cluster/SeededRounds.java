package io.bourse.cluster;

/**
 * A randomised test's seed and number of rounds: from the system properties {@code <prefix>.seed} and
 * {@code <prefix>.rounds} when given, else a fresh seed and the default; printed, so that a failing run can be
 * repeated.
 */
public record SeededRounds(long seed, int rounds)
{
    public static SeededRounds of(final String test, final String prefix, final int defaultRounds)
    {
        final SeededRounds chosen = new SeededRounds(
            Long.getLong(prefix + ".seed", System.nanoTime()), Integer.getInteger(prefix + ".rounds", defaultRounds));
        System.out.println(test + ": seed " + chosen.seed + " (rerun with -D" + prefix + ".seed=" + chosen.seed +
            "), " + chosen.rounds + " rounds");
        return chosen;
    }
}

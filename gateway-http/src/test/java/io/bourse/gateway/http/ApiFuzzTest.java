package io.bourse.gateway.http;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import static io.bourse.gateway.http.GatewayHarness.ADMIN;
import static io.bourse.gateway.http.GatewayHarness.CAROL;

/**
 * Fuzzing every operation of the OpenAPI document with schemathesis ({@code gateway-http/e2e/test_api_fuzz.py},
 * run with the virtual environment {@code .ci/run} makes in {@code .tools/venv}): no 5xx, and every response
 * conforms to the document. The generator is seeded (system property {@code bourse.fuzz.seed}, else a random
 * seed) and the seed is printed, and is part of the command line a failure reports, so a failure can be replayed.
 */
class ApiFuzzTest
{
    @Test
    void noServerErrorsAndEveryResponseMatchesTheDocument()
    {
        final File root = ExternalTool.repoRoot();
        final File python = new File(root, ".tools/venv/bin/python");
        ExternalTool.require(python.canExecute() && new File(root, ".tools/venv/bin/schemathesis").exists(),
            "schemathesis (pip install schemathesis into .tools/venv)");
        final long seed = Long.getLong("bourse.fuzz.seed", ThreadLocalRandom.current().nextLong(1L << 48));
        System.out.println("ApiFuzzTest: hypothesis seed " + seed + " (replay with -Dbourse.fuzz.seed=" + seed + ")");
        try (GatewayHarness harness = new GatewayHarness())
        {
            ExternalTool.run(List.of(python.getPath(), "-m", "pytest", "-q", "-p", "no:cacheprovider",
                "--hypothesis-seed=" + seed, "gateway-http/e2e/test_api_fuzz.py"), root,
                Map.of("BOURSE_URL", harness.baseUrl(), "BOURSE_TRADER_KEY", CAROL.key(), "BOURSE_TRADER_SECRET", CAROL.secret(),
                    "BOURSE_ADMIN_KEY", ADMIN.key(), "BOURSE_ADMIN_SECRET", ADMIN.secret()), 600);
        }
    }
}

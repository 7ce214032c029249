package io.bourse.gateway.http;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.util.List;
import java.util.Map;

import static io.bourse.gateway.http.GatewayHarness.ALICE;
import static io.bourse.gateway.http.GatewayHarness.BOB;

/**
 * The web UI in a real browser: Playwright (npm playwright-core) driving Debian's Chromium, through
 * {@code gateway-http/e2e/ui.test.mjs}. Screenshots go to {@code gateway-http/target/screenshots}.
 */
class BrowserTest
{
    @Test
    void placeSeeCrossTradeCancelAndMonitorInTheBrowser()
    {
        final File e2e = new File(ExternalTool.repoRoot(), "gateway-http/e2e");
        ExternalTool.require(new File("/usr/bin/chromium").canExecute(), "Chromium (/usr/bin/chromium, apt-get install chromium)");
        ExternalTool.require(new File(e2e, "node_modules/playwright-core").isDirectory(),
            "playwright-core (npm ci in gateway-http/e2e)");
        try (GatewayHarness harness = new GatewayHarness())
        {
            ExternalTool.run(List.of("node", "ui.test.mjs", harness.baseUrl(),
                new File(ExternalTool.repoRoot(), "gateway-http/target/screenshots").getPath()), e2e,
                Map.of("BOURSE_KEY_1", ALICE.key(), "BOURSE_SECRET_1", ALICE.secret(),
                    "BOURSE_KEY_2", BOB.key(), "BOURSE_SECRET_2", BOB.secret()), 240);
        }
    }
}

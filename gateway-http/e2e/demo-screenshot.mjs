// Screenshot of a running exchange's trading page, signed in: node demo-screenshot.mjs BASE_URL KEY SECRET FILE.
// For looking at `./bourse run --demo-traders` by eye; the tests use ui.test.mjs.
import { chromium } from 'playwright-core';

const [baseUrl, key, secret, file] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.BOURSE_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
try {
  const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
  page.setDefaultTimeout(30_000);
  await page.goto(baseUrl + '/');
  await page.getByTestId('status').filter({ hasText: 'live' }).waitFor();
  await page.getByTestId('api-key').fill(key);
  await page.getByTestId('api-secret').fill(secret);
  await page.getByTestId('login-button').click();
  await page.locator('[data-testid="balances"] tr[data-asset="USD"]').waitFor();
  await page.waitForTimeout(5_000);
  await page.screenshot({ path: file, fullPage: true });
} finally {
  await browser.close();
}

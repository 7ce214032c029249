// Browser test of the Bourse web UI: Playwright (playwright-core) driving Debian's Chromium.
// Usage: node ui.test.mjs BASE_URL SCREENSHOT_DIR. Run by BrowserTest (gateway-http), which starts the exchange.
// Trader 1 places an order in the UI, sees it in the book and in open orders; trader 2 crosses it; the trade shows
// in the tape and trader 1's balances change; trader 1 cancels the rest; the monitor page loads.
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';

const [baseUrl, shots] = process.argv.slice(2);
mkdirSync(shots, { recursive: true });
const TIMEOUT = 30_000;

function check(condition, message) {
  if (!condition) throw new Error('check failed: ' + message);
}

const browser = await chromium.launch({
  executablePath: process.env.BOURSE_CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
let step = 0;
const shot = async (page, name) => page.screenshot({ path: `${shots}/${String(++step).padStart(2, '0')}-${name}.png`, fullPage: true });

async function trader(key, secret) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  page.on('pageerror', (error) => { throw error; });
  await page.goto(baseUrl + '/');
  await page.getByTestId('status').filter({ hasText: 'live' }).waitFor();
  await page.getByTestId('api-key').fill(key);
  await page.getByTestId('api-secret').fill(secret);
  await page.getByTestId('login-button').click();
  await page.getByTestId('account-name').filter({ hasText: key }).waitFor();
  return page;
}

async function balance(page, asset) {
  return Number(await page.locator(`[data-testid="balances"] tr[data-asset="${asset}"] td:nth-child(2)`).innerText());
}

try {
  const alice = await trader(process.env.BOURSE_KEY_1, process.env.BOURSE_SECRET_1);
  await page_waitBalances(alice);
  await alice.getByTestId('fees').filter({ hasText: 'maker 0.1 % · taker 0.2 %' }).waitFor();
  const usdBefore = await balance(alice, 'USD');
  const btcBefore = await balance(alice, 'BTC');

  // Client-side validation against the tick: 100.005 is refused before anything is sent.
  await alice.getByTestId('price').fill('100.005');
  await alice.getByTestId('quantity').fill('2');
  await alice.getByTestId('submit').click();
  await alice.getByTestId('order-error').filter({ hasText: 'tick' }).waitFor();
  await shot(alice, 'validation');

  await alice.getByTestId('side-sell').check();
  await alice.getByTestId('price').fill('101.25');
  await alice.getByTestId('client-order-id').fill('ui-sell-1');
  await alice.getByTestId('submit').click();
  await alice.getByTestId('order-result').filter({ hasText: 'NEW' }).waitFor();
  await alice.locator('[data-testid="asks"] tr[data-price="101.25"]').waitFor();
  await alice.locator('[data-testid="open-orders"] tr[data-client-order-id="ui-sell-1"]').waitFor();
  await shot(alice, 'order-resting');

  const bob = await trader(process.env.BOURSE_KEY_2, process.env.BOURSE_SECRET_2);
  await bob.locator('[data-testid="asks"] tr[data-price="101.25"]').waitFor();
  await bob.getByTestId('side-buy').check();
  await bob.getByTestId('price').fill('101.25');
  await bob.getByTestId('quantity').fill('0.5');
  await bob.getByTestId('submit').click();
  await bob.getByTestId('order-result').filter({ hasText: 'FILLED' }).waitFor();
  await shot(bob, 'crossed');

  await alice.locator('[data-testid="trades"] tr', { hasText: '101.25' }).first().waitFor();
  await alice.locator('[data-testid="open-orders"] tr[data-client-order-id="ui-sell-1"]', { hasText: 'PARTIALLY_FILLED' }).waitFor();
  await alice.waitForFunction(([before]) => {
    const cell = document.querySelector('[data-testid="balances"] tr[data-asset="USD"] td:nth-child(2)');
    return cell && Number(cell.textContent) !== before;
  }, [usdBefore]);
  const usdAfter = await balance(alice, 'USD');
  check(Math.abs(usdAfter - usdBefore - (0.5 * 101.25 - 0.5 * 101.25 * 0.001)) < 1e-6,
    `Alice's USD rose by the proceeds less the maker fee: ${usdBefore} -> ${usdAfter}`);
  check(Math.abs(btcBefore - (await balance(alice, 'BTC')) - 2) < 1e-9, 'the 2 BTC of the sell left available');
  await shot(alice, 'trade-in-tape');

  // A stop order waits off the book: among the open orders, not in the ladder, until a trade reaches 100.
  await alice.getByTestId('price').fill('99.5');
  await alice.getByTestId('stop-price').fill('100');
  await alice.getByTestId('quantity').fill('1');
  await alice.getByTestId('client-order-id').fill('ui-stop-1');
  await alice.getByTestId('submit').click();
  await alice.locator('[data-testid="open-orders"] tr[data-client-order-id="ui-stop-1"]', { hasText: '100.00 waiting' }).waitFor();
  check(await alice.locator('[data-testid="asks"] tr[data-price="99.50"]').count() === 0, 'the stop order is not in the book');
  await shot(alice, 'stop-waiting');
  await alice.getByTestId('cancel-ui-stop-1').click();
  await alice.locator('[data-testid="open-orders"] tr[data-client-order-id="ui-stop-1"]').waitFor({ state: 'detached' });
  await alice.getByTestId('stop-price').fill('');

  await alice.getByTestId('cancel-ui-sell-1').click();
  await alice.locator('[data-testid="open-orders"] tr[data-client-order-id="ui-sell-1"]').waitFor({ state: 'detached' });
  await alice.locator('[data-testid="asks"] tr[data-price="101.25"]').waitFor({ state: 'detached' });
  check(Math.abs(btcBefore - (await balance(alice, 'BTC')) - 0.5) < 1e-9, 'the canceled 1.5 BTC is available again');
  await shot(alice, 'canceled');

  const monitor = await alice.context().newPage();
  monitor.setDefaultTimeout(TIMEOUT);
  await monitor.goto(baseUrl + '/monitor');
  await monitor.getByTestId('role').filter({ hasText: 'LEADER' }).waitFor();
  await monitor.locator('[data-testid="latency"] tr', { hasText: 'cluster round trip' }).waitFor();
  const total = Number(await monitor.locator('[data-testid="commands-total"] .value').innerText());
  check(total >= 3, 'the monitor counts the commands: ' + total);
  // The test gateway runs alone, as 'bourse gateway-http' does: the monitor says there is no post-trade store here.
  await monitor.getByTestId('store-state').filter({ hasText: 'none in this process' }).waitFor();
  await monitor.getByTestId('cancel-all-after-armed').filter({ hasText: '0' }).waitFor();
  await shot(monitor, 'monitor');
  console.log(`ui test passed; screenshots in ${shots}`);
} finally {
  await browser.close();
}

async function page_waitBalances(page) {
  await page.locator('[data-testid="balances"] tr[data-asset="USD"]').waitFor();
}

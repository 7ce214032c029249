import { ApiError, publicGet, signed, syncClock, toUnits, wsAuthMessage } from './api.js';

const $ = (id) => document.getElementById(id);
const state = {
  instruments: new Map(),
  symbol: null,
  book: { bids: new Map(), asks: new Map(), sequence: 0 },
  trades: [],
  // The chart's candles as the exchange had them when loaded (by interval start), and which load is the latest.
  candles: new Map(),
  candlesLoad: 0,
  credentials: JSON.parse(sessionStorage.getItem('bourse.credentials') || 'null'),
  ws: null,
};

function text(value) {
  return value === null || value === undefined ? '—' : String(value);
}

function row(cells, attributes = {}) {
  const tr = document.createElement('tr');
  for (const [name, value] of Object.entries(attributes)) tr.setAttribute(name, value);
  for (const cell of cells) {
    const td = document.createElement('td');
    if (cell instanceof Node) td.append(cell); else td.textContent = text(cell);
    tr.append(td);
  }
  return tr;
}

function setStatus(message, ok) {
  $('status').textContent = message;
  $('status').className = 'status ' + (ok ? 'ok' : 'bad');
}

// ------------------------------------------------------------------------------------------------ market data

function connect() {
  const ws = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/ws');
  state.ws = ws;
  ws.onopen = async () => {
    setStatus('live', true);
    subscribePublic();
    if (state.credentials) await subscribePrivate();
  };
  ws.onclose = () => {
    setStatus('disconnected — retrying', false);
    setTimeout(connect, 1000);
  };
  ws.onmessage = (event) => onMessage(JSON.parse(event.data));
}

function send(message) {
  if (state.ws && state.ws.readyState === WebSocket.OPEN) state.ws.send(JSON.stringify(message));
}

function subscribePublic() {
  for (const channel of ['book', 'trades', 'ticker']) send({ op: 'subscribe', channel, symbol: state.symbol });
}

async function subscribePrivate() {
  send(await wsAuthMessage(state.credentials));
}

function onMessage(message) {
  switch (message.type) {
    case 'book.snapshot':
      if (message.symbol !== state.symbol) return;
      state.book = { bids: new Map(), asks: new Map(), sequence: message.sequence };
      for (const level of message.bids) state.book.bids.set(level.price, level);
      for (const level of message.asks) state.book.asks.set(level.price, level);
      renderBook();
      break;
    case 'book.update':
      if (message.symbol !== state.symbol) return;
      if (message.sequence !== state.book.sequence + 1) {
        // A gap: throw the book away and ask for a fresh snapshot.
        state.book.sequence = -1;
        send({ op: 'subscribe', channel: 'book', symbol: state.symbol });
        return;
      }
      for (const change of message.changes) {
        const side = change.side === 'BUY' ? state.book.bids : state.book.asks;
        if (Number(change.quantity) === 0) side.delete(change.price); else side.set(change.price, change);
      }
      state.book.sequence = message.sequence;
      renderBook();
      break;
    case 'trade':
      if (message.symbol !== state.symbol) return;
      state.trades.unshift(message);
      state.trades.length = Math.min(state.trades.length, 500);
      renderTrades();
      renderChart();
      break;
    case 'ticker':
      if (message.symbol === state.symbol) renderTicker(message);
      break;
    case 'authenticated':
      send({ op: 'subscribe', channel: 'orders' });
      send({ op: 'subscribe', channel: 'fills' });
      break;
    case 'order':
    case 'fill':
      schedulePrivateRefresh();
      break;
    case 'error':
      console.warn('bourse ws error', message);
      break;
    default:
      break;
  }
}

function renderTicker(ticker) {
  $('ticker').textContent = `last ${text(ticker.lastPrice)} · bid ${text(ticker.bestBid)} · ask ${text(ticker.bestAsk)} · ` +
    `24h high ${text(ticker.high)} · low ${text(ticker.low)} · volume ${ticker.volume}`;
}

function renderBook() {
  const depth = 15;
  const bids = [...state.book.bids.values()].sort((a, b) => Number(b.price) - Number(a.price)).slice(0, depth);
  const asks = [...state.book.asks.values()].sort((a, b) => Number(a.price) - Number(b.price)).slice(0, depth);
  const max = Math.max(1e-12, ...bids.map((l) => Number(l.quantity)), ...asks.map((l) => Number(l.quantity)));
  const levelRow = (level, side) => {
    const tr = row([level.price, level.quantity, level.orders], { 'data-price': level.price, class: side });
    tr.style.setProperty('--depth', `${(100 * Number(level.quantity)) / max}%`);
    tr.firstChild.addEventListener('click', () => { $('price').value = level.price; validate(); });
    return tr;
  };
  $('asks').replaceChildren(...asks.reverse().map((l) => levelRow(l, 'ask')));
  $('bids').replaceChildren(...bids.map((l) => levelRow(l, 'bid')));
  const bestBid = bids[0]; const bestAsk = asks[asks.length - 1];
  $('spread').textContent = bestBid && bestAsk ? `spread ${(Number(bestAsk.price) - Number(bestBid.price)).toFixed(state.instruments.get(state.symbol).priceScale)}` : '—';
  $('bookSeq').textContent = `seq ${state.book.sequence}`;
}

function renderTrades() {
  $('trades').replaceChildren(...state.trades.slice(0, 40).map((t) =>
    row([new Date(t.time).toLocaleTimeString(), t.price, t.quantity], { class: t.takerSide === 'BUY' ? 'bid' : 'ask' })));
}

// The intervals the exchange keeps candles for (GET /api/v1/candles), by length in milliseconds; shorter ones are drawn
// from the recent trades alone.
const CANDLE_INTERVALS = { 60000: '1m', 300000: '5m', 900000: '15m', 3600000: '1h', 14400000: '4h', 86400000: '1d' };

async function loadCandles() {
  const load = ++state.candlesLoad;
  const name = CANDLE_INTERVALS[$('interval').value];
  const loaded = name ? await publicGet(`/api/v1/candles/${encodeURIComponent(state.symbol)}?interval=${name}&limit=60`) : [];
  // An answer to an earlier load (another symbol or interval) is not drawn.
  if (load !== state.candlesLoad) return;
  state.candles = new Map(loaded.map((c) =>
    [c.time, { open: Number(c.open), high: Number(c.high), low: Number(c.low), close: Number(c.close) }]));
  renderChart();
}

function renderChart() {
  const canvas = $('candles');
  const context = canvas.getContext('2d');
  const width = canvas.width; const height = canvas.height;
  context.clearRect(0, 0, width, height);
  const intervalMs = Number($('interval').value);
  const candles = new Map([...state.candles].map(([start, c]) => [start, { ...c }]));
  // Recent trades extend the loaded candles: the newest loaded one (a trade it already counts changes none of its
  // open, high, low or close) and later intervals.
  const newest = Math.max(-Infinity, ...candles.keys());
  for (const t of [...state.trades].reverse()) {
    const start = Math.floor(t.time / intervalMs) * intervalMs;
    if (start < newest) continue;
    const price = Number(t.price);
    const c = candles.get(start);
    if (!c) candles.set(start, { open: price, high: price, low: price, close: price });
    else { c.high = Math.max(c.high, price); c.low = Math.min(c.low, price); c.close = price; }
  }
  const series = [...candles.entries()].sort((a, b) => a[0] - b[0]).slice(-60);
  context.fillStyle = '#8892a6';
  context.font = '12px system-ui';
  if (series.length === 0) {
    context.fillText('no trades yet', width / 2 - 35, height / 2);
    return;
  }
  const high = Math.max(...series.map(([, c]) => c.high)); const low = Math.min(...series.map(([, c]) => c.low));
  const span = high - low || Math.max(1, high * 0.001);
  const y = (price) => 10 + (height - 30) * (1 - (price - low) / span);
  const step = (width - 60) / 60;
  series.forEach(([, c], i) => {
    const x = 5 + i * step + step / 2;
    const up = c.close >= c.open;
    context.strokeStyle = context.fillStyle = up ? '#2ebd85' : '#f6465d';
    context.beginPath(); context.moveTo(x, y(c.high)); context.lineTo(x, y(c.low)); context.stroke();
    const top = y(Math.max(c.open, c.close)); const bottom = y(Math.min(c.open, c.close));
    context.fillRect(x - step * 0.35, top, step * 0.7, Math.max(1, bottom - top));
  });
  context.fillStyle = '#8892a6';
  context.fillText(high.toString(), width - 52, 14);
  context.fillText(low.toString(), width - 52, height - 20);
}

// ------------------------------------------------------------------------------------------------ account

let refreshTimer = null;
function schedulePrivateRefresh() {
  if (refreshTimer) return;
  refreshTimer = setTimeout(() => { refreshTimer = null; refreshPrivate(); }, 100);
}

async function refreshPrivate() {
  if (!state.credentials) return;
  try {
    // The fee line is an extra: a failure to read it must not keep the orders, balances and fills from showing.
    const feesRead = signed(state.credentials, 'GET', '/api/v1/fees').catch(() => null);
    const [orders, balances, fills] = await Promise.all([
      signed(state.credentials, 'GET', '/api/v1/orders'),
      signed(state.credentials, 'GET', '/api/v1/balances'),
      signed(state.credentials, 'GET', '/api/v1/fills?limit=20'),
    ]);
    const fees = await feesRead;
    $('openOrders').replaceChildren(...orders.map((o) => {
      const cancel = document.createElement('button');
      cancel.textContent = 'Cancel';
      cancel.dataset.testid = 'cancel-' + o.clientOrderId;
      cancel.addEventListener('click', () => act(() => signed(state.credentials, 'DELETE', '/api/v1/orders/' + o.orderId)));
      // A stop order waits off the book until a trade reaches its stop price.
      const stop = o.stopPrice ? (o.triggered ? o.stopPrice : `${o.stopPrice} waiting`) : '';
      return row([o.orderId, o.clientOrderId, o.side, o.type === 'MARKET' ? 'market' : o.price, stop, o.quantity,
        o.filledQuantity, o.status, cancel],
        { 'data-client-order-id': o.clientOrderId, class: o.side === 'BUY' ? 'bid' : 'ask' });
    }));
    $('balances').replaceChildren(...balances.balances.map((b) => row([b.asset, b.available, b.reserved], { 'data-asset': b.asset })));
    // The rates this account pays (its own where an operator set them), ppm of the notional shown as a percentage.
    const rates = fees?.instruments.find((i) => i.symbol === state.symbol);
    $('fees').textContent = rates ? `${state.symbol} fees: maker ${rates.makerFeePpm / 10000} % · taker ${rates.takerFeePpm / 10000} %` : '';
    $('fills').replaceChildren(...fills.map((f) =>
      row([new Date(f.time).toLocaleTimeString(), f.side, f.price, f.quantity, `${f.fee} ${f.feeAsset}`], { class: f.side === 'BUY' ? 'bid' : 'ask' })));
  } catch (error) {
    showError(error);
  }
}

async function act(action) {
  try {
    const result = await action();
    $('orderResult').textContent = result.status ? `${result.status}${result.orderId ? ' · order ' + result.orderId : ''}` : JSON.stringify(result);
    $('orderError').textContent = '';
  } catch (error) {
    showError(error);
  }
  refreshPrivate();
}

function showError(error) {
  $('orderError').textContent = error instanceof ApiError ? `${error.problem.code}: ${error.message}` : String(error);
}

function showAccount() {
  const signedIn = Boolean(state.credentials);
  $('login').hidden = signedIn;
  $('account').hidden = !signedIn;
  $('accountName').textContent = signedIn ? state.credentials.key : '';
  $('submit').disabled = !signedIn;
  $('submit').title = signedIn ? '' : 'sign in with an API key first';
}

// ------------------------------------------------------------------------------------------------ order entry

function validate() {
  const instrument = state.instruments.get(state.symbol);
  const market = $('type').value === 'MARKET';
  const stop = $('stopPrice').value.trim() !== '';
  $('price').disabled = market;
  // A stop market order may wait GTC for its stop price; a market order that trades now may not.
  $('tif').querySelector('option[value="GTC"], option:first-child').disabled = market && !stop;
  const problems = [];
  const checkPrice = (id, name) => {
    const text = $(id).value.trim();
    const price = toUnits(text, instrument.priceScale);
    const tick = toUnits(instrument.tickSize, instrument.priceScale);
    if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || price === 0n) problems.push(`${name}: a positive decimal number`);
    else if (price === null || price % tick !== 0n) problems.push(`${name}: not on the tick ${instrument.tickSize}`);
  };
  if (!market) checkPrice('price', 'price');
  if (stop) checkPrice('stopPrice', 'stop price');
  const quantity = toUnits($('quantity').value.trim(), instrument.quantityScale);
  const lot = toUnits(instrument.lotSize, instrument.quantityScale);
  if (!/^[0-9]+(\.[0-9]+)?$/.test($('quantity').value.trim()) || quantity === 0n) problems.push('quantity: a positive decimal number');
  else if (quantity === null || quantity % lot !== 0n) problems.push(`quantity: not on the lot ${instrument.lotSize}`);
  const clientOrderId = $('clientOrderId').value.trim();
  if (clientOrderId && !/^[0-9A-Za-z-]{1,10}$/.test(clientOrderId)) problems.push('client order id: 1 to 10 of 0-9 A-Z a-z -');
  $('orderError').textContent = problems.join('; ');
  return problems.length === 0;
}

function placeOrder(event) {
  event.preventDefault();
  if (!validate()) return;
  const market = $('type').value === 'MARKET';
  const stopPrice = $('stopPrice').value.trim();
  const order = {
    symbol: state.symbol,
    side: document.querySelector('input[name="side"]:checked').value,
    type: $('type').value,
    quantity: $('quantity').value.trim(),
    timeInForce: market && !stopPrice && $('tif').value === 'GTC' ? 'IOC' : $('tif').value,
  };
  if (!market) order.price = $('price').value.trim();
  if (stopPrice) order.stopPrice = stopPrice;
  if ($('postOnly').checked) order.postOnly = true;
  const clientOrderId = $('clientOrderId').value.trim();
  if (clientOrderId) order.clientOrderId = clientOrderId;
  act(() => signed(state.credentials, 'POST', '/api/v1/orders', order));
}

// ------------------------------------------------------------------------------------------------ start

async function selectInstrument(symbol) {
  if (state.symbol) for (const channel of ['book', 'trades', 'ticker']) send({ op: 'unsubscribe', channel, symbol: state.symbol });
  state.symbol = symbol;
  schedulePrivateRefresh();
  state.book = { bids: new Map(), asks: new Map(), sequence: 0 };
  state.candles = new Map();
  state.trades = await publicGet(`/api/v1/trades/${encodeURIComponent(symbol)}?limit=200`);
  renderTrades();
  await loadCandles().catch((error) => { console.warn('bourse candles', error); renderChart(); });
  subscribePublic();
}

async function start() {
  await syncClock();
  const instruments = await publicGet('/api/v1/instruments');
  for (const instrument of instruments) {
    state.instruments.set(instrument.symbol, instrument);
    const option = document.createElement('option');
    option.value = option.textContent = instrument.symbol;
    $('instrument').append(option);
  }
  $('instrument').addEventListener('change', () => selectInstrument($('instrument').value));
  const reloadCandles = () => loadCandles().catch((error) => console.warn('bourse candles', error));
  // Another interval's candles are not drawn while this one's load.
  $('interval').addEventListener('change', () => { state.candles = new Map(); renderChart(); reloadCandles(); });
  // Loaded again each minute: the recent trades alone would not cover a busy hour.
  setInterval(() => { if (state.symbol) reloadCandles(); }, 60000);
  for (const id of ['price', 'stopPrice', 'quantity', 'type', 'clientOrderId']) $(id).addEventListener('input', validate);
  $('order').addEventListener('submit', placeOrder);
  $('cancelAll').addEventListener('click', () => state.credentials &&
    act(() => signed(state.credentials, 'DELETE', '/api/v1/orders?symbol=' + encodeURIComponent(state.symbol))));
  $('login').addEventListener('submit', async (event) => {
    event.preventDefault();
    const credentials = { key: $('apiKey').value.trim(), secret: $('apiSecret').value };
    try {
      await signed(credentials, 'GET', '/api/v1/balances');
    } catch (error) {
      showError(error);
      return;
    }
    state.credentials = credentials;
    sessionStorage.setItem('bourse.credentials', JSON.stringify(credentials));
    showAccount();
    $('orderError').textContent = '';
    await subscribePrivate();
    refreshPrivate();
  });
  $('logout').addEventListener('click', () => {
    sessionStorage.removeItem('bourse.credentials');
    location.reload();
  });
  showAccount();
  if (instruments.length === 0) {
    setStatus('no instruments defined', false);
    return;
  }
  state.symbol = instruments[0].symbol;
  await selectInstrument(state.symbol);
  connect();
  refreshPrivate();
}

start().catch((error) => setStatus('failed to start: ' + error.message, false));

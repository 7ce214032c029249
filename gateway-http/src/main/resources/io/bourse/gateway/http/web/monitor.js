// The monitor page: polls /api/v1/monitor once a second. Other gateways' sessions (FIX) arrive under "sessions",
// the post-trade store's lag under "store" (available: false when this process runs no store); further sections
// added by other components arrive under "sections" and are shown as tables without changes here.
const $ = (id) => document.getElementById(id);
const history = [];

function card(label, value, testid) {
  const div = document.createElement('div');
  div.className = 'card';
  div.dataset.testid = testid;
  const name = document.createElement('div'); name.className = 'label'; name.textContent = label;
  const figure = document.createElement('div'); figure.className = 'value'; figure.textContent = value;
  div.append(name, figure);
  return div;
}

function bytes(n) {
  if (n < 0) return 'unknown';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0; let v = n;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

function age(ms) {
  if (ms < 0) return 'none yet';
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s ago` : `${Math.round(s / 60)} min ago`;
}

function table(rows) {
  const tbody = document.createElement('tbody');
  for (const cells of rows) {
    const tr = document.createElement('tr');
    for (const cell of cells) { const td = document.createElement('td'); td.textContent = String(cell); tr.append(td); }
    tbody.append(tr);
  }
  return tbody;
}

function drawRate() {
  const canvas = $('rate'); const context = canvas.getContext('2d');
  context.clearRect(0, 0, canvas.width, canvas.height);
  const max = Math.max(10, ...history);
  context.strokeStyle = '#f0b90b'; context.lineWidth = 2; context.beginPath();
  history.forEach((v, i) => {
    const x = (canvas.width * i) / 119; const y = canvas.height - 15 - ((canvas.height - 30) * v) / max;
    if (i === 0) context.moveTo(x, y); else context.lineTo(x, y);
  });
  context.stroke();
  context.fillStyle = '#8892a6'; context.font = '12px system-ui';
  context.fillText(`${Math.round(max)}/s`, 4, 12);
}

async function refresh() {
  try {
    const m = await (await fetch('/api/v1/monitor')).json();
    const c = m.cluster; const h = m.http;
    $('cards').replaceChildren(
      card('Role', c.role ?? 'unknown (separate gateway)', 'role'),
      card('Leader member', c.leaderMemberId, 'leader'),
      card('Accepting orders', c.acceptingOrders ? 'yes' : 'no', 'accepting'),
      card('Commands/s', h.commandsPerSecond, 'commands-per-second'),
      card('Commands total', h.commandsTotal, 'commands-total'),
      card('Journal size', bytes(c.journalBytes), 'journal'),
      card('Last snapshot', age(c.lastSnapshotAgeMs), 'snapshot-age'),
      card('State hash checks', c.stateHashesAgreed < 0 ? 'n/a' :
        `${c.stateHashesAgreed} agreed, ${c.stateHashesDiverged} diverged`, 'state-hashes'),
      card('WebSocket sessions', h.webSocketSessions, 'sessions'),
      ...Object.entries(m.sessions).filter(([gateway]) => gateway !== 'webSocket').flatMap(([gateway, s]) => [
        card(`${gateway.toUpperCase()} sessions logged on`, `${s.loggedOn} of ${s.configured}`, `${gateway}-sessions`),
        card(`${gateway.toUpperCase()} messages dropped`, s.messagesDropped, `${gateway}-dropped`),
        card(`${gateway.toUpperCase()} rate limited`, s.messagesRateLimited, `${gateway}-rate-limited`)]),
      card('Post-trade store', m.store.available ? m.store.state : 'none in this process', 'store-state'),
      card('Store lag', m.store.available ? `${bytes(m.store.lagBytes)}, ${m.store.lagSeconds} s` : 'n/a', 'store-lag'),
      card('Store state hash checks', m.store.available ?
        `${m.store.stateHashesAgreed} agreed, ${m.store.stateHashesDiverged} diverged` : 'n/a', 'store-state-hashes'),
      card('HTTP requests', h.httpRequests, 'http-requests'),
      card('HTTP errors', h.httpErrors, 'http-errors'),
      card('Rate limited', h.rateLimited, 'rate-limited'),
      card('WS dropped', h.webSocketDropped, 'ws-dropped'),
      card('WS slow closed', h.webSocketSlowConsumersClosed, 'ws-slow-closed'),
      card('Event gaps', h.eventGaps, 'event-gaps'),
      card('Answers lost', h.answersLost, 'answers-lost'),
      card('Cancel on disconnect failed', h.cancelOnDisconnectFailed, 'cancel-on-disconnect-failed'),
      card('Cancel-all-after armed', h.cancelAllAfterArmed, 'cancel-all-after-armed'),
      card('Cancel-all-after fired', h.cancelAllAfterTriggered, 'cancel-all-after-triggered'),
    );
    history.push(h.commandsPerSecond);
    if (history.length > 120) history.shift();
    drawRate();
    $('latency').replaceWith(Object.assign(table(Object.entries(m.latencyUs).map(([stage, l]) =>
      [stage.replaceAll('_', ' '), l.p50, l.p90, l.p99, l.max, l.p99SinceStart])), { id: 'latency' }));
    $('latency').dataset.testid = 'latency';
    $('latencyNote').textContent = m.latencyNote;
    const rejects = Object.entries(m.rejects);
    $('rejects').replaceWith(Object.assign(table(rejects.length ? rejects : [['none', 0]]), { id: 'rejects' }));
    $('rejects').dataset.testid = 'rejects';
    $('sections').replaceChildren(...Object.entries(m.sections).map(([name, values]) => {
      const section = document.createElement('section'); section.className = 'panel';
      const title = document.createElement('h2'); title.textContent = name.replaceAll('_', ' ');
      const t = document.createElement('table'); t.append(table(Object.entries(values)));
      section.append(title, t);
      return section;
    }));
    $('updated').textContent = `updated ${new Date(m.time).toLocaleTimeString()}`;
    $('updated').className = 'status ok';
  } catch (error) {
    $('updated').textContent = 'cannot reach the gateway';
    $('updated').className = 'status bad';
  }
}

refresh();
setInterval(refresh, 1000);

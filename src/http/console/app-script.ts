// The console's script (GET /console/app.js): a small vanilla module. It keeps the admin key
// in sessionStorage, sends it as a Bearer header, refreshes the panels every few seconds and
// drives the operator forms. Everything shown goes in through textContent or attributes:
// no HTML is ever built from data. Charts are SVG drawn with createElementNS.
// Written without backticks or template substitutions: it is served from this String.raw text.

export const CONSOLE_SCRIPT = String.raw`
const KEY = 'tokenproxy.console.key';
const REFRESH_MS = 3000;
const SVG = 'http://www.w3.org/2000/svg';
const STATUSES = ['BROADCASTING', 'SUCCESS', 'MINED', 'FAILED'];
const $ = (id) => document.getElementById(id);
let timer = null;
const shown = new Map();

class ApiError extends Error {
  constructor(status, body) {
    super((body && (body.detail || body.message)) || ('HTTP ' + status));
    this.status = status;
    this.code = body && body.code;
  }
}

async function api(method, path, body, key) {
  const headers = { authorization: 'Bearer ' + (key || sessionStorage.getItem(KEY) || '') };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store' });
  const text = await res.text();
  let json = null;
  try { json = text === '' ? null : JSON.parse(text); } catch { json = null; }
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (name === 'text') node.textContent = value;
    else if (name === 'className') node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, String(value));
  return node;
}

function setText(id, value) { $(id).textContent = value; }

/** Digits grouped by thousands; the fraction as the API wrote it. */
function group(tokens) {
  const [whole, fraction] = String(tokens).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : grouped + '.' + fraction;
}

function showAmount(id, amount) {
  const node = $(id);
  node.textContent = group(amount.tokens);
  node.dataset.atomic = String(amount.atomic);
  node.dataset.tokens = amount.tokens;
}

function when(iso) {
  if (!iso) return '–';
  const d = new Date(iso);
  return d.toISOString().replace('T', ' ').slice(0, 19);
}

function short(hash) { return hash.length > 20 ? hash.slice(0, 10) + '…' + hash.slice(-8) : hash; }

function replaceRows(tbody, rows, empty) {
  if (rows.length === 0) rows = [el('tr', {}, el('td', { colspan: '9', className: 'muted', text: empty }))];
  tbody.replaceChildren(...rows);
}

/** True when this panel's data differs from what is on screen (so forms in it are not reset). */
function changed(panel, data) {
  const text = JSON.stringify(data);
  if (shown.get(panel) === text) return false;
  shown.set(panel, text);
  return true;
}

/** The width the chart gets on screen, so that the SVG is drawn 1:1 (text keeps its size). */
function widthOf(id, parts, fallback) {
  const width = $(id).clientWidth;
  return width > 0 ? Math.floor(width / parts) - (parts > 1 ? 10 : 0) : fallback;
}

function sparkline(title, values, labels, w) {
  const h = 90, pad = 4;
  const box = el('div', {}, el('div', { className: 'chart-title', text: title }));
  const chart = svg('svg', { viewBox: '0 0 ' + w + ' ' + h, width: w, height: h, role: 'img', 'aria-label': title });
  const min = Math.min(...values), max = Math.max(...values);
  const span = max - min || 1;
  const x = (i) => pad + (values.length < 2 ? 0 : (i * (w - 2 * pad)) / (values.length - 1));
  const y = (v) => h - 16 - ((v - min) / span) * (h - 32);
  chart.append(svg('line', { x1: 0, x2: w, y1: h - 16, y2: h - 16, class: 'axis' }));
  const points = values.map((v, i) => x(i).toFixed(1) + ',' + y(v).toFixed(1)).join(' ');
  chart.append(svg('polyline', { points: values.length < 2 ? x(0) + ',' + y(values[0] || 0) + ' ' + (w - pad) + ',' + y(values[0] || 0) : points, class: 'line' }));
  const top = svg('text', { x: pad, y: 10 }); top.textContent = labels.max;
  const bottom = svg('text', { x: pad, y: h - 4 }); bottom.textContent = labels.min;
  chart.append(top, bottom);
  box.append(chart);
  return box;
}

function stackedBars(points, w) {
  const h = 140, pad = 4;
  const chart = svg('svg', { viewBox: '0 0 ' + w + ' ' + h, width: w, height: h, role: 'img', 'aria-label': 'tickets created per interval, by status' });
  const totals = points.map((p) => STATUSES.reduce((s, k) => s + p.counts[k], 0));
  const max = Math.max(1, ...totals);
  const slot = (w - 2 * pad) / Math.max(1, points.length);
  chart.append(svg('line', { x1: 0, x2: w, y1: h - 16, y2: h - 16, class: 'axis' }));
  points.forEach((p, i) => {
    let base = h - 16;
    for (const status of STATUSES) {
      const n = p.counts[status];
      if (n === 0) continue;
      const height = (n / max) * (h - 32);
      base -= height;
      const barWidth = Math.min(24, Math.max(1, slot - 2));
      const bar = svg('rect', { x: (pad + i * slot + (slot - barWidth) / 2).toFixed(1), y: base.toFixed(1), width: barWidth.toFixed(1), height: height.toFixed(1), class: 'bar s-' + status });
      const tip = svg('title'); tip.textContent = status + ': ' + n;
      bar.append(tip);
      chart.append(bar);
    }
  });
  const top = svg('text', { x: pad, y: 10 }); top.textContent = 'max ' + max;
  const start = svg('text', { x: pad, y: h - 4 });
  start.textContent = points.length ? when(new Date(points[0].at * 1000).toISOString()) : '';
  const end = svg('text', { x: w - pad, y: h - 4, 'text-anchor': 'end' });
  end.textContent = points.length ? when(new Date(points[points.length - 1].at * 1000).toISOString()) : '';
  chart.append(top, start, end);
  return chart;
}

function renderSupply(s) {
  for (const name of ['genesis', 'circulating', 'treasury', 'burned', 'redeemed']) showAmount('supply-' + name, s[name]);
  const pts = s.history.points;
  const w = widthOf('supply-charts', 3, 300);
  const charts = ['circulating', 'treasury', 'burned'].map((name) => {
    const values = pts.map((p) => p[name].atomic);
    const tokens = pts.map((p) => p[name].tokens);
    let lo = 0, hi = 0;
    values.forEach((v, i) => { if (v < values[lo]) lo = i; if (v > values[hi]) hi = i; });
    return sparkline(name + ' (per ' + s.history.bucketSeconds + ' s)', values.length ? values : [0],
      { min: values.length ? group(tokens[lo]) : '0', max: values.length ? group(tokens[hi]) : '0' }, w);
  });
  $('supply-charts').replaceChildren(...charts);
}

function renderTickets(t) {
  $('ticket-counts').replaceChildren(...STATUSES.map((s) =>
    el('div', {}, el('dt', {}, el('span', { className: 'swatch s-' + s }), s), el('dd', { id: 'tickets-' + s, text: String(t.counts[s]) }))));
  $('tickets-chart').replaceChildren(stackedBars(t.timeline, widthOf('tickets-chart', 1, 900)));
  replaceRows($('failed-tickets'), t.failed.map((f) => el('tr', {},
    el('td', {}, el('code', { text: f.id })), el('td', {}, el('code', { text: short(f.txid), title: f.txid })),
    el('td', { text: f.errors || '' }), el('td', { text: when(f.updatedAt) }))), 'No failed tickets.');
}

function renderFunding(f) {
  const level = $('funding-level');
  level.textContent = f.level;
  level.className = 'level ' + f.level;
  setText('funding-available', String(f.outputs.available));
  setText('funding-reserved', String(f.outputs.reserved));
  setText('funding-satoshis', group(String(f.satoshis.available)));
  setText('funding-reserve', group(String(f.satoshis.reserve)));
  setText('funding-left', group(String(f.transfersLeft)));
  setText('funding-rate', String(f.feeRate.satoshisPerKb));
  setText('funding-address', f.address);
  setText('funding-lowwater', String(f.lowWater));
}

function renderDeliveries(d) {
  setText('deliveries-attempts', String(d.attempts));
  setText('deliveries-rate', d.successRate === null ? '–' : (d.successRate * 100).toFixed(1) + ' %');
  setText('deliveries-latency', d.latencyMs === null ? '–' : d.latencyMs.p50 + ' / ' + d.latencyMs.p90 + ' / ' + d.latencyMs.p99 + ' ms');
  setText('deliveries-events', d.events.pending + ' / ' + d.events.dead);
  replaceRows($('failing-receivers'), d.failingReceivers.map((r) => el('tr', {},
    el('td', {}, el('code', { text: r.origin })), el('td', { className: 'num', text: r.failures + ' / ' + r.attempts }),
    el('td', { text: r.lastError || '' }))), 'No failing receiver.');
}

function renderChain(c) {
  setText('chain-ledger', c.ledger);
  setText('chain-height', String(c.tip.height));
  setText('chain-time', when(new Date(c.tip.time * 1000).toISOString()));
  setText('chain-hash', c.tip.hash);
  $('mine-box').hidden = !c.canMine;
  replaceRows($('chain-blocks'), c.blocks.map((b) => el('tr', {},
    el('td', { className: 'num', text: String(b.height) }), el('td', {}, el('code', { text: short(b.hash), title: b.hash })),
    el('td', { className: 'num', text: String(b.transactions) }), el('td', { text: when(new Date(b.time * 1000).toISOString()) }))),
    c.ledger === 'arc' ? 'Blocks are listed on the devnet only.' : 'No blocks.');
}

function renderKeys(k) {
  replaceRows($('keys-table'), k.keys.map((key) => {
    const row = el('tr', { 'data-key-id': key.id, className: key.revokedAt ? 'revoked' : '' },
      el('td', { text: key.name }), el('td', {}, el('code', { text: key.id })), el('td', { text: key.scopes.join(', ') }),
      el('td', { text: when(key.createdAt) }), el('td', { text: when(key.lastUsedAt) }));
    const cell = el('td');
    if (key.revokedAt) cell.textContent = 'revoked ' + when(key.revokedAt);
    else {
      const button = el('button', { type: 'button', className: 'danger', text: 'Revoke' });
      button.addEventListener('click', () => revoke(key, button));
      cell.append(button);
    }
    row.append(cell);
    return row;
  }), 'No keys.');
}

const PANELS = [
  ['supply', 'v2/admin/console/supply', renderSupply],
  ['tickets', 'v2/admin/console/tickets', renderTickets],
  ['funding', 'v2/admin/console/funding', renderFunding],
  ['deliveries', 'v2/admin/console/deliveries', renderDeliveries],
  ['chain', 'v2/admin/console/chain', renderChain],
  ['keys', 'v2/admin/keys', renderKeys],
];

async function refresh() {
  const results = await Promise.allSettled(PANELS.map(([, path]) => api('GET', path)));
  const failures = [];
  results.forEach((r, i) => {
    const [name, , render] = PANELS[i];
    if (r.status === 'fulfilled') { if (changed(name, r.value)) render(r.value); }
    else failures.push(name + ': ' + r.reason.message);
    if (r.status === 'rejected' && r.reason.status === 401) signOut('The key was refused: ' + r.reason.message);
  });
  const error = $('refresh-error');
  error.hidden = failures.length === 0;
  error.textContent = failures.join('; ');
  setText('updated', 'updated ' + when(new Date().toISOString()).slice(11));
  document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(async () => { await refresh().catch(() => undefined); if (sessionStorage.getItem(KEY)) schedule(); }, REFRESH_MS);
}

async function refreshNow() { await refresh(); schedule(); }

function result(id, text, bad) {
  const node = $(id);
  node.textContent = text;
  node.classList.toggle('bad', Boolean(bad));
}

async function submitting(form, fn) {
  const buttons = form.querySelectorAll('button');
  buttons.forEach((b) => { b.disabled = true; });
  try { await fn(); } finally { buttons.forEach((b) => { b.disabled = false; }); }
}

async function revoke(key, button) {
  if (!button.classList.contains('armed')) {
    button.classList.add('armed');
    button.textContent = 'Confirm revoke';
    return;
  }
  button.disabled = true;
  try {
    await api('DELETE', 'v2/admin/keys/' + encodeURIComponent(key.id));
    result('key-result', 'Revoked ' + key.name + ' (' + key.id + ').');
  } catch (err) {
    result('key-result', 'Revoke failed: ' + err.message, true);
  }
  await refreshNow();
}

function kv(pairs) {
  const list = el('dl', { className: 'kv' });
  for (const [k, v] of pairs) list.append(el('dt', { text: k }), el('dd', {}, v instanceof Node ? v : el('span', { text: String(v) })));
  return list;
}

function outputsTable(outputs) {
  const body = el('tbody');
  replaceRows(body, outputs.map((o) => el('tr', {},
    el('td', {}, el('code', { text: o.outpoint })), el('td', {}, el('code', { text: o.owner })),
    el('td', { className: 'num', text: group(o.amount.tokens) }), el('td', { text: o.op }), el('td', { text: o.state }))), 'None.');
  return el('table', {}, el('thead', {}, el('tr', {}, ...['Outpoint', 'Owner', 'Amount', 'Op', 'State'].map((h) => el('th', { text: h })))), body);
}

function transactionView(t) {
  return kv([['txid', el('code', { text: t.txid })], ['state', t.state], ['height', t.height || '–'],
    ['senders', t.senders.join(', ') || '–'], ['receivers', t.receivers.join(', ') || '–'], ['seen', when(t.createdAt)]]);
}

function ticketView(t) {
  const events = el('tbody');
  replaceRows(events, t.events.map((e) => el('tr', {}, el('td', { className: 'num', text: String(e.seq) }),
    el('td', { text: e.status || '' }), el('td', { text: e.state }), el('td', { className: 'num', text: String(e.attempts) }),
    el('td', { text: e.lastError || '' }))), 'No callback events.');
  return el('div', {}, kv([['ticket', el('code', { text: t.id })], ['status', t.status], ['txid', el('code', { text: t.txid })],
    ['errors', t.errors || '–'], ['callback', t.callbackUrl || '–'], ['created', when(t.createdAt)], ['updated', when(t.updatedAt)]]),
    el('table', {}, el('thead', {}, el('tr', {}, ...['Seq', 'Status', 'Delivery', 'Attempts', 'Last error'].map((h) => el('th', { text: h })))), events));
}

function searchView(r) {
  const parts = [el('p', { className: 'muted', id: 'search-kind', 'data-kind': r.kind, 'data-found': String(r.found),
    text: r.kind + (r.found ? '' : ': the service knows nothing of it') })];
  if (r.kind === 'address') {
    const a = r.address;
    parts.push(kv([['address', el('code', { text: a.address })], ['balance', el('span', { id: 'search-balance', 'data-atomic': String(a.balance.atomic), text: group(a.balance.tokens) })], ['unspent outputs', a.unspentCount]]));
    parts.push(el('h3', { text: 'Unspent outputs' }), outputsTable(a.unspent));
    const body = el('tbody');
    replaceRows(body, a.transactions.map((t) => el('tr', {}, el('td', {}, el('code', { text: t.txid })), el('td', { text: t.state }), el('td', { className: 'num', text: String(t.height || '–') }))), 'None.');
    parts.push(el('h3', { text: 'Latest transactions' }), el('table', {}, el('thead', {}, el('tr', {}, ...['Txid', 'State', 'Height'].map((h) => el('th', { text: h })))), body));
  } else if (r.kind === 'txid') {
    if (r.transaction) parts.push(el('h3', { text: 'Transaction' }), transactionView(r.transaction), outputsTable(r.outputs));
    if (r.ticket) parts.push(el('h3', { text: 'Ticket' }), ticketView(r.ticket));
  } else if (r.kind === 'ticket') {
    if (r.ticket) parts.push(ticketView(r.ticket));
  } else if (r.kind === 'outpoint') {
    if (r.output) parts.push(el('h3', { text: 'Token output' }), outputsTable([r.output]),
      kv([['spent by', r.output.spentBy || '–'], ['reserved by', r.output.reservedBy || '–']]));
    if (r.fundingOutput) parts.push(el('h3', { text: 'Funding output' }), kv([['outpoint', r.fundingOutput.outpoint], ['satoshis', r.fundingOutput.satoshis], ['state', r.fundingOutput.state]]));
  }
  return parts;
}

function signOut(message) {
  sessionStorage.removeItem(KEY);
  clearTimeout(timer);
  shown.clear();
  $('app').hidden = true;
  $('signout').hidden = true;
  $('env').hidden = true;
  $('signin').hidden = false;
  for (const id of ['search-result', 'supply-charts', 'tickets-chart', 'keys-table', 'failed-tickets', 'chain-blocks', 'failing-receivers']) $(id).replaceChildren();
  const error = $('signin-error');
  error.hidden = !message;
  error.textContent = message || '';
}

async function signIn(key) {
  const status = await api('GET', 'v2/admin/status', undefined, key);
  sessionStorage.setItem(KEY, key);
  $('signin-error').hidden = true;
  $('signin').hidden = true;
  $('app').hidden = false;
  $('signout').hidden = false;
  const env = $('env');
  env.hidden = false;
  env.textContent = status.environment + ' · ' + short(status.tokenId);
  env.title = status.tokenId;
  await refreshNow();
}

function wire() {
  $('signin-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const input = $('signin-key');
    const key = input.value.trim();
    try {
      await signIn(key);
      input.value = '';
    } catch (err) {
      signOut(err.status === 401 || err.status === 403 ? 'Sign-in refused: ' + err.message : 'Sign-in failed: ' + err.message);
    }
  });
  $('signout').addEventListener('click', () => signOut(''));

  $('mint-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    submitting(form, async () => {
      try {
        const r = await api('POST', 'v2/admin/mint', { to: $('mint-to').value.trim(), amount: $('mint-amount').value.trim() });
        const node = $('mint-result');
        node.dataset.txid = r.txid;
        node.dataset.ticket = r.ticketId;
        result('mint-result', 'Minted: ticket ' + r.ticketId + ', txid ' + r.txid);
        form.reset();
      } catch (err) { result('mint-result', 'Mint refused: ' + (err.code ? err.code + ': ' : '') + err.message, true); }
      await refreshNow();
    });
  });

  $('burn-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    submitting(form, async () => {
      try {
        const r = await api('POST', 'v2/admin/burn', { amount: $('burn-amount').value.trim(), from: $('burn-from').value });
        result('burn-result', 'Burned ' + group(r.amount.tokens) + ' from ' + r.from + ': txid ' + r.txid);
        form.reset();
      } catch (err) { result('burn-result', 'Burn refused: ' + (err.code ? err.code + ': ' : '') + err.message, true); }
      await refreshNow();
    });
  });

  $('key-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const scopes = [...form.querySelectorAll('input[name=scope]:checked')].map((c) => c.value);
    submitting(form, async () => {
      try {
        const r = await api('POST', 'v2/admin/keys', { name: $('key-name').value.trim(), scopes });
        setText('key-created-name', r.name + ' (' + r.scopes.join(', ') + ')');
        setText('key-created-value', r.key);
        $('key-created').dataset.keyId = r.id;
        $('key-created').hidden = false;
        result('key-result', '');
        form.reset();
      } catch (err) { result('key-result', 'Key refused: ' + err.message, true); }
      await refreshNow();
    });
  });
  $('key-created-done').addEventListener('click', () => {
    setText('key-created-value', '');
    $('key-created').hidden = true;
  });

  $('mine-button').addEventListener('click', async () => {
    const button = $('mine-button');
    button.disabled = true;
    try {
      const r = await api('POST', 'v2/admin/mine', { blocks: 1 });
      setText('mine-result', 'Mined block ' + r.blocks.map((b) => b.height).join(', '));
    } catch (err) { setText('mine-result', 'Mining failed: ' + err.message); }
    button.disabled = false;
    await refreshNow();
  });

  $('search-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const q = $('search-q').value.trim();
    const error = $('search-error');
    try {
      const r = await api('GET', 'v2/admin/console/search?q=' + encodeURIComponent(q));
      error.hidden = true;
      $('search-result').replaceChildren(...searchView(r));
    } catch (err) {
      error.hidden = false;
      error.textContent = (err.code ? err.code + ': ' : '') + err.message;
      $('search-result').replaceChildren();
    }
  });

  const saved = sessionStorage.getItem(KEY);
  if (saved) signIn(saved).catch((err) => signOut('Signed out: ' + err.message));
}

wire();
`;

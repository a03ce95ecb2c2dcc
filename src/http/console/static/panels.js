// @ts-check
// The console script, part 3: one renderer per panel, the panel list and the refresh loop.
// Plain browser JavaScript in a String.raw: no backticks or template substitutions inside.
function renderSupply(s) {
  for (const name of ['genesis', 'circulating', 'treasury', 'burned', 'redeemed'])
    showAmount('supply-' + name, s[name]);
  const pts = s.history.points;
  const w = chartWidth('supply-charts');
  const charts = ['circulating', 'treasury', 'burned'].map((name) =>
    lineChart({
      title: name + ' (tokens; per ' + span(s.history.bucketSeconds) + ')',
      summary: group(s[name].tokens),
      points: pts.map((p) => ({ t: p.at, v: Number(p[name].tokens) })),
      width: w,
    }),
  );
  $('supply-charts').replaceChildren(...charts);
}

function renderTickets(t) {
  $('ticket-counts').replaceChildren(
    ...STATUSES.map((s) =>
      el(
        'div',
        {},
        el('dt', {}, el('span', { className: 'swatch s-' + s }), s),
        el('dd', { id: 'tickets-' + s, text: String(t.counts[s]) }),
      ),
    ),
  );
  const created = t.timeline.reduce((n, p) => n + STATUSES.reduce((m, k) => m + p.counts[k], 0), 0);
  $('tickets-chart').replaceChildren(
    barChart({
      title: 'tickets created per ' + span(t.bucketSeconds) + ', by status now',
      summary: created + ' in the chart',
      buckets: t.timeline.map((p) => ({
        t: p.at,
        parts: STATUSES.map((k) => ({ v: p.counts[k], cls: 's-' + k, label: k })),
      })),
      bucketSeconds: t.bucketSeconds,
      width: chartWidth('tickets-chart'),
      height: 150,
    }),
  );
  replaceRows(
    $('failed-tickets'),
    t.failed.map((f) =>
      el(
        'tr',
        {},
        el('td', {}, el('code', { text: f.id })),
        el('td', {}, el('code', { text: short(f.txid), title: f.txid })),
        el('td', { text: f.errors || '' }),
        el('td', { text: when(f.updatedAt) }),
      ),
    ),
    'No failed tickets.',
  );
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
  $('funding-chart').replaceChildren(
    lineChart({
      title: 'available outputs (per ' + span(f.history.bucketSeconds) + ')',
      summary: f.outputs.available + ' now',
      points: f.history.points.map((p) => ({ t: p.at, v: p.available })),
      marks: [{ v: f.lowWater, label: 'low water ' + f.lowWater }],
      fromZero: true,
      width: chartWidth('funding-chart'),
    }),
  );
}

function renderDeliveries(d) {
  setText('deliveries-attempts', String(d.attempts));
  setText('deliveries-rate', d.successRate === null ? '–' : (d.successRate * 100).toFixed(1) + ' %');
  setText(
    'deliveries-latency',
    d.latencyMs === null ? '–' : d.latencyMs.p50 + ' / ' + d.latencyMs.p90 + ' / ' + d.latencyMs.p99 + ' ms',
  );
  setText('deliveries-events', d.events.pending + ' / ' + d.events.dead);
  replaceRows(
    $('failing-receivers'),
    d.failingReceivers.map((r) =>
      el(
        'tr',
        {},
        el('td', {}, el('code', { text: r.origin })),
        el('td', { className: 'num', text: r.failures + ' / ' + r.attempts }),
        el('td', { text: r.lastError || '' }),
      ),
    ),
    'No failing receiver.',
  );
  const pts = d.history.points;
  const w = chartWidth('deliveries-charts');
  const per = span(d.history.bucketSeconds);
  $('deliveries-charts').replaceChildren(
    barChart({
      title: 'attempts per ' + per + ' (2xx / failed)',
      summary: d.attempts === 0 ? 'none' : d.succeeded + ' / ' + (d.attempts - d.succeeded),
      buckets: pts.map((p) => ({
        t: p.at,
        parts: [
          { v: p.succeeded, cls: 'ok', label: 'delivered' },
          { v: p.attempts - p.succeeded, cls: 'failed', label: 'failed' },
        ],
      })),
      bucketSeconds: d.history.bucketSeconds,
      width: w,
      height: 110,
    }),
    lineChart({
      title: 'median latency per ' + per + ' (ms)',
      summary: d.latencyMs === null ? 'none' : 'p50 ' + d.latencyMs.p50 + ' ms',
      points: pts.map((p) => ({ t: p.at, v: p.p50Ms })),
      fromZero: true,
      tickFormat: (v) => compact(v),
      width: w,
      height: 110,
    }),
  );
}

function renderChain(c) {
  setText('chain-ledger', c.ledger);
  // The ledger's tip, asked of it; when it could not tell, why (and what to set) instead.
  setText('chain-height', c.tip ? String(c.tip.height) : '–');
  setText('chain-time', c.tip && c.tip.time ? when(new Date(c.tip.time * 1000).toISOString()) : '–');
  setText('chain-hash', c.tip ? c.tip.hash : 'unknown: ' + (c.tipProblem || 'the ledger gave no tip'));
  $('mine-box').hidden = !c.canMine;
  replaceRows(
    $('chain-blocks'),
    c.blocks.map((b) =>
      el(
        'tr',
        {},
        el('td', { className: 'num', text: String(b.height) }),
        el('td', {}, el('code', { text: short(b.hash), title: b.hash })),
        el('td', { className: 'num', text: String(b.transactions) }),
        el('td', { text: when(new Date(b.time * 1000).toISOString()) }),
      ),
    ),
    c.ledger === 'arc' ? 'Blocks are listed on the devnet only.' : 'No blocks.',
  );
}

/** Key names by id, for the freeze list's "By" (the keys panel renders before it). */
const KEY_NAMES = new Map();

function renderKeys(k) {
  KEY_NAMES.clear();
  for (const key of k.keys) KEY_NAMES.set(key.id, key.name);
  shown.delete('freezes'); // its "By" column names these keys: drawn again after them
  replaceRows(
    $('keys-table'),
    k.keys.map((key) => {
      const row = el(
        'tr',
        { 'data-key-id': key.id, className: key.revokedAt ? 'revoked' : '' },
        el('td', { text: key.name }),
        el('td', {}, el('code', { text: key.id })),
        el('td', { text: key.scopes.join(', ') }),
        el('td', { text: when(key.createdAt) }),
        el('td', { text: when(key.lastUsedAt) }),
      );
      const cell = el('td');
      if (key.revokedAt) cell.textContent = 'revoked ' + when(key.revokedAt);
      else {
        const button = el('button', { type: 'button', className: 'danger', text: 'Revoke' });
        button.addEventListener('click', () => revoke(key, button));
        cell.append(button);
      }
      row.append(cell);
      return row;
    }),
    'No keys.',
  );
}

/** Each panel: its name, the admin route it reads and what draws it. @type {Array<[string, string, (data: any) => void]>} */
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
    if (r.status === 'fulfilled') {
      if (changed(name, r.value)) render(r.value);
    } else failures.push(name + ': ' + r.reason.message);
    if (r.status === 'rejected' && r.reason.status === 401)
      signOut('The key was refused: ' + r.reason.message);
  });
  const error = $('refresh-error');
  error.hidden = failures.length === 0;
  error.textContent = failures.join('; ');
  setText('updated', 'updated ' + when(new Date().toISOString()).slice(11));
  document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(async () => {
    await refresh().catch(() => undefined);
    if (sessionStorage.getItem(KEY)) schedule();
  }, REFRESH_MS);
}

async function refreshNow() {
  await refresh();
  schedule();
}

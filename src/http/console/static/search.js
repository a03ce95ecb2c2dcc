// @ts-check
// The console script, part 5: the search, and its answer as key/value lists and tables. Every
// txid, address, outpoint and ticket ID in an answer is a link that searches for it (its href,
// #q=..., can be opened in a new tab or shared; the page searches a #q= it is opened with).
// Plain browser JavaScript in a String.raw: no backticks or template substitutions inside.
async function runSearch(q) {
  const error = $('search-error');
  $('search-q').value = q;
  try {
    const r = await api('GET', 'v2/admin/console/search?q=' + encodeURIComponent(q));
    error.hidden = true;
    $('search-result').replaceChildren(...searchView(r));
    if (location.hash !== '#q=' + encodeURIComponent(q))
      history.replaceState(null, '', '#q=' + encodeURIComponent(q));
  } catch (err) {
    error.hidden = false;
    error.textContent = (err.code ? err.code + ': ' : '') + err.message;
    $('search-result').replaceChildren();
  }
}

/** A txid, address, outpoint or ticket ID that searches for itself when followed. */
function searchLink(q, text) {
  if (!q) return el('span', { text: '–' });
  const a = el(
    'a',
    { href: '#q=' + encodeURIComponent(q), className: 'search-link', 'data-q': q },
    el('code', { text: text || q }),
  );
  a.addEventListener('click', (event) => {
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    runSearch(q);
    $('search-panel').scrollIntoView({ block: 'start' });
  });
  return a;
}

/** Several links, comma-separated. */
function searchLinks(list) {
  if (list.length === 0) return el('span', { text: '–' });
  const span = el('span', { className: 'links' });
  list.forEach((q, i) => {
    if (i > 0) span.append(', ');
    span.append(searchLink(q));
  });
  return span;
}

/** Opened as .../console#q=<query>: search it once signed in. */
function searchFromHash() {
  const m = /^#q=(.+)$/.exec(location.hash);
  if (m) runSearch(decodeURIComponent(m[1]));
}

window.addEventListener('hashchange', () => {
  if (sessionStorage.getItem(KEY)) searchFromHash();
});

function kv(pairs) {
  const list = el('dl', { className: 'kv' });
  for (const [k, v] of pairs)
    list.append(el('dt', { text: k }), el('dd', {}, v instanceof Node ? v : el('span', { text: String(v) })));
  return list;
}

function table(headers, body) {
  return el(
    'div',
    { className: 'table-scroll' },
    el('table', {}, el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', { text: h })))), body),
  );
}

function outputsTable(outputs) {
  const body = el('tbody');
  replaceRows(
    body,
    outputs.map((o) =>
      el(
        'tr',
        {},
        el('td', {}, searchLink(o.outpoint)),
        el('td', {}, searchLink(o.owner)),
        el('td', { className: 'num', text: group(o.amount.tokens) }),
        el('td', { text: o.op }),
        el('td', { text: o.state }),
      ),
    ),
    'None.',
  );
  return table(['Outpoint', 'Owner', 'Amount', 'Op', 'State'], body);
}

function transactionView(t) {
  return kv([
    ['txid', searchLink(t.txid)],
    ['state', t.state],
    ['height', t.height || '–'],
    ['senders', searchLinks(t.senders)],
    ['receivers', searchLinks(t.receivers)],
    ['seen', when(t.createdAt)],
  ]);
}

function ticketView(t) {
  const events = el('tbody');
  replaceRows(
    events,
    t.events.map((e) =>
      el(
        'tr',
        {},
        el('td', { className: 'num', text: String(e.seq) }),
        el('td', { text: e.status || '' }),
        el('td', { text: e.state }),
        el('td', { className: 'num', text: String(e.attempts) }),
        el('td', { text: e.lastError || '' }),
      ),
    ),
    'No callback events.',
  );
  return el(
    'div',
    {},
    kv([
      ['ticket', searchLink(t.id)],
      ['status', t.status],
      ['txid', searchLink(t.txid)],
      ['errors', t.errors || '–'],
      ['callback', t.callbackUrl || '–'],
      ['created', when(t.createdAt)],
      ['updated', when(t.updatedAt)],
    ]),
    table(['Seq', 'Status', 'Delivery', 'Attempts', 'Last error'], events),
  );
}

function searchView(r) {
  const parts = [
    el('p', {
      className: 'muted',
      id: 'search-kind',
      'data-kind': r.kind,
      'data-found': String(r.found),
      text: r.kind + (r.found ? '' : ': the service knows nothing of it'),
    }),
  ];
  if (r.kind === 'address') {
    const a = r.address;
    parts.push(
      kv([
        ['address', el('code', { text: a.address })],
        [
          'balance',
          el('span', {
            id: 'search-balance',
            'data-atomic': String(a.balance.atomic),
            text: group(a.balance.tokens),
          }),
        ],
        ['unspent outputs', a.unspentCount],
      ]),
    );
    parts.push(el('h3', { text: 'Unspent outputs' }), outputsTable(a.unspent));
    const body = el('tbody');
    replaceRows(
      body,
      a.transactions.map((t) =>
        el(
          'tr',
          {},
          el('td', {}, searchLink(t.txid)),
          el('td', { text: t.state }),
          el('td', { className: 'num', text: String(t.height || '–') }),
        ),
      ),
      'None.',
    );
    parts.push(el('h3', { text: 'Latest transactions' }), table(['Txid', 'State', 'Height'], body));
  } else if (r.kind === 'txid') {
    if (r.transaction)
      parts.push(el('h3', { text: 'Transaction' }), transactionView(r.transaction), outputsTable(r.outputs));
    if (r.ticket) parts.push(el('h3', { text: 'Ticket' }), ticketView(r.ticket));
  } else if (r.kind === 'ticket') {
    if (r.ticket) parts.push(ticketView(r.ticket));
  } else if (r.kind === 'outpoint') {
    if (r.output)
      parts.push(
        el('h3', { text: 'Token output' }),
        outputsTable([r.output]),
        kv([
          ['spent by', searchLink(r.output.spentBy)],
          ['reserved by', searchLink(r.output.reservedBy)],
        ]),
      );
    if (r.fundingOutput)
      parts.push(
        el('h3', { text: 'Funding output' }),
        kv([
          ['outpoint', searchLink(r.fundingOutput.outpoint)],
          ['satoshis', r.fundingOutput.satoshis],
          ['state', r.fundingOutput.state],
        ]),
      );
  }
  return parts;
}

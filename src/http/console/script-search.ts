// The console script, part 5: the search answer as key/value lists and tables.
// Plain browser JavaScript in a String.raw: no backticks or template substitutions inside.

// biome-ignore lint/complexity/noUselessStringRaw: browser code kept verbatim (a later \n must stay a backslash-n)
export const SCRIPT_SEARCH = String.raw`
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
`;

// @ts-check
// The console's issuer controls panel (issue 32): its HTML (placed by page.ts) and its script
// part (placed by app-script.ts before the wiring): whether transfers are paused, with a form to
// pause or unpause with a reason; the blacklist with a form to list or delist an address. And
// what the signed-in key may do (GET /v2/admin/whoami): every element marked data-needs="<scope>"
// is hidden from a key without that scope, and the panels it cannot read are not asked for.
// Plain browser JavaScript in a String.raw: no backticks or template substitutions inside.
function renderPause(p) {
  const state = $('pause-state');
  state.textContent = p.paused ? 'PAUSED: ' + p.reason : 'transfers cosigned';
  state.dataset.paused = String(p.paused);
  $('pause-button').hidden = p.paused;
  $('unpause-button').hidden = !p.paused;
}

function renderBlacklist(b) {
  showAmount('blacklist-total', b.total);
  replaceRows(
    $('blacklist-table'),
    b.listed.map((l) =>
      el(
        'tr',
        { 'data-address': l.address },
        el('td', {}, el('code', { text: l.address })),
        el('td', { className: 'num', text: group(l.balance.tokens) }),
        el('td', { text: l.reason }),
        actorCell(l.listedBy),
        el('td', { text: when(l.listedAt) }),
      ),
    ),
    'No blacklisted address.',
  );
}

PANELS.push(['pause', 'v2/admin/pause', renderPause]);
PANELS.push(['blacklist', 'v2/admin/blacklist', renderBlacklist]);

/** Panels read only with a scope beyond audit (the keys list needs keys). */
const PANEL_NEEDS = { keys: 'keys' };

let allPanels = null;

/** Hides what the signed-in key may not do, and stops asking for what it may not read. */
async function applyScopes(key) {
  const me = await api('GET', 'v2/admin/whoami', undefined, key);
  document.body.dataset.scopes = me.scopes.join(' ');
  for (const node of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-needs]')))
    node.hidden = !me.may[node.dataset.needs];
  if (allPanels === null) allPanels = PANELS.slice();
  PANELS.length = 0;
  for (const panel of allPanels) {
    const needs = PANEL_NEEDS[panel[0]];
    if (!needs || me.may[needs]) PANELS.push(panel);
  }
}

$('pause-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const paused = !(event.submitter && event.submitter.value === 'unpause');
  submitting(form, async () => {
    try {
      const r = await api('PUT', 'v2/admin/pause', { paused, reason: $('pause-reason').value.trim() });
      const held = heldText(r);
      if (held !== null) result('pause-result', held);
      else
        result(
          'pause-result',
          (r.paused ? 'Paused' : 'Unpaused') + (r.changed ? '' : ' (it was so already)'),
        );
      form.reset();
    } catch (err) {
      result('pause-result', 'Refused: ' + (err.code ? err.code + ': ' : '') + err.message, true);
    }
    await refreshNow();
  });
});

$('blacklist-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const delist = event.submitter && event.submitter.value === 'delist';
  const address = $('blacklist-address').value.trim();
  const reason = $('blacklist-reason').value.trim();
  submitting(form, async () => {
    try {
      if (delist) await api('DELETE', 'v2/admin/blacklist/' + encodeURIComponent(address), { reason });
      else await api('POST', 'v2/admin/blacklist', { address, reason });
      result('blacklist-result', (delist ? 'Delisted ' : 'Blacklisted ') + address);
      form.reset();
    } catch (err) {
      result('blacklist-result', 'Refused: ' + (err.code ? err.code + ': ' : '') + err.message, true);
    }
    await refreshNow();
  });
});

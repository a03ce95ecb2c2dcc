// @ts-check
// The console's freeze list panel (issue 12): its HTML (placed by page.ts) and its script part
// (placed by app-script.ts before the wiring): the frozen addresses with what each holds, the
// record of freezes and unfreezes, and one form to freeze or unfreeze an address with a reason.
// Over GET/POST /v2/admin/freezes and DELETE /v2/admin/freezes/{address}.
// Plain browser JavaScript in a String.raw: no backticks or template substitutions inside.
function renderFreezes(f) {
  showAmount('freezes-total', f.total);
  replaceRows(
    $('freezes-table'),
    f.frozen.map((z) => {
      const row = el(
        'tr',
        { 'data-address': z.address },
        el('td', {}, el('code', { text: z.address })),
        el('td', {
          className: 'num',
          text: group(z.balance.tokens),
          'data-atomic': String(z.balance.atomic),
        }),
        el('td', { text: z.reason }),
        actorCell(z.frozenBy),
        el('td', { text: when(z.frozenAt) }),
      );
      const button = el('button', { type: 'button', text: 'Unfreeze…' });
      button.addEventListener('click', () => {
        $('freeze-address').value = z.address;
        $('freeze-reason').focus();
      });
      row.append(el('td', {}, button));
      return row;
    }),
    'No frozen address.',
  );
  replaceRows(
    $('freeze-events'),
    f.events.map((e) =>
      el(
        'tr',
        { 'data-action': e.action },
        el('td', { text: when(e.at) }),
        el('td', { text: e.action }),
        el('td', {}, el('code', { text: e.address })),
        el('td', { text: e.reason }),
        actorCell(e.actor),
      ),
    ),
    'Nothing frozen yet.',
  );
}

/** Who froze or unfroze: the admin key's name (its id on hover), the id itself for a key not listed. */
function actorCell(id) {
  const name = KEY_NAMES.get(id);
  return name === undefined
    ? el('td', {}, el('code', { text: id }))
    : el('td', { text: name, title: id, 'data-key-id': id });
}

PANELS.push(['freezes', 'v2/admin/freezes', renderFreezes]);

$('freeze-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const action = event.submitter && event.submitter.value === 'unfreeze' ? 'unfreeze' : 'freeze';
  const address = $('freeze-address').value.trim();
  const reason = $('freeze-reason').value.trim();
  submitting(form, async () => {
    try {
      if (action === 'freeze') {
        const r = await api('POST', 'v2/admin/freezes', { address, reason });
        result(
          'freeze-result',
          r.changed ? 'Frozen: ' + r.address : r.address + ' was already frozen (' + r.reason + ')',
        );
      } else {
        const r = await api('DELETE', 'v2/admin/freezes/' + encodeURIComponent(address), { reason });
        result('freeze-result', 'Unfrozen: ' + r.address);
      }
      form.reset();
    } catch (err) {
      result(
        'freeze-result',
        (action === 'freeze' ? 'Freeze' : 'Unfreeze') +
          ' refused: ' +
          (err.code ? err.code + ': ' : '') +
          err.message,
        true,
      );
    }
    await refreshNow();
  });
});

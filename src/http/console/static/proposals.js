// @ts-check
// The console's Proposals panel (issue 32, "no single key"; placed after the controls part):
// the actions the approval policy holds back, each with its votes and, while open, buttons to
// approve or reject it with the signed-in key (the K-th approval runs it; the answer says
// what it did), the policy in force and the keys' mint allowances. A held-back form answer (202) is told apart by
// heldText. Plain browser JavaScript in a String.raw: no backticks or template substitutions inside.

/** The text for an answer that is a proposal (a held-back action), or null. */
function heldText(r) {
  if (!r || typeof r.state !== 'string' || typeof r.required !== 'number') return null;
  return (
    'Held for approvals: proposal ' +
    r.id +
    ' (' +
    r.approvals +
    ' of ' +
    r.required +
    ' approvals, expires ' +
    when(r.expiresAt) +
    ')'
  );
}

async function voteOn(p, kind, button) {
  button.disabled = true;
  try {
    const r = await api('POST', 'v2/admin/proposals/' + encodeURIComponent(p.id) + '/' + kind, {
      reason:
        $('proposal-reason').value.trim() ||
        (kind === 'approve' ? 'approved in the console' : 'rejected in the console'),
    });
    const did = r.answer
      ? ': ' + JSON.stringify(r.answer)
      : r.executionError
        ? ' (not run yet: ' + r.executionError + ')'
        : '';
    result('proposals-result', 'Proposal ' + p.id + ' is ' + r.state + did);
  } catch (err) {
    result('proposals-result', 'Refused: ' + (err.code ? err.code + ': ' : '') + err.message, true);
  }
  button.disabled = false;
  await refreshNow();
}

function renderProposals(l) {
  replaceRows(
    $('proposals-table'),
    l.proposals.map((p) => {
      const row = el(
        'tr',
        { 'data-proposal': p.id, 'data-state': p.state },
        el('td', { text: when(p.proposedAt) }),
        el('td', { text: p.summary }),
        el('td', { className: 'state', text: p.state }),
        el('td', { className: 'num', text: p.approvals + ' / ' + p.required }),
        actorCell(p.proposedBy),
        el('td', {
          text:
            p.state === 'open' ? when(p.expiresAt) : p.error || (p.result ? JSON.stringify(p.result) : ''),
        }),
      );
      const cell = el('td');
      if (p.state === 'open') {
        for (const kind of ['approve', 'reject']) {
          const button = el('button', {
            type: 'button',
            value: kind,
            className: kind === 'reject' ? 'danger' : '',
            text: kind === 'approve' ? 'Approve' : 'Reject',
          });
          button.addEventListener('click', () => voteOn(p, kind, button));
          cell.append(button);
        }
      }
      row.append(cell);
      return row;
    }),
    'No proposals.',
  );
}

function renderPolicy(p) {
  $('policy-rules').textContent =
    p.rules.length === 0
      ? 'No action needs approvals.'
      : p.rules
          .map(
            (r) =>
              r.action +
              (r.above ? ' above ' + r.above + ' atomic' : '') +
              ': ' +
              r.approvals +
              ' keys' +
              (r.proposerApproves === false ? ' besides the proposer' : ''),
          )
          .join('; ');
}

function renderAllowances(a) {
  $('allowances').textContent =
    a.allowances.length === 0
      ? 'none set: every mint key mints without a cap'
      : a.allowances
          .map(
            (x) => (KEY_NAMES.get(x.keyId) || x.keyId) + ' may mint ' + group(x.remaining.tokens) + ' more',
          )
          .join('; ');
}

PANELS.push(['proposals', 'v2/admin/proposals', renderProposals]);
PANELS.push(['allowances', 'v2/admin/allowances', renderAllowances]);
PANELS.push(['policy', 'v2/admin/approvals/policy', renderPolicy]);

// @ts-check
// The console script, part 6: sign-in and sign-out, and the wiring of buttons and forms.
// Plain browser JavaScript in a String.raw: no backticks or template substitutions inside.
function signOut(message) {
  sessionStorage.removeItem(KEY);
  clearTimeout(timer);
  shown.clear();
  $('app').hidden = true;
  $('signout').hidden = true;
  $('env').hidden = true;
  $('signin').hidden = false;
  for (const id of [
    'search-result',
    'supply-charts',
    'tickets-chart',
    'keys-table',
    'failed-tickets',
    'chain-blocks',
    'failing-receivers',
    'freezes-table',
    'freeze-events',
    'blacklist-table',
  ])
    $(id).replaceChildren();
  const error = $('signin-error');
  error.hidden = !message;
  error.textContent = message || '';
}

async function signIn(key) {
  const status = await api('GET', 'v2/admin/status', undefined, key);
  await applyScopes(key);
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
  searchFromHash();
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
      signOut(
        err.status === 401 || err.status === 403
          ? 'Sign-in refused: ' + err.message
          : 'Sign-in failed: ' + err.message,
      );
    }
  });
  $('signout').addEventListener('click', () => signOut(''));

  $('mint-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    submitting(form, async () => {
      try {
        const r = await api('POST', 'v2/admin/mint', {
          to: $('mint-to').value.trim(),
          amount: $('mint-amount').value.trim(),
        });
        const node = $('mint-result');
        if (heldText(r) !== null) {
          result('mint-result', heldText(r));
          form.reset();
          await refreshNow();
          return;
        }
        node.dataset.txid = r.txid;
        node.dataset.ticket = r.ticketId;
        result('mint-result', 'Minted: ticket ' + r.ticketId + ', txid ' + r.txid);
        form.reset();
      } catch (err) {
        result('mint-result', 'Mint refused: ' + (err.code ? err.code + ': ' : '') + err.message, true);
      }
      await refreshNow();
    });
  });

  $('faucet-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    submitting(form, async () => {
      try {
        const r = await api('POST', 'v2/faucet', { address: $('faucet-to').value.trim() });
        result(
          'faucet-result',
          'Sent ' + r.tokens + ' test tokens: ticket ' + r.ticketId + ', txid ' + r.txid,
        );
        form.reset();
      } catch (err) {
        result('faucet-result', 'Faucet refused: ' + (err.code ? err.code + ': ' : '') + err.message, true);
      }
      await refreshNow();
    });
  });

  $('burn-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    submitting(form, async () => {
      try {
        const r = await api('POST', 'v2/admin/burn', {
          amount: $('burn-amount').value.trim(),
          from: $('burn-from').value,
        });
        result('burn-result', 'Burned ' + group(r.amount.tokens) + ' from ' + r.from + ': txid ' + r.txid);
        form.reset();
      } catch (err) {
        result('burn-result', 'Burn refused: ' + (err.code ? err.code + ': ' : '') + err.message, true);
      }
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
      } catch (err) {
        result('key-result', 'Key refused: ' + err.message, true);
      }
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
    } catch (err) {
      setText('mine-result', 'Mining failed: ' + err.message);
    }
    button.disabled = false;
    await refreshNow();
  });

  $('search-form').addEventListener('submit', (event) => {
    event.preventDefault();
    runSearch($('search-q').value.trim());
  });

  const saved = sessionStorage.getItem(KEY);
  if (saved) signIn(saved).catch((err) => signOut('Signed out: ' + err.message));
}

wire();

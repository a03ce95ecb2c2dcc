// @ts-check
// The console script, part 4: the operator forms' helpers (results, busy buttons, revoke).
// Plain browser JavaScript in a String.raw: no backticks or template substitutions inside.
function result(id, text, bad) {
  const node = $(id);
  node.textContent = text;
  node.classList.toggle('bad', Boolean(bad));
}

async function submitting(form, fn) {
  const buttons = form.querySelectorAll('button');
  buttons.forEach((b) => {
    b.disabled = true;
  });
  try {
    await fn();
  } finally {
    buttons.forEach((b) => {
      b.disabled = false;
    });
  }
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

// Agreement between our answer and the reference client's, both as JSON values (see
// asClientJson): equal, except that where a number is beyond 2^53 on either side (the client
// computes in doubles, we in bigint) the two must agree to 1e-9 relative. Both throwing agrees.
import assert from 'node:assert/strict';

export type Outcome = { value: unknown } | { threw: true };

/** Asserts agreement; answers true when every number compared was exact. */
export function agrees(ours: Outcome, theirs: Outcome, label: string): boolean {
  assert.equal(
    'threw' in ours,
    'threw' in theirs,
    `${label}: one side threw\nours ${show(ours)}\ntheirs ${show(theirs)}`,
  );
  if ('threw' in ours || 'threw' in theirs) return true;
  const state = { exact: true };
  try {
    compare(ours.value, theirs.value, '$', state);
  } catch (err) {
    assert.fail(`${label}: ${(err as Error).message}\nours ${show(ours)}\ntheirs ${show(theirs)}`);
  }
  return state.exact;
}

function compare(a: unknown, b: unknown, path: string, state: { exact: boolean }): void {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isSafeInteger(a) && Number.isSafeInteger(b)) {
      if (a !== b) throw new Error(`${path}: ${a} != ${b}`);
      return;
    }
    state.exact = false;
    if (Math.abs(a - b) > 1e-9 * Math.max(Math.abs(a), Math.abs(b))) throw new Error(`${path}: ${a} !~ ${b}`);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) throw new Error(`${path}: length ${a.length} != ${b.length}`);
    for (const [i, x] of a.entries()) compare(x, b[i], `${path}[${i}]`, state);
    return;
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    if (ka.join() !== kb.join()) throw new Error(`${path}: keys ${ka} != ${kb}`);
    for (const k of ka)
      compare((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`, state);
    return;
  }
  if (a !== b) throw new Error(`${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
}

function show(o: Outcome): string {
  return JSON.stringify(o).slice(0, 4000);
}

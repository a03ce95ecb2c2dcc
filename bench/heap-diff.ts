// Compares two V8 heap snapshots (bench:soak writes them with SOAK_HEAP_SNAPSHOTS=<folder>):
// objects by constructor (strings by shape: txids, outpoints, hex), count and self size in each,
// and the difference, largest growth first. Self sizes, not retained sizes: enough to see which
// kind of object accumulates, and the devnet's live outputs show by their LockingScripts.
// The JIT's output is split out: objects of snapshot type "code" (optimized code, and its deopt
// data, relocation info, source position tables, feedback vectors). Only the code objects sit
// in V8's code spaces, which is all bench:soak names "compiled code"; the rest live in old space
// and count as heap there, so a heap that grows only by warming up reads here as JIT growth.
//   node --max-old-space-size=8000 --import tsx bench/heap-diff.ts from.heapsnapshot to.heapsnapshot [transfers]
import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** Objects of at least this self size (a Map's or an array's backing store) are named by their retainers. */
const BIG = 64 * 1024;

/** A string's shape: what the devnet and the service key their maps with. */
function stringShape(s: string): string {
  if (/^[0-9a-f]{64}:\d+$/.test(s)) return '(string txid:vout)';
  if (/^[0-9a-f]{64}_\d+$/.test(s)) return '(string txid_vout)';
  if (/^[0-9a-f]{64}$/.test(s)) return '(string txid)';
  if (/^[0-9a-f]+$/.test(s) && s.length > 64) return '(string long hex)';
  if (/^[0-9a-f-]{36}$/.test(s)) return '(string uuid)';
  return '(string other)';
}

/** Count and self size by constructor (or string shape); the big objects by their retainer path. */
function tally(path: string): {
  byKind: Map<string, { count: number; size: number }>;
  big: Map<string, { count: number; size: number }>;
} {
  const snap = JSON.parse(readFileSync(path, 'utf8')) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const out = new Map<string, { count: number; size: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const name = snap.strings[snap.nodes[i + nameAt]!]!;
    const key =
      type === 'string' || type === 'concatenated string' || type === 'sliced string'
        ? stringShape(name)
        : type === 'object' || type === 'closure'
          ? `${name}${type === 'closure' ? ' (closure)' : ''}`
          : `(${type}) ${type === 'code' || type === 'hidden' || type === 'array' ? name.slice(0, 40) : ''}`;
    const t = out.get(key) ?? { count: 0, size: 0 };
    t.count++;
    t.size += snap.nodes[i + sizeAt]!;
    out.set(key, t);
  }
  return { byKind: out, big: bigByRetainers(snap) };
}

/** The big objects, keyed by a path of retainers (edge names and constructors, 5 deep). */
function bigByRetainers(snap: Snapshot): Map<string, { count: number; size: number }> {
  const { node_fields: nf, node_types: nt, edge_fields: ef, edge_types: et } = snap.snapshot.meta;
  const w = nf.length;
  const ew = ef.length;
  const [typeAt, nameAt, sizeAt, countAt] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
    nf.indexOf(f),
  ) as [number, number, number, number];
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f)) as [
    number,
    number,
    number,
  ];
  const nodeName = (n: number) => {
    const type = nt[0][snap.nodes[n + typeAt]!]!;
    return type === 'object' || type === 'closure' ? snap.strings[snap.nodes[n + nameAt]!]! : `(${type})`;
  };
  // The first non-weak retainer of each node (by node offset).
  const parent = new Map<number, { from: number; edge: string }>();
  const big: number[] = [];
  for (let n = 0; n < snap.nodes.length; n += w) if (snap.nodes[n + sizeAt]! >= BIG) big.push(n);
  let wanted = new Set(big);
  for (let depth = 0; depth < 5 && wanted.size > 0; depth++) {
    const next = new Set<number>();
    let e = 0;
    for (let n = 0; n < snap.nodes.length; n += w) {
      const count = snap.nodes[n + countAt]!;
      for (let k = 0; k < count; k++, e += ew) {
        const to = snap.edges[e + eTo]!;
        if (!wanted.has(to) || parent.has(to)) continue;
        const type = et[0][snap.edges[e + eType]!]!;
        if (type === 'weak' || type === 'shortcut') continue;
        const name =
          type === 'element' || type === 'hidden'
            ? `[${type}]`
            : String(snap.strings[snap.edges[e + eName]!]);
        parent.set(to, { from: n, edge: name });
        next.add(n);
      }
    }
    wanted = next;
  }
  const out = new Map<string, { count: number; size: number }>();
  for (const n of big) {
    const path: string[] = [nodeName(n)];
    for (let at = n, i = 0; i < 5; i++) {
      const p = parent.get(at);
      if (p === undefined) break;
      path.push(`${p.edge} of ${nodeName(p.from)}`);
      at = p.from;
    }
    const key = path.join(' <- ');
    const t = out.get(key) ?? { count: 0, size: 0 };
    t.count++;
    t.size += snap.nodes[n + sizeAt]!;
    out.set(key, t);
  }
  return out;
}

const [fromPath, toPath, transfersArg] = process.argv.slice(2);
if (fromPath === undefined || toPath === undefined)
  throw new Error('usage: heap-diff.ts from.heapsnapshot to.heapsnapshot [transfers between them]');
const transfers = Number(transfersArg ?? 0);
const fromTally = tally(fromPath);
const toTally = tally(toPath);
const diff = (from: Map<string, { count: number; size: number }>, to: typeof from) =>
  [...new Set([...from.keys(), ...to.keys()])]
    .map((key) => {
      const a = from.get(key) ?? { count: 0, size: 0 };
      const b = to.get(key) ?? { count: 0, size: 0 };
      return { key, count: b.count - a.count, size: b.size - a.size, a, b };
    })
    .sort((x, y) => y.size - x.size);
const rows = diff(fromTally.byKind, toTally.byKind);
const total = rows.reduce((s, r) => s + r.size, 0);
const per = (v: number) =>
  transfers > 0 ? ` (${((v / transfers) * 1000).toFixed(0)} per 1,000 transfers)` : '';
const jit = rows.filter((r) => r.key.startsWith('(code)')).reduce((s, r) => s + r.size, 0);
console.log(`self size growth, all objects: ${(total / 1024 / 1024).toFixed(2)} MB${per(total)}`);
console.log(
  `  of which the JIT's (type code: code, deopt data, relocation info, feedback): ${(jit / 1024 / 1024).toFixed(2)} MB${per(jit)}; the rest: ${((total - jit) / 1024 / 1024).toFixed(2)} MB${per(total - jit)}`,
);
console.log('growth by constructor, largest first (count delta, self-size delta in KB):');
for (const r of rows.slice(0, 40))
  console.log(
    `  ${r.key.padEnd(48)} ${String(r.count).padStart(9)}${per(r.count).padEnd(28)} ${(r.size / 1024).toFixed(0).padStart(8)} KB  (${r.a.count} -> ${r.b.count})`,
  );
console.log(
  `objects of ${BIG / 1024} KB or more (backing stores of maps and arrays) by retainers, growth first:`,
);
for (const r of diff(fromTally.big, toTally.big).slice(0, 25))
  console.log(
    `  ${(r.size / 1024).toFixed(0).padStart(8)} KB (${(r.a.size / 1024).toFixed(0)} -> ${(r.b.size / 1024).toFixed(0)} KB): ${r.key}`,
  );

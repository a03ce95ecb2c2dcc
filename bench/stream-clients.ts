// The SSE clients of bench:stream, in a process of their own (so the service's memory is its
// own): raw HTTP/1.1 over net sockets, counting events by their `id:` lines. Driven over IPC:
// { kind: 'idle', url, paths } opens and holds idle streams; { kind: 'active', url, paths,
// expect } opens streams and answers how long until each had `expect` events; { kind: 'close' }.
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

type Command =
  | { kind: 'idle'; url: string; paths: string[] }
  | { kind: 'active'; url: string; paths: string[]; expect: number }
  | { kind: 'report' }
  | { kind: 'close' };

/** The last active round: events counted, when the last came, the fewest any stream got. */
const round = { id: 0, started: 0, events: 0, lastAt: 0, perStream: [] as number[] };

const held: Socket[] = [];

function open(url: string, path: string, onData: (chunk: string) => void): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nhost: ${hostname}\r\naccept: text/event-stream\r\n\r\n`);
    });
    let headed = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      if (!headed) {
        if (!chunk.startsWith('HTTP/1.1 200')) reject(new Error(`stream refused: ${chunk.slice(0, 120)}`));
        headed = true;
        resolve(socket);
      }
      onData(chunk);
    });
    socket.on('error', reject);
    held.push(socket);
  });
}

function countIds(carry: string, chunk: string): { n: number; carry: string } {
  const text = carry + chunk;
  let n = 0;
  for (let at = text.indexOf('\nid: '); at >= 0; at = text.indexOf('\nid: ', at + 1)) n++;
  return { n, carry: text.slice(-4) };
}

process.on('message', async (command: Command) => {
  try {
    if (command.kind === 'report') {
      process.send!({
        kind: 'report',
        events: round.events,
        ms: round.lastAt - round.started,
        fewest: Math.min(...round.perStream),
      });
      return;
    }
    if (command.kind === 'close') {
      for (const s of held.splice(0)) s.destroy();
      process.send!({ kind: 'closed' });
      return;
    }
    if (command.kind === 'idle') {
      for (let i = 0; i < command.paths.length; i += 100)
        await Promise.all(command.paths.slice(i, i + 100).map((p) => open(command.url, p, () => undefined)));
      process.send!({ kind: 'idle-open', count: command.paths.length });
      return;
    }
    const started = performance.now();
    const id = ++round.id;
    round.started = started;
    round.events = 0;
    round.perStream = command.paths.map(() => 0);
    let left = command.paths.length;
    let done!: () => void;
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    let events = 0;
    await Promise.all(
      command.paths.map((p, index) => {
        let seen = 0;
        let carry = '';
        return open(command.url, p, (chunk) => {
          const counted = countIds(carry, chunk);
          carry = counted.carry;
          seen += counted.n;
          events += counted.n;
          // Streams of an earlier round stay open (active, now live) but count for it only.
          if (round.id === id) {
            round.events += counted.n;
            round.perStream[index] = seen;
            if (counted.n > 0) round.lastAt = performance.now();
          }
          if (seen >= command.expect && seen - counted.n < command.expect && --left === 0) done();
        });
      }),
    );
    if (command.expect === 0) {
      process.send!({ kind: 'active-open' });
      return;
    }
    await finished;
    process.send!({ kind: 'active-done', ms: performance.now() - started, events });
  } catch (err) {
    process.send!({ kind: 'error', message: String(err) });
  }
});
process.send!({ kind: 'ready' });

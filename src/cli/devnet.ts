// `tokenproxy devnet`: the embedded devnet alone, behind its ARC API, until SIGINT or SIGTERM.
import { parseArgs } from 'node:util';
import { P2PKH } from '@bsv/sdk';
import { startArcServer } from '../ledger/devnet/arc-http-server.js';
import { createDevnet, type GenesisOutput } from '../ledger/devnet/devnet.js';
import { firstEvent } from '../process/first-event.js';

const USAGE = `usage: tokenproxy devnet [options]
  --port N               port of the ARC API (default 9090; 0 = any free port)
  --host ADDR            address to listen on (default 127.0.0.1)
  --data-dir DIR         folder of the devnet's journal (default: in memory, lost at exit)
  --block-interval MS    mine every MS milliseconds when the mempool is not empty (default 10000; 0 = only on command)
  --fee-rate N           mining fee, satoshis per 1000 bytes (default 1)
  --api-key KEY          require "Authorization: Bearer KEY"
  --genesis TO:SATS      an output of the genesis coinbase (repeatable); TO is an address or a locking script in hex
`;

export async function runDevnetCommand(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    process.stderr.write(`tokenproxy devnet: ${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    return 2;
  }
  if (parsed.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const devnet = await createDevnet({
    ...(parsed.dataDir !== undefined && { dataDir: parsed.dataDir }),
    ...(parsed.genesis.length > 0 && { genesis: parsed.genesis }),
    blockIntervalMs: parsed.blockIntervalMs,
    feeRateSatPerKb: parsed.feeRate,
  });
  let server: Awaited<ReturnType<typeof startArcServer>>;
  try {
    server = await startArcServer({
      devnet,
      port: parsed.port,
      host: parsed.host,
      ...(parsed.apiKey !== undefined && { apiKey: parsed.apiKey }),
    });
  } catch (err) {
    await devnet.close();
    throw err;
  }
  const tip = await devnet.tip();
  process.stdout.write(
    `devnet ARC API on ${server.url} (data: ${parsed.dataDir ?? 'in memory'}, height ${tip.height}, genesis coinbase ${devnet.block(0)!.txids[0]})\n`,
  );
  await firstEvent(process, ['SIGINT', 'SIGTERM']);
  await server.close();
  await devnet.close();
  process.stdout.write('devnet stopped\n');
  return 0;
}

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'data-dir': { type: 'string' },
      'block-interval': { type: 'string' },
      'fee-rate': { type: 'string' },
      'api-key': { type: 'string' },
      genesis: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  return {
    help: values.help === true,
    port: integer(values.port ?? '9090', '--port', 0, 65535),
    host: values.host ?? '127.0.0.1',
    dataDir: values['data-dir'],
    blockIntervalMs: integer(values['block-interval'] ?? '10000', '--block-interval', 0, 2 ** 31 - 1),
    feeRate: BigInt(integer(values['fee-rate'] ?? '1', '--fee-rate', 0, Number.MAX_SAFE_INTEGER)),
    apiKey: values['api-key'],
    genesis: (values.genesis ?? []).map(genesisOutput),
  };
}

function integer(text: string, name: string, min: number, max: number): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}

function genesisOutput(spec: string): GenesisOutput {
  const sep = spec.lastIndexOf(':');
  const to = spec.slice(0, sep);
  const sats = spec.slice(sep + 1);
  if (sep <= 0 || !/^\d+$/.test(sats) || BigInt(sats) === 0n)
    throw new Error(`--genesis ${spec}: expected TO:SATS`);
  const lockingScript = /^([0-9a-f]{2})+$/i.test(to)
    ? new Uint8Array(Buffer.from(to, 'hex'))
    : (() => {
        try {
          return new P2PKH().lock(to).toUint8Array();
        } catch {
          throw new Error(`--genesis ${spec}: ${to} is neither an address nor a hex script`);
        }
      })();
  return { lockingScript, satoshis: BigInt(sats) };
}

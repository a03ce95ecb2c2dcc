// A Ledger that times every call of the one it wraps (ledger round-trip times).
import type { Ledger } from '../ledger/port.js';
import type { ServiceMetrics } from './service-metrics.js';

export function instrumentLedger(inner: Ledger, metrics: Pick<ServiceMetrics, 'ledgerDuration'>): Ledger {
  const timed = async <T>(operation: string, call: () => Promise<T>): Promise<T> => {
    const stop = metrics.ledgerDuration.startTimer({ operation });
    try {
      const result = await call();
      stop({ outcome: 'ok' });
      return result;
    } catch (err) {
      stop({ outcome: 'error' });
      throw err;
    }
  };
  return {
    broadcast: (rawTx) => timed('broadcast', () => inner.broadcast(rawTx)),
    broadcastMany: (rawTxs) => timed('broadcastMany', () => inner.broadcastMany(rawTxs)),
    status: (txid) => timed('status', () => inner.status(txid)),
    rawTransaction: (txid) => timed('rawTransaction', () => inner.rawTransaction(txid)),
    tip: () => timed('tip', () => inner.tip()),
    feePolicy: () => timed('feePolicy', () => inner.feePolicy()),
    subscribe: (listener) => inner.subscribe(listener),
    close: () => inner.close(),
  };
}

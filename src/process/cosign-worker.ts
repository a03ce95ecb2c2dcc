// A cosigning thread (src/process/cosigner.ts starts it): runs each job it is sent through the
// pure cosigning step and posts the outcome back, or the error it threw. The keys come once, at
// start, in workerData.
import { parentPort, workerData } from 'node:worker_threads';
import type { CosignKeys } from '../domain/complete-transfer.js';
import { type CosignJob, cosignTransfer } from '../domain/cosign-transfer.js';

const keys = workerData as CosignKeys;

parentPort?.on('message', (message: { readonly id: number; readonly job: CosignJob }) => {
  try {
    parentPort!.postMessage({ id: message.id, outcome: cosignTransfer(message.job, keys) });
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    parentPort!.postMessage({ id: message.id, error: { name: error.name, message: error.message } });
  }
});

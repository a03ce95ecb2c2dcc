// A test operator: the four operator keys and the master key derived from a label, and the
// flags that hand them to `tokenproxy start` (the same operator for every process of a test).
import { toHex } from '../../src/domain/script-chunks.js';
import { type Party, party } from './token-world.js';

export interface Operator {
  readonly approver: Party;
  readonly mint: Party;
  readonly fee: Party;
  readonly funding: Party;
  readonly master: Party;
}

export function operatorOf(label: string): Operator {
  return {
    approver: party(`${label} approver`),
    mint: party(`${label} mint`),
    fee: party(`${label} fee`),
    funding: party(`${label} funding`),
    master: party(`${label} master`),
  };
}

/** `--approver-key … --master-key …` for the operator. */
export function operatorKeyFlags(operator: Operator): string[] {
  return [
    '--approver-key',
    toHex(operator.approver.privateKey),
    '--mint-key',
    toHex(operator.mint.privateKey),
    '--fee-key',
    toHex(operator.fee.privateKey),
    '--funding-key',
    toHex(operator.funding.privateKey),
    '--master-key',
    toHex(operator.master.privateKey),
  ];
}

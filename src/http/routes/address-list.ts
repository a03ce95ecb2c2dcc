// The address-array bodies of sync, utxos and balance: 1 to N strings, each a valid address
// (checksum checked), or a 400 that names the first invalid one.
import { Type } from 'typebox';
import { isValidAddress } from '../../domain/address.js';
import { AppError } from '../app-error.js';

export function addressListSchema(max: number) {
  return Type.Array(Type.String({ maxLength: 128 }), {
    minItems: 1,
    maxItems: max,
    description: `Addresses (1 to ${max})`,
  });
}

export function checkAddresses(addresses: readonly string[]): string[] {
  for (const address of addresses) {
    if (!isValidAddress(address)) throw new AppError('INVALID_ADDRESS', `invalid address: ${address}`);
  }
  return [...addresses];
}

// The Parse response (spec 2.7) as the reference client builds it: the types parse-tx.ts fills.

export type TxOperation = 'transfer' | 'burn' | 'deploy' | 'mint' | 'redeem';
export type Environment = 'production' | 'sandbox';

export interface AddressAmount {
  readonly address: string;
  /** null where the client's parseInt gives NaN (serialised as JSON null). */
  readonly amount: bigint | null;
}

export interface TokenData {
  readonly amount: bigint | null;
}

export interface RawParsedInput {
  readonly txid: string;
  readonly vout: number;
  readonly scriptSig: string;
  readonly sequence: number;
  readonly address: string | undefined;
  readonly satoshis: bigint;
  readonly tokenData: TokenData | undefined;
}

export interface RawParsedOutput {
  readonly value: bigint;
  readonly scriptPubKey: string;
  readonly address: string | undefined;
  readonly tokenData: TokenData | undefined;
}

export interface ParseRaw {
  readonly txHex: string;
  readonly inputs: readonly RawParsedInput[];
  readonly outputs: readonly RawParsedOutput[];
  // Spec 2.7 fields the client does not produce:
  readonly version: number;
  readonly lockTime: number;
  readonly size: number;
  /** The transaction ID (display order), as `txid`. */
  readonly hash: string;
}

export interface ParseResponse {
  readonly txid: string;
  readonly environment: Environment;
  readonly type: TxOperation;
  readonly inputs: readonly AddressAmount[];
  readonly outputs: readonly AddressAmount[];
  readonly isValid: boolean;
  readonly inputTotal: string;
  readonly outputTotal: string;
  readonly raw?: ParseRaw;
}

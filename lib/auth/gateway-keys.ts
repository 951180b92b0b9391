/** A customer's API Gateway key: the usage identifier that selects its usage plan; never its bearer key, neither shown nor logged. */
import { randomBytes } from 'node:crypto';
import { randomBase62 } from './keys.js';

export interface GatewayKey {
  gatewayKey: string;
  gatewayKeyId: string;
  usagePlan: string;
}

/** About 238 bits; API Gateway takes 20 to 128 letters and digits. */
export function newGatewayKeyValue(): string {
  return randomBase62(40);
}

export function localGatewayKeyId(): string {
  return `local-${randomBytes(6).toString('hex')}`;
}

/**
 * A customer's API Gateway API key: the usage identifier the authorizer names so that API Gateway applies the
 * customer's usage plan. Its value is ours to choose (API Gateway takes 20 to 128 letters and digits); it is an
 * internal identifier, never the customer's bearer key, and is neither shown nor logged. Locally, where no API Gateway
 * holds keys, the customer's record is the local gateway's model of them (infra/local/usage-plans.ts).
 */
import { randomBytes } from 'node:crypto';
import { randomBase62 } from './keys.js';

/** The key, its id in API Gateway, and the usage plan (lib/usage-plans.ts) it is in. */
export interface GatewayKey {
  gatewayKey: string;
  gatewayKeyId: string;
  usagePlan: string;
}

/** 40 random letters and digits (about 238 bits). */
export function newGatewayKeyValue(): string {
  return randomBase62(40);
}

/** The id a key gets where no API Gateway assigns one (the local gateway's model). */
export function localGatewayKeyId(): string {
  return `local-${randomBytes(6).toString('hex')}`;
}

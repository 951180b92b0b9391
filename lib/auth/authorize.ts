/** The authorizer's decision: Allow with the plan and limits, or Deny saying why; the key's format before any DynamoDB read. */
import type { APIGatewayAuthorizerResult } from 'aws-lambda';
import { nowMs } from '../clock.js';
import type { Stage } from '../stacks.js';
import { bearerKey, REPEATED_AUTHORIZATION_MESSAGE } from './authorization-header.js';
import type { AuthContext } from './context.js';
import { hasExpired } from './key-status.js';
import { checkKey, KEY_PREFIX } from './keys.js';
import type { AuthReader } from './reader.js';
import { limitsOf } from './records.js';

const MESSAGES = {
  missing: () => 'The Authorization header is missing: send Authorization: Bearer <API key>',
  repeated: () => REPEATED_AUTHORIZATION_MESSAGE,
  scheme: () => 'The Authorization header must use the Bearer scheme: Authorization: Bearer <API key>',
  separator: () =>
    'The Authorization header must separate Bearer from the API key with spaces (U+0020) only, not tabs or other white space: Authorization: Bearer <API key>',
  'extra-text': () =>
    'The Authorization header must hold exactly one API key after Bearer, and nothing else: Authorization: Bearer <API key>',
  malformed: (stage) => `The API key is malformed: a ${stage} key is ${KEY_PREFIX[stage]} followed by 36 letters and digits`,
  checksum: () => 'The API key is not valid (its checksum does not match): check that it was copied whole',
  'other-environment': (stage) =>
    `The API key belongs to the other environment: ${stage} takes ${KEY_PREFIX[stage]} keys; use the key issued for this one`,
  unknown: () => 'The API key is not recognised: check it, or ask for a new one',
  revoked: () => 'The API key has been revoked: use another key of your account',
  expired: (_stage, expiredAt) => `The API key expired at ${expiredAt}: use another key of your account, or ask for a new one`,
  'no-customer': () => 'The API key is not attached to an active customer: ask for a new one',
  suspended: () => 'The account this API key belongs to is suspended: its keys are refused until it is resumed; contact the API provider',
} satisfies Record<string, (stage: Stage, detail?: string) => string>;
export type Refusal = keyof typeof MESSAGES;

/** An Allow names the customer's gateway key (`usageIdentifierKey`), so that API Gateway applies its usage plan. */
export type Decision =
  | { allow: true; context: AuthContext; usageIdentifierKey?: string }
  | { allow: false; refusal: Refusal; message: string };

export function refuse(refusal: Refusal, stage: Stage, detail?: string): Decision {
  return { allow: false, refusal, message: MESSAGES[refusal](stage, detail) };
}

/** A key that expires (or an account suspended) while its Allow is cached is refused at most the cache TTL late. */
export async function decide(authorization: string | undefined, stage: Stage, store: AuthReader, now = nowMs()): Promise<Decision> {
  // The scheme, then the credentials: one key, nothing after it (a second value joined into the header included).
  const bearer = bearerKey(authorization);
  if ('problem' in bearer) return refuse(bearer.problem, stage);
  const { key } = bearer;
  const check = checkKey(key);
  if (!check.ok) return refuse(check.reason === 'checksum' ? 'checksum' : 'malformed', stage);
  if (check.stage !== stage) return refuse('other-environment', stage);

  const record = await store.findKey(key);
  if (!record || record.stage !== stage) return refuse('unknown', stage);
  if (record.status !== 'active') return refuse('revoked', stage);
  if (hasExpired(record, now)) return refuse('expired', stage, record.expiresAt);
  const customer = await store.getCustomer(record.customerId);
  if (!customer) return refuse('no-customer', stage);
  if (customer.suspendedAt) return refuse('suspended', stage);
  const limits = limitsOf(customer);
  return {
    allow: true,
    context: { customerId: customer.customerId, keyId: record.keyId, plan: customer.plan, ...limits },
    ...(customer.gatewayKey ? { usageIdentifierKey: customer.gatewayKey } : {}),
  };
}

/** The decision on a request's Authorization values (authorization-header.ts): more than one is refused unread. */
export function decideRequest(authorizations: readonly string[], stage: Stage, store: AuthReader): Promise<Decision> {
  if (authorizations.length > 1) return Promise.resolve(refuse('repeated', stage));
  return decide(authorizations[0], stage, store);
}

export function toPolicy(decision: Decision, methodArn: string): APIGatewayAuthorizerResult {
  // Every method of the stage: API Gateway caches one result per key and reuses it across operations.
  const [arnPrefix, stageName] = methodArn.split('/');
  const resource = `${arnPrefix}/${stageName}/*/*`;
  if (decision.allow) {
    return {
      principalId: decision.context.customerId,
      policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: resource }] },
      context: { ...decision.context },
      // API key source AUTHORIZER: API Gateway takes the usage plan's key from here ("Output from an API Gateway
      // Lambda authorizer"); it is not in the context, so no function sees it.
      ...(decision.usageIdentifierKey ? { usageIdentifierKey: decision.usageIdentifierKey } : {}),
    };
  }
  return {
    principalId: 'anonymous',
    policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: resource }] },
    // The ACCESS_DENIED gateway response turns this into the 401 Error body's message.
    context: { message: decision.message, reason: decision.refusal },
  };
}

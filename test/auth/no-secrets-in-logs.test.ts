/**
 * No log line ever contains an API key, a key hash or an Authorization header: every line written while keys
 * are accepted, refused, revoked and rate limited is captured and searched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, hashKey } from '../../lib/auth/keys.js';
import { setLogSink } from '../../lib/log.js';
import { addKey, makeCustomer, testAuthStore } from '../support/customers.js';
import { useGateway } from '../support/http.js';

const lines: string[] = [];
const originalWrite = process.stdout.write.bind(process.stdout);
const originalError = process.stderr.write.bind(process.stderr);

beforeAll(() => {
  setLogSink((line) => lines.push(line));
  // Anything printed another way (console, SDK warnings) is captured too.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(String(chunk));
    return (originalWrite as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    lines.push(String(chunk));
    return (originalError as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  process.env.LOG_LEVEL = 'DEBUG';
});
afterAll(() => {
  process.stdout.write = originalWrite;
  process.stderr.write = originalError;
});

describe('secrets never reach a log line', () => {
  const { call } = useGateway();

  it('through accepted, refused, revoked, rate-limited and malformed requests', async () => {
    const customer = await makeCustomer('enterprise', { perMinute: 3, perDay: 100 });
    const extra = await addKey(customer.customerId);
    const secrets = [customer.apiKey, extra.apiKey, generateKey('production'), generateKey('staging')];
    for (let i = 0; i < 5; i++) await call('/categories', { key: customer.apiKey });
    await call('/categories', { key: secrets[2] as string });
    await call('/categories', { key: secrets[3] as string });
    await call('/categories', { headers: { Authorization: `Basic ${customer.apiKey}` } });
    await call('/categories', { headers: { Authorization: `Bearer ${customer.apiKey.slice(0, -1)}X` } });
    await call('/categories', {
      method: 'POST',
      key: extra.apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: `{"name":"${extra.apiKey}"`,
    });
    await testAuthStore.revokeKey(extra.keyId);
    await call('/categories', { key: extra.apiKey });

    expect(lines.length).toBeGreaterThan(0);
    const all = lines.join('\n');
    for (const secret of secrets) {
      expect(all).not.toContain(secret);
      expect(all).not.toContain(secret.slice(9)); // the key without its prefix
      expect(all).not.toContain(hashKey(secret));
    }
    expect(all.toLowerCase()).not.toMatch(/"authorization"\s*:\s*"(bearer|basic)/);
    expect(all).toContain(customer.keyId); // keys are named by their public id instead
  });
});

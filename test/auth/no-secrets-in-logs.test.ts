/**
 * No log line ever contains an API key, a key hash or an Authorization header: every line written while keys
 * are accepted, refused, revoked and rate limited is captured and searched, the metrics' EMF lines included. Nor
 * does any error body: every refusal's answer is searched the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, hashKey } from '../../lib/auth/keys.js';
import { resetClock, setClock } from '../../lib/clock.js';
import { log } from '../../lib/log.js';
import { addKey, makeCustomer, testAuthStore, withBrokenChecksum } from '../support/customers.js';
import { useGateway } from '../support/http.js';
import { captureLogs, captureWrites } from '../support/logs.js';

// lib/metrics.ts decides on first use whether to write EMF lines (off in tests unless asked), and reads its namespace then.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';
process.env.POWERTOOLS_METRICS_NAMESPACE = 'PetStore/test';

let logs: ReturnType<typeof captureLogs>;
let stdout: ReturnType<typeof captureWrites>;
let stderr: ReturnType<typeof captureWrites>;
/** Every line written: the logger's, and anything printed another way (console, SDK warnings, the EMF lines). */
const written = () => [...logs.lines, ...stdout.chunks, ...stderr.chunks];

beforeAll(() => {
  logs = captureLogs();
  stdout = captureWrites(process.stdout, (text) => text.startsWith('{"_aws"')); // EMF lines: searched, not echoed
  stderr = captureWrites(process.stderr);
  log.setLogLevel('DEBUG');
});
afterAll(() => {
  stdout.stop();
  stderr.stop();
  logs.stop();
});

describe('secrets never reach a log line', () => {
  const { call } = useGateway();

  it('through accepted, refused, revoked, rate-limited and malformed requests', async () => {
    const customer = await makeCustomer('enterprise', { perMinute: 3, perDay: 100 });
    const extra = await addKey(customer.customerId);
    const unknownKeys = [generateKey('production'), generateKey('staging')];
    const secrets = [customer.apiKey, extra.apiKey, ...unknownKeys];
    for (let i = 0; i < 5; i++) await call('/categories', { key: customer.apiKey });
    for (const key of unknownKeys) await call('/categories', { key });
    await call('/categories', { headers: { Authorization: `Basic ${customer.apiKey}` } });
    await call('/categories', { headers: { Authorization: `Bearer ${withBrokenChecksum(customer.apiKey)}` } });
    await call('/categories', {
      method: 'POST',
      key: extra.apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: `{"name":"${extra.apiKey}"`,
    });
    await testAuthStore.revokeKey(extra.keyId);
    await call('/categories', { key: extra.apiKey });

    const lines = written();
    expect(lines.length).toBeGreaterThan(0);
    const all = lines.join('\n');
    for (const secret of secrets) {
      expect(all).not.toContain(secret);
      expect(all).not.toContain(secret.slice(9)); // the key without its prefix
      expect(all).not.toContain(hashKey(secret));
    }
    expect(all.toLowerCase()).not.toMatch(/"authorization"\s*:\s*"(bearer|basic)/);
    expect(all).toContain(customer.keyId); // keys are named by their public id instead
    expect(all).toContain('"AdmittedRequests":1'); // the EMF lines were written, and searched
  });
});

describe('secrets never reach an error body', () => {
  const { call } = useGateway();

  // One instant mid-minute, in the future: the ban needs 11 refusals in one minute of a customer of 1 a minute.
  beforeAll(() => setClock(() => Date.UTC(2036, 2, 10, 12, 34, 30)));
  afterAll(resetClock);

  it('for every refusal of a key, a rate limit, a ban, and a bad body sent with a valid key', async () => {
    const customer = await makeCustomer('enterprise', { perMinute: 1, perDay: 100 });
    const revoked = await addKey(customer.customerId);
    await testAuthStore.revokeKey(revoked.keyId);
    const staging = generateKey('staging');
    const unknown = generateKey('production');
    const broken = withBrokenChecksum(customer.apiKey);
    const json = { 'Content-Type': 'application/json' };
    const attempts: [string, RequestInit & { key?: string | null }][] = [
      ['/categories', { key: revoked.apiKey }],
      ['/categories', { key: staging }],
      ['/categories', { key: unknown }],
      ['/categories', { key: broken }],
      ['/categories', { key: `${customer.apiKey}x` }],
      ['/categories', { headers: { Authorization: customer.apiKey } }],
      ['/categories', { headers: { Authorization: `Basic ${customer.apiKey}` } }],
      ['/categories', { headers: { Authorization: `Token ${Buffer.from(customer.apiKey).toString('base64')}` } }],
      ['/categories', { key: customer.apiKey, method: 'POST', headers: json, body: '{' }],
      ['/categories', { key: customer.apiKey, method: 'POST', headers: json, body: '{"name":"Dog"}' }], // over the limit of 1
      ...Array.from({ length: 10 }, (): [string, RequestInit] => ['/rate-limit', {}]), // status, not counted
      ...Array.from({ length: 12 }, (): [string, RequestInit & { key: string }] => ['/categories', { key: customer.apiKey }]), // to a ban
      ['/nowhere', { key: customer.apiKey }],
    ];
    const bodies: string[] = [];
    const statuses = new Set<number>();
    for (const [path, init] of attempts) {
      const answer = await call(path, init);
      statuses.add(answer.status);
      if (answer.status >= 400) bodies.push(answer.text);
    }
    expect([...statuses].sort()).toEqual(expect.arrayContaining([400, 401, 404, 429]));
    expect(bodies.some((b) => b.includes('API_KEY_TEMPORARILY_BANNED'))).toBe(true);
    const all = bodies.join('\n');
    for (const secret of [customer.apiKey, revoked.apiKey, staging, unknown, broken]) {
      expect(all).not.toContain(secret);
      expect(all).not.toContain(secret.slice(9, 30)); // any long run of the random part
      expect(all).not.toContain(hashKey(secret));
      expect(all).not.toContain(hashKey(secret).slice(0, 16));
    }
    expect(all).not.toContain(Buffer.from(customer.apiKey).toString('base64'));
    // Messages may say how to send a key ("Authorization: Bearer <API key>"), never echo the header that was sent.
    expect(all).not.toMatch(/Bearer pet_|(?:Basic|Token) [A-Za-z0-9+/=]{8}/);
  });
});

/**
 * `petstore verify` against the local gateway of each stage, run as `npm start` runs it: every check passes, and
 * the run leaves no active key or customer behind, its changes in the audit trail. Against a server that breaks the
 * contract on purpose (a proxy in front of the gateway that drops one header, or answers one 401 without the Error
 * shape) it fails, naming the check. Bad arguments exit 2 having written nothing. How long a run takes is printed,
 * not asserted.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localTableNames } from '../../lib/dynamo/tables.js';
import type { Stage } from '../../lib/stacks.js';
import { type CliResult, petstore, petstoreProcess } from '../support/cli.js';
import { testDb } from '../support/customers.js';
import { TEST_PREFIX } from '../support/setup.js';
import { type StageGateway, startStageGateway } from '../support/stage-gateway.js';

/** The checks, in the order a run makes them; their names are the output's stable part. */
const CHECK_NAMES = [
  '401 without a key',
  '401 with a bad key',
  'GET /categories: 200 with rate-limit and cache headers',
  'POST /categories with an Idempotency-Key: 201',
  'POST /categories again with that key: replayed, same body',
  '400 for a bad body',
  '404 for an unknown path',
  'deprecated GET /pets/{petId}: Deprecation, Sunset, Link',
  '429 RATE_LIMIT_EXCEEDED once the minute is used up',
  'GET /rate-limit: 200, plan and windows, no quota used',
  'temporary gateway key deleted',
  'temporary key revoked (audited)',
  'categories the run created deleted (audited)',
  'temporary customer suspended (audited)',
];

const gateways = new Map<Stage, StageGateway>();
beforeAll(async () => {
  const [production, staging] = await Promise.all([startStageGateway('production'), startStageGateway('staging')]);
  gateways.set('production', production);
  gateways.set('staging', staging);
}, 60_000);
afterAll(async () => {
  await Promise.all([...gateways.values()].map((g) => g.stop()));
});
const urlOf = (stage: Stage) => gateways.get(stage)?.url ?? '';

async function scan(stage: Stage, table: 'CUSTOMERS_TABLE' | 'KEYS_TABLE' | 'AUDIT_TABLE' | 'CATEGORIES_TABLE') {
  const { Items } = await testDb.send(new ScanCommand({ TableName: localTableNames(stage, TEST_PREFIX)[table], ConsistentRead: true }));
  return Items ?? [];
}

/** The lines a run printed on stdout. */
const linesOf = (result: CliResult) => result.stdout.trimEnd().split('\n');
const customerOf = (result: CliResult) => /as temporary customer (verify-\S+) /.exec(result.stdout)?.[1] ?? '';

/** Runs verify and prints how long it took (the figure the documentation gives), without asserting it. */
async function timedVerify(label: string, run: () => Promise<CliResult>): Promise<CliResult> {
  const started = performance.now();
  const result = await run();
  console.log(`verify ${label}: ${((performance.now() - started) / 1000).toFixed(2)} s`);
  return result;
}

/** What a run left in the stage's tables for its customer: it, its keys and its audit records. */
async function leftBehind(stage: Stage, customerId: string) {
  const customers = (await scan(stage, 'CUSTOMERS_TABLE')).filter((c) => c.customerId === customerId);
  const keys = (await scan(stage, 'KEYS_TABLE')).filter((k) => k.customerId === customerId);
  const audit = (await scan(stage, 'AUDIT_TABLE'))
    .filter((a) => a.customerId === customerId)
    .sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
  return { customers, keys, audit };
}

describe('verify against the local gateway', () => {
  for (const stage of ['production', 'staging'] as const) {
    it(`passes every check on ${stage}, and leaves the customer suspended and its key revoked, all audited`, async () => {
      const result = await timedVerify(`${stage} (in-process)`, () => petstore('verify', '--stage', stage, '--url', urlOf(stage)));
      expect(result.stderr).toBe('');
      const lines = linesOf(result);
      expect(lines[0]).toMatch(/^verify \w+ at \S+ as temporary customer verify-\S+ \(key key_\w{16}\)$/);
      expect(lines[0]).toContain(`verify ${stage} at ${urlOf(stage)} `);
      const checks = lines.filter((line) => /^(PASS|FAIL) {2}/.test(line));
      expect(checks.map((line) => line.slice(6).replace(/ \[.*\]$/, ''))).toEqual(CHECK_NAMES);
      expect(checks.filter((line) => !line.startsWith('PASS'))).toEqual([]);
      expect(lines.at(-1)).toBe(`${CHECK_NAMES.length} passed, 0 failed`);
      expect(result.code).toBe(0);

      const customerId = customerOf(result);
      expect(customerId).toMatch(/^verify-\d{8}T\d{6}Z-[0-9a-f]{6}$/);
      const { customers, keys, audit } = await leftBehind(stage, customerId);
      expect(customers).toEqual([
        expect.objectContaining({ plan: 'enterprise', perMinute: 10, perDay: 100, suspendedAt: expect.any(String) }),
      ]);
      expect(keys).toEqual([expect.objectContaining({ stage, status: 'revoked', revokedAt: expect.any(String) })]);
      // In the order made, unless two share a millisecond (records sort by time, then by a random part).
      expect(audit.map((a) => a.action).sort()).toEqual(['category-delete', 'key-create', 'key-revoke', 'plan-change', 'suspend']);
      // The category it made (named after the run) is deleted, and the line says which.
      const categories = (await scan(stage, 'CATEGORIES_TABLE')).filter((c) => c.pk === 'CATEGORY' && c.name === customerId);
      expect(categories).toEqual([]);
      expect(lines.find((line) => line.startsWith('PASS  categories the run created deleted'))).toMatch(/\[deleted \d+\]$/);
    });
  }

  it('as an operator runs it (npm run petstore, --json): the checks as an array, all passed', async () => {
    const result = await timedVerify('staging (npm run petstore, --json)', () =>
      petstoreProcess(['verify', '--stage', 'staging', '--url', urlOf('staging'), '--json']),
    );
    expect(result.code).toBe(0);
    const checks = v.parse(
      v.array(v.object({ check: v.string(), passed: v.boolean(), problems: v.array(v.string()) })),
      JSON.parse(result.stdout),
    );
    expect(checks.map((c) => c.check)).toEqual(CHECK_NAMES);
    expect(checks.filter((c) => !c.passed || c.problems.length)).toEqual([]);
  });

  it('leaves no active key or customer of any run in either stage', async () => {
    for (const stage of ['production', 'staging'] as const) {
      const runs = (await scan(stage, 'CUSTOMERS_TABLE')).filter((c) => String(c.customerId).startsWith('verify-'));
      expect(runs.length).toBeGreaterThan(0);
      expect(runs.filter((c) => !c.suspendedAt)).toEqual([]);
      const ids = new Set(runs.map((c) => c.customerId));
      const keys = (await scan(stage, 'KEYS_TABLE')).filter((k) => ids.has(k.customerId));
      expect(keys.length).toBeGreaterThan(0);
      expect(keys.filter((k) => k.status !== 'revoked')).toEqual([]);
    }
  });

  it("marks its customers as verify's: customers list and the billing export leave them out unless asked, and say so", async () => {
    const runs = (await scan('production', 'CUSTOMERS_TABLE')).filter((c) => String(c.customerId).startsWith('verify-'));
    expect(runs.length).toBeGreaterThan(0);
    expect(runs.filter((c) => c.purpose !== 'verify')).toEqual([]);
    expect((await petstore('customers', 'set-plan', 'verify-neighbour', 'pro')).code).toBe(0);
    const note = `petstore: ${runs.length} temporary ${runs.length === 1 ? 'customer' : 'customers'} of verify runs left out (--include-verify to show them)\n`;

    const listed = await petstore('customers', 'list', '--json');
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ customerId: 'verify-neighbour', plan: 'pro' })]);
    expect(listed.stderr).toBe(note);
    const text = await petstore('customers', 'list');
    expect(text.stdout).not.toContain('verify-2');
    expect(text.stderr).toBe(note);
    const all = JSON.parse((await petstore('customers', 'list', '--json', '--include-verify')).stdout);
    expect(all).toHaveLength(runs.length + 1);
    expect(all.filter((c: { purpose?: string }) => c.purpose === 'verify')).toHaveLength(runs.length);
    expect((await petstore('customers', 'list', '--include-verify')).stdout).toMatch(
      /verify-\S+\s+enterprise\s+10\s+100\s+0\s+suspended \(verify\)/,
    );

    const month = new Date().toISOString().slice(0, 7);
    const csv = await petstore('usage', '--month', month, '--csv');
    expect(csv.stdout.trimEnd().split('\n')).toEqual([
      'month,customerId,plan,admitted,refused,activeDays',
      `${month},verify-neighbour,pro,0,0,0`,
    ]);
    expect(csv.stderr).toBe(note);
    const billed = await petstore('usage', '--month', month, '--json', '--include-verify');
    expect(billed.stderr).toBe('');
    const verifyRows = JSON.parse(billed.stdout).customers.filter((c: { customerId: string }) => c.customerId.startsWith('verify-2'));
    expect(verifyRows).toHaveLength(runs.length);
    expect(verifyRows.every((c: { admitted: number }) => c.admitted > 0)).toBe(true);
    expect((await petstore('usage', 'verify-neighbour', '--include-verify')).code).toBe(2);
  });
});

/**
 * A proxy in front of the production gateway that passes every request through and hands the answer to `mangle`
 * before sending it on, so one answer can break the contract on purpose.
 */
interface Proxied {
  status: number;
  headers: Headers;
  body: string;
}
async function startProxy(
  target: string,
  mangle: (req: IncomingMessage, answer: Proxied) => void,
): Promise<{ url: string; server: Server }> {
  const origin = new URL(target).origin;
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(Buffer.from(chunk));
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && name !== 'host') headers.set(name, value);
    const response = await fetch(`${origin}${req.url}`, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const answer: Proxied = { status: response.status, headers: new Headers(response.headers), body: await response.text() };
    mangle(req, answer);
    for (const name of ['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive']) answer.headers.delete(name);
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}${new URL(target).pathname}`, server };
}

async function verifyBehind(mangle: (req: IncomingMessage, answer: Proxied) => void): Promise<CliResult> {
  const proxy = await startProxy(urlOf('production'), mangle);
  try {
    return await petstore('verify', '--stage', 'production', '--url', proxy.url);
  } finally {
    proxy.server.close();
    proxy.server.closeAllConnections();
  }
}

describe('verify against a server that breaks the contract', () => {
  it('fails, naming the check, when GET /categories answers 200 without X-RateLimit-Remaining', async () => {
    const result = await verifyBehind((req, answer) => {
      if (req.method === 'GET' && req.url === '/v1/categories' && answer.status === 200) answer.headers.delete('X-RateLimit-Remaining');
    });
    const failed = linesOf(result).filter((line) => line.startsWith('FAIL'));
    expect(failed).toEqual([
      expect.stringMatching(/^FAIL {2}GET \/categories: 200 with rate-limit and cache headers: .*X-RateLimit-Remaining is missing/),
    ]);
    expect(linesOf(result).at(-1)).toBe(`${CHECK_NAMES.length - 1} passed, 1 failed`);
    expect(result.code).toBe(1);
  });

  it('fails, naming the check, when a 401 is not in the Error shape (API Gateway\'s default {"message"})', async () => {
    const result = await verifyBehind((req, answer) => {
      if (answer.status === 401 && req.headers.authorization === undefined) answer.body = JSON.stringify({ message: 'Unauthorized' });
    });
    const failed = linesOf(result).filter((line) => line.startsWith('FAIL'));
    expect(failed).toEqual([
      expect.stringMatching(
        /^FAIL {2}401 without a key: the Error body has fields \[message\], expected \[code,message,status\]; code is undefined/,
      ),
    ]);
    expect(linesOf(result).at(-1)).toBe(`${CHECK_NAMES.length - 1} passed, 1 failed`);
    expect(result.code).toBe(1);
    // Failed or not, the run retired its customer.
    const { customers, keys } = await leftBehind('production', customerOf(result));
    expect(customers.filter((c) => !c.suspendedAt)).toEqual([]);
    expect(keys.filter((k) => k.status !== 'revoked')).toEqual([]);
  });
});

describe('verify with bad arguments', () => {
  it.each([
    [['--stage', 'production', '--url', 'not a url'], /--url must be the API's base URL/],
    [['--stage', 'production', '--url', 'ftp://127.0.0.1/v1'], /--url must be an https URL/],
    [['--stage', 'production', '--url', 'http://api.example.com/v1'], /--url must use https for a host other than this machine/],
    [['--stage', 'production', '--url', 'https://api.example.com/v1?stage=1'], /without a query or fragment/],
    [['--aws'], /with --aws, "verify" changes a deployed stack: say which with --stage/],
    [['--stage', 'testing'], /--stage must be production or staging/],
    [['extra'], /"verify" takes at most 0 arguments/],
  ])('verify %j exits 2 and writes nothing', async (args, message) => {
    const before = (await scan('production', 'CUSTOMERS_TABLE')).length;
    const result = await petstore('verify', ...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
    expect((await scan('production', 'CUSTOMERS_TABLE')).length).toBe(before);
  });
});

/**
 * `npm start` as a newcomer runs it: DynamoDB Local from the package, both environments on their own ports with
 * their own tables, data kept across a restart, everything stopped by Ctrl-C, and a clear line without Java.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createCategory as createCategoryRoute, listCategories } from '../../lib/routes.js';
import { answerOfResponse, successBody } from '../support/answer.js';
import { portOpen } from '../support/npm-start.js';
import { startLocal } from '../support/start-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'petstore-start-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** The ready-to-paste curl lines `npm start` prints: base URL → demo key. */
function demoKeys(output: string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const [, key, base] of output.matchAll(/curl -H 'Authorization: Bearer (pet_\w+)' (\S+)\/categories/g))
    if (base && key) keys.set(base, key);
  return keys;
}
let keys = new Map<string, string>();
const auth = (base: string) => ({ Authorization: `Bearer ${keys.get(base)}` });
const createCategory = (base: string, name: string) =>
  fetch(`${base}/categories`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...auth(base) },
    body: JSON.stringify({ name }),
  });
const listNames = async (base: string) =>
  successBody(listCategories, await answerOfResponse(await fetch(`${base}/categories`, { headers: auth(base) }))).map((c) => c.name);

describe('npm start', () => {
  it('serves production and staging apart, keeps data across a restart, and Ctrl-C stops DynamoDB Local', async () => {
    const first = await startLocal({ DATA_DIR: dataDir });
    expect(first.output()).toContain(first.production);
    expect(first.output()).toContain(first.staging);
    keys = demoKeys(first.output());
    expect(keys.get(first.production)).toMatch(/^pet_live_/);
    expect(keys.get(first.staging)).toMatch(/^pet_test_/);
    // Each environment refuses the other's key.
    expect((await fetch(`${first.production}/categories`, { headers: auth(first.staging) })).status).toBe(401);
    expect((await createCategory(first.production, 'Only in production')).status).toBe(201);
    expect((await createCategory(first.staging, 'Only in staging')).status).toBe(201);
    expect(await listNames(first.production)).toEqual(['Only in production']);
    expect(await listNames(first.staging)).toEqual(['Only in staging']);
    expect(await first.stop()).toBe(0);
    expect(await portOpen(Number(first.env.DYNAMODB_PORT))).toBe(false);

    const second = await startLocal({ DATA_DIR: dataDir });
    const oldKeys = keys;
    keys = demoKeys(second.output());
    expect(
      (await fetch(`${second.production}/categories`, { headers: { Authorization: `Bearer ${oldKeys.get(first.production)}` } })).status,
    ).toBe(401);
    expect(await listNames(second.production)).toEqual(['Only in production']);
    expect(await listNames(second.staging)).toEqual(['Only in staging']);
    expect(
      successBody(createCategoryRoute, await answerOfResponse(await createCategory(second.production, 'After restart'))),
    ).toMatchObject({
      id: 2,
    });
    await second.stop();
  }, 120_000);

  it('uses an existing DynamoDB given in DYNAMODB_ENDPOINT instead of starting its own', async () => {
    const endpoint = inject('dynamoEndpoint');
    // A DATA_DIR of its own for the running-start file, which would otherwise go to the checkout's .data/.
    const running = await startLocal({ DYNAMODB_ENDPOINT: endpoint, DATA_DIR: join(dataDir, 'on-endpoint') });
    expect(running.output()).toContain(`DynamoDB: ${endpoint} (from DYNAMODB_ENDPOINT)`);
    expect(running.output()).not.toContain('DynamoDB Local:');
    keys = demoKeys(running.output());
    expect((await createCategory(running.production, 'On the shared endpoint')).status).toBe(201);
    expect(await running.stop()).toBe(0);
    // The endpoint it was given is still up: npm start stops only what it started.
    expect(await portOpen(Number(new URL(endpoint).port))).toBe(true);
  }, 120_000);

  it('says in one line that Java is missing, and exits non-zero', () => {
    // A PATH holding node and nothing else: no java.
    const bin = mkdtempSync(join(tmpdir(), 'petstore-nojava-'));
    symlinkSync(process.execPath, join(bin, 'node'));
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'infra/local/start.ts'], {
      env: { ...process.env, PATH: bin, DYNAMODB_ENDPOINT: '', STAGE: '' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    rmSync(bin, { recursive: true, force: true });
    expect(result.status).not.toBe(0);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Java 17 or newer is required/);
  });
});

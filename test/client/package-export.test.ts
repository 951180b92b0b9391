/**
 * `petstore-api/client` as another project sees it: `npm run build:client` (which `npm pack` runs) writes the
 * bundle and its declarations, and a consumer project with this package in its node_modules imports it from
 * plain Node (ESM) and type-checks against it with strict NodeNext settings and no Node types.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
let consumer = '';

beforeAll(() => {
  execFileSync('npm', ['run', '--silent', 'build:client'], { cwd: ROOT, stdio: 'pipe' });
  consumer = mkdtempSync(join(tmpdir(), 'petstore-client-consumer-'));
  mkdirSync(join(consumer, 'node_modules'));
  symlinkSync(ROOT, join(consumer, 'node_modules', 'petstore-api'), 'dir');
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
  // Strict, NodeNext, no Node types: what a browser or edge project would have.
  const compilerOptions = {
    strict: true,
    noEmit: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2023', 'dom'],
    types: [],
  };
  writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['good.ts', 'wrong.ts'] }));
}, 120_000);
afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

describe('the petstore-api/client package export', () => {
  it('imports from plain Node and works against a fetch it is given', () => {
    writeFileSync(
      join(consumer, 'run.mjs'),
      `import { PetStoreClient, PetStoreError } from 'petstore-api/client';
const fetch = async () => new Response(JSON.stringify({ code: 'CATEGORY_EXISTS', message: 'taken', status: 409 }), { status: 409 });
const client = new PetStoreClient({ baseUrl: 'http://x/v1', apiKey: 'k', fetch });
try { await client.createCategory({ name: 'Dog' }); } catch (e) { console.log(JSON.stringify({ isError: e instanceof PetStoreError, code: e.code })); }`,
    );
    const out = execFileSync(process.execPath, ['run.mjs'], { cwd: consumer, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ isError: true, code: 'CATEGORY_EXISTS' });
  });

  it('type-checks a consumer with the types of the server’s schemas, and refuses a wrong one', () => {
    writeFileSync(
      join(consumer, 'good.ts'),
      `import { PetStoreClient, type Category, type ErrorCode, type NewCategory, type RateLimitState } from 'petstore-api/client';
const client = new PetStoreClient({ baseUrl: 'http://x/v1', apiKey: 'k' });
const input: NewCategory = { name: 'Dog', description: 'Domestic dogs' };
const created: Promise<Category> = client.createCategory(input, { idempotencyKey: 'k-1' });
const code: ErrorCode = 'IDEMPOTENCY_KEY_REUSED';
const state: RateLimitState = client.rateLimit;
export { created, code, state };
`,
    );
    writeFileSync(
      join(consumer, 'wrong.ts'),
      `import type { Category, ErrorCode } from 'petstore-api/client';
const category: Category = { id: '1', name: 'Dog' };
const code: ErrorCode = 'NO_SUCH_CODE';
export { category, code };
`,
    );
    let errors = '';
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
        cwd: consumer,
        encoding: 'utf8',
        stdio: 'pipe',
      });
    } catch (error) {
      errors = String((error as { stdout?: string }).stdout);
    }
    expect(errors).not.toMatch(/good\.ts/);
    expect(errors).toMatch(/wrong\.ts.*Type 'string' is not assignable to type 'number'/);
    expect(errors).toMatch(/wrong\.ts.*"NO_SUCH_CODE"/);
  }, 120_000);

  it('points its exports at what the build wrote, and the bundle imports nothing but valibot', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.exports['./client']).toMatchObject({ types: './dist/client/types/client/index.d.ts', import: './dist/client/index.js' });
    expect(pkg.files).toEqual(['dist/client']);
    const bundle = readFileSync(join(ROOT, 'dist/client/index.js'), 'utf8');
    const imports = [...bundle.matchAll(/^import .* from "([^"]+)";$/gm)].map(([, from]) => from);
    expect(new Set(imports)).toEqual(new Set(['valibot']));
  });
});

/**
 * `@petstore/client` as another project gets it: `npm run pack:client` builds and packs the workspace package, the
 * tarball is installed into an empty project from the npm cache alone, and that project holds the client and
 * valibot and nothing else, type-checks a five-line program with strict NodeNext settings and no Node types, and
 * runs it against the local gateway.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useGateway } from '../support/http.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CLIENT = join(ROOT, 'lib/client');
const { url, customer } = useGateway();
let consumer = '';
let installed = '';

/** npm's own variables of the `npm test` that runs us would configure the npm below (its workspace, its prefix). */
const npmEnv = () => Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

beforeAll(() => {
  execFileSync('npm', ['run', '--silent', 'pack:client'], { cwd: ROOT, stdio: 'pipe', env: npmEnv() });
  const { version } = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));
  const tarball = join(ROOT, 'dist', `petstore-client-${version}.tgz`);
  consumer = mkdtempSync(join(tmpdir(), 'petstore-client-consumer-'));
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  // npm 11 resolves a dependency new to a project from the registry's full metadata, which `npm ci` (working from
  // our lockfile) never fetches, so the cache cannot answer it. The consumer's lockfile names the valibot our
  // lockfile holds instead, as a consumer's own lockfile would; a dependency of the tarball beyond valibot would
  // still need the registry and fail the install.
  const rootLock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
  const { version: valibot, integrity } = rootLock.packages['node_modules/valibot'];
  const lock = {
    name: 'consumer',
    lockfileVersion: 3,
    requires: true,
    packages: { '': { name: 'consumer' }, 'node_modules/valibot': { version: valibot, integrity } },
  };
  writeFileSync(join(consumer, 'package-lock.json'), JSON.stringify(lock));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: consumer, stdio: 'pipe', env: npmEnv() });
  installed = join(consumer, 'node_modules/@petstore/client');
}, 180_000);
afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

describe('the @petstore/client tarball', () => {
  it('installs valibot and nothing else, under 5 MB in all', () => {
    const packages = readdirSync(join(consumer, 'node_modules'))
      .filter((name) => !name.startsWith('.'))
      .flatMap((name) => (name.startsWith('@') ? readdirSync(join(consumer, 'node_modules', name)).map((n) => `${name}/${n}`) : [name]));
    expect(packages.sort()).toEqual(['@petstore/client', 'valibot']);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(Object.keys(manifest.dependencies)).toEqual(['valibot']);
    expect(manifest.peerDependencies ?? {}).toEqual({});
    const bytes = files(join(consumer, 'node_modules')).reduce((sum, file) => sum + statSync(file).size, 0);
    expect(bytes).toBeLessThan(5 * 1024 * 1024);
  });

  it('holds a bundle that imports only valibot, and declarations that point nowhere outside the package', () => {
    const bundle = readFileSync(join(installed, 'dist/index.js'), 'utf8');
    const imports = [...bundle.matchAll(/^import .* from "([^"]+)";$/gm)].map(([, from]) => from);
    expect(new Set(imports)).toEqual(new Set(['valibot']));
    const declarations = files(installed).filter((file) => file.endsWith('.d.ts'));
    expect(declarations.length).toBeGreaterThan(0);
    for (const file of declarations) {
      for (const [, from = ''] of readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)) {
        if (from === 'valibot') continue;
        expect(from, `${relative(installed, file)} imports ${from}`).toMatch(/^\.\.?\//);
        const target = resolve(dirname(file), from).replace(/\.js$/, '.d.ts');
        expect(relative(installed, target).startsWith('..'), `${relative(installed, file)} points outside: ${from}`).toBe(false);
        expect(existsSync(target), `${relative(installed, file)} imports a missing ${from}`).toBe(true);
      }
    }
  });

  it('type-checks and runs a five-line program against the local gateway, and refuses a wrong one', async () => {
    const name = `Dog ${Date.now()}`;
    writeFileSync(
      join(consumer, 'main.ts'),
      `import { PetStoreClient } from '@petstore/client';
const api = new PetStoreClient({ baseUrl: '${url()}', apiKey: '${customer().apiKey}' });
const dog = await api.createCategory({ name: '${name}', description: 'Domestic dogs' });
const all = await api.listCategories();
console.log(JSON.stringify({ name: dog.name, listed: all.some((c) => c.id === dog.id), remaining: api.rateLimit.minute?.remaining }));
`,
    );
    writeFileSync(
      join(consumer, 'wrong.ts'),
      `import type { Category, ErrorCode } from '@petstore/client';
const category: Category = { id: '1', name: 'Dog' };
const code: ErrorCode = 'NO_SUCH_CODE';
export { category, code };
`,
    );
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
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['main.ts', 'wrong.ts'] }));
    // The TypeScript that builds the declarations (7) and the one most projects still use (5.9, as typescript-api).
    for (const typescript of ['typescript', 'typescript-api']) {
      let errors = '';
      try {
        execFileSync(process.execPath, [join(ROOT, 'node_modules', typescript, 'bin/tsc'), '-p', '.'], {
          cwd: consumer,
          encoding: 'utf8',
          stdio: 'pipe',
        });
      } catch (error) {
        // execFileSync's error carries the child's output: tsc writes its diagnostics to stdout.
        errors = String(error instanceof Error && 'stdout' in error ? error.stdout : error);
      }
      expect(errors, typescript).not.toMatch(/main\.ts/);
      expect(errors, typescript).toMatch(/wrong\.ts.*Type 'string' is not assignable to type 'number'/);
      expect(errors, typescript).toMatch(/wrong\.ts.*"NO_SUCH_CODE"/);
    }

    // Node.js runs the checked file itself, its types stripped; not synchronously, as the gateway runs in this process.
    const { stdout } = await promisify(execFile)(process.execPath, ['main.ts'], { cwd: consumer, encoding: 'utf8' });
    const result = JSON.parse(stdout);
    expect(result).toMatchObject({ name, listed: true });
    expect(result.remaining).toBeTypeOf('number');
  }, 120_000);
});

describe("the client README's example", () => {
  it('runs as written with tsx in an ES module project, right after the README’s curl calls, and again', async () => {
    const readme = readFileSync(join(CLIENT, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map(([, code]) => code ?? '');
    expect(blocks).toHaveLength(1);
    writeFileSync(join(consumer, 'index.ts'), blocks[0] ?? '');
    // The README's curl call has made "Dog" for this customer.
    const curl = await fetch(`${url()}/categories`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${customer().apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Dog', description: 'Domestic dogs' }),
    });
    expect(curl.status).toBe(201);
    const run = () =>
      promisify(execFile)(join(ROOT, 'node_modules/.bin/tsx'), ['index.ts'], {
        cwd: consumer,
        encoding: 'utf8',
        env: { ...npmEnv(), PETSTORE_URL: url(), PETSTORE_KEY: customer().apiKey },
      });
    const first = await run();
    expect(first.stdout).toMatch(/^created Cat as category \d+\n.*Dog.*Cat.* - requests left this minute: \d+\n$/);
    const second = await run();
    expect(second.stdout).toMatch(/^Cat exists already\n/);
  }, 120_000);
});

/**
 * The local loop through the npm process itself, on ports of its own: one line per request, the reference page, the
 * CLI finding it by DATA_DIR, a taken port in one line, edits served without a restart with the data kept, and
 * SIGTERM, SIGHUP or the end of its parent leaving no process and no listener behind.
 */
import { execFile, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatRequestLine } from '../../infra/local/request-line.js';
import { runningStartFile } from '../../lib/cli/running-start.js';
import { resolveTarget } from '../../lib/cli/targets.js';
import { alive, type NpmStart, npmStart, portOpen } from '../support/npm-start.js';
import { runPort } from '../support/ports.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dirs: string[] = [];
const tempDir = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `petstore-${name}-`));
  dirs.push(dir);
  return dir;
};
const started: NpmStart[] = [];
afterAll(() => {
  // Whatever a failed test left running.
  for (const run of started) for (const pid of [run.child.pid ?? -1, ...run.descendants]) if (alive(pid)) process.kill(pid, 'SIGKILL');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const demoKey = (run: NpmStart) => /Bearer (pet_live_\w+)/.exec(run.output())?.[1] ?? '';
const post = (run: NpmStart, key: string, name: string) =>
  fetch(`${run.production}/categories`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name }),
  });

const LineSchema = v.object({
  time: v.string(),
  method: v.string(),
  path: v.string(),
  status: v.number(),
  ms: v.number(),
  requestId: v.string(),
  customerId: v.nullable(v.string()),
});
function requestLines(output: string) {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{"time"'))
    .map((line) => v.parse(LineSchema, JSON.parse(line)));
}

/**
 * The CLI as a process: `npm run petstore` where the npm path is what is tested, otherwise its bin under tsx, as npm
 * runs it. Not spawnSync, which would stall this process's keep-alive sockets past the gateway's timeout.
 */
async function cli(args: string[], env: Record<string, string>, via: 'npm' | 'node' = 'node') {
  const [command, prefix] =
    via === 'npm' ? ['npm', ['run', '--silent', 'petstore', '--']] : [process.execPath, ['--import', 'tsx', 'lib/cli/bin.ts']];
  const run = promisify(execFile)(command, [...prefix, ...args], {
    cwd: ROOT,
    env: { ...process.env, DYNAMODB_ENDPOINT: '', DYNAMODB_PORT: '', PETSTORE_TABLE_PREFIX: 'petstore-', STAGE: '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return run.then(
    ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => ({
      status: error.code ?? 1,
      stdout: error.stdout ?? '',
      stderr: error.stderr ?? '',
    }),
  );
}

/** Signals the npm process (or kills its parent) and checks nothing it started is left: no process, no listener. */
async function expectAllStopped(run: NpmStart, started = 5) {
  expect(run.descendants.length).toBeGreaterThanOrEqual(started); // sh, tsx, start.ts, Java (unless given one), two gateways
  await vi.waitFor(
    async () => {
      expect(run.descendants.filter(alive)).toEqual([]);
      for (const port of run.ports) expect(await portOpen(port)).toBe(false);
    },
    { timeout: 30_000, interval: 250 },
  );
  expect(existsSync(runningStartFile(run.env.DATA_DIR ?? ''))).toBe(false);
}

describe('npm start, run through npm on ports of its own', () => {
  let run: NpmStart;
  beforeAll(async () => {
    run = await npmStart({ DATA_DIR: tempDir('loop') });
    started.push(run);
  }, 150_000);

  it('prints each environment reference page, which answers at /docs, /docs/ and HEAD /docs', async () => {
    const origin = new URL(run.production).origin;
    expect(run.output()).toContain(`reference: ${origin}/docs`);
    const page = await (await fetch(`${origin}/docs`)).text();
    const slash = await fetch(`${origin}/docs/`);
    expect(slash.status).toBe(200);
    expect(await slash.text()).toBe(page);
    const head = await fetch(`${origin}/docs`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await head.text()).toBe('');
  });

  it('writes one JSON line per request when its output is not a terminal: a create, a 409, a 429 and the gateway’s own answers', async () => {
    const key = demoKey(run);
    const created = await post(run, key, 'Dog');
    const conflict = await post(run, key, 'Dog');
    const unknown = await fetch(`${run.production}/nothing-here`);
    expect([created.status, conflict.status, unknown.status]).toEqual([201, 409, 404]);
    // A free customer's 61st request in a minute is refused.
    expect((await cli(['customers', 'set-plan', 'lines', 'free'], { DATA_DIR: run.env.DATA_DIR ?? '' })).status).toBe(0);
    const made = await cli(['keys', 'create', 'lines'], { DATA_DIR: run.env.DATA_DIR ?? '' });
    const freeKey = /pet_live_\w+/.exec(made.stdout)?.[0] ?? '';
    // Ten at a time, up to 130: should the burst straddle a UTC minute's end, one of the two minutes still gets 61 or
    // more (once, 100 answers were all 200, the count having started again at the minute's end).
    const statuses: number[] = [];
    let refused: Response | undefined;
    for (let batch = 0; batch < 13 && !refused; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, async () => {
          const answer = await fetch(`${run.production}/categories`, { headers: { Authorization: `Bearer ${freeKey}` } });
          await answer.arrayBuffer();
          return answer;
        }),
      );
      statuses.push(...answers.map((answer) => answer.status));
      refused = answers.find((answer) => answer.status === 429);
    }
    expect(refused?.status, `statuses: ${statuses.join(' ')}; key from the CLI: ${made.stdout.slice(0, 20)}`).toBe(429);

    // A line is written once its answer is sent: wait for each answer's own line.
    const line = (answer: Response) => requestLines(run.output()).find((l) => l.requestId === answer.headers.get('x-request-id'));
    await vi.waitFor(() => expect([created, conflict, unknown, refused].every((answer) => answer && line(answer))).toBe(true), {
      timeout: 10_000,
    });
    expect(line(created)).toMatchObject({ method: 'POST', path: '/v1/categories', status: 201, customerId: 'demo' });
    expect(line(conflict)).toMatchObject({ method: 'POST', path: '/v1/categories', status: 409, customerId: 'demo' });
    expect(line(unknown)).toMatchObject({ method: 'GET', path: '/v1/nothing-here', status: 404, customerId: null });
    expect(refused && line(refused)).toMatchObject({ method: 'GET', status: 429, customerId: 'lines' });
    // One line per request and nothing else: no "key accepted" line for each call.
    expect(run.output()).not.toContain('key accepted');
  }, 120_000);

  it('is found by the CLI through its DATA_DIR, with no port variable set', async () => {
    const shown = await cli(['customers', 'show', 'demo'], { DATA_DIR: run.env.DATA_DIR ?? '' }, 'npm');
    expect(shown.stderr).toBe('');
    expect(shown.stdout).toContain('npm start demo');
  }, 60_000);

  it('on its DynamoDB Local, another start writes text lines when REQUEST_LOG=text, and stops everything when the npm process gets SIGHUP', async () => {
    // On the DynamoDB Local of this describe's run, whose demo key it revokes (no test after it uses that key): one JVM
    // start fewer. Not the suite's shared one: npm start's tables take no prefix, and there another file's npm start
    // (npm-start.test.ts) once revoked this run's demo key between its start and its first request.
    const hup = await npmStart({
      DATA_DIR: tempDir('hup'),
      REQUEST_LOG: 'text',
      DYNAMODB_ENDPOINT: `http://127.0.0.1:${run.env.DYNAMODB_PORT}`,
    });
    started.push(hup);
    const answer = await fetch(`${hup.production}/categories`, { headers: { Authorization: `Bearer ${demoKey(hup)}` } });
    expect(answer.status).toBe(200);
    const id = answer.headers.get('x-request-id') ?? '';
    await vi.waitFor(
      () => expect(hup.output()).toMatch(new RegExp(`\\d\\d:\\d\\d:\\d\\d\\.\\d{3} GET +/v1/categories 200 \\d+ ms ${id} demo\\n`)),
      { timeout: 10_000 },
    );
    expect(hup.output()).not.toContain('DynamoDB Local:');
    hup.child.kill('SIGHUP');
    await expectAllStopped(hup, 4);
  }, 150_000);

  it('says in one line that a port is taken, and starts nothing', () => {
    const second = spawnSync('npm', ['start', '--silent'], {
      cwd: ROOT,
      env: { ...process.env, ...run.env, DATA_DIR: tempDir('second'), DYNAMODB_ENDPOINT: '', STAGING_PORT: '0', DYNAMODB_PORT: '0' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(second.status).toBe(1);
    expect(second.stderr.trim().split('\n')).toEqual([
      `npm start: port ${run.env.PORT} on 127.0.0.1 is already in use: stop what listens there, or set PORT to a free port`,
    ]);
    expect(second.stdout).toBe('');
  }, 60_000);

  it('stops everything when the npm process gets SIGTERM', async () => {
    expect(existsSync(runningStartFile(run.env.DATA_DIR ?? ''))).toBe(true);
    run.child.kill('SIGTERM');
    await expectAllStopped(run);
  }, 60_000);
});

describe('npm start reloads', () => {
  it('serves an edit under lib/ without a restart, its tables and DynamoDB Local kept; stops everything when the process that started npm is killed', async () => {
    // A copy of the tree, so that the test edits a real source file without touching the repository's.
    const copy = tempDir('reload');
    for (const entry of ['functions', 'lib', 'infra', 'package.json', 'tsconfig.json', 'cdk.json']) {
      cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
    }
    symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
    // Started by a parent process, killed at the end: one start serves both tests.
    const run = await npmStart({ DATA_DIR: join(copy, '.data') }, { cwd: copy, viaParent: true });
    started.push(run);
    const key = demoKey(run);
    expect((await post(run, key, 'Dog')).status).toBe(201);
    const before = await (await post(run, key, 'Dog')).json();
    expect(before).toMatchObject({ code: 'CATEGORY_EXISTS' });
    const java = run.descendants.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('java'));

    const file = join(copy, 'lib/http/to-http-error.ts');
    const source = readFileSync(file, 'utf8');
    const edited = source.replace(
      'new HttpError(domain.code, error.message, domain.headers)',
      "new HttpError(domain.code, 'edited: ' + error.message, domain.headers)",
    );
    expect(edited).not.toBe(source);
    writeFileSync(file, edited);

    await vi.waitFor(
      async () => {
        const after = await (await post(run, key, 'Dog')).json();
        expect(after).toMatchObject({ code: 'CATEGORY_EXISTS', message: expect.stringMatching(/^edited: /) });
      },
      { timeout: 60_000, interval: 250 },
    );
    // Said once both gateways are up again: production may answer while staging still starts.
    await vi.waitFor(() => expect(run.output()).toMatch(/reloaded in [\d.]+ s: lib\/http\/to-http-error\.ts changed/), {
      timeout: 60_000,
      interval: 250,
    });
    // The same DynamoDB Local, started once, and the demo key of the start still valid: nothing was restarted but
    // the gateways.
    expect(java).toHaveLength(1);
    expect(java.every(alive)).toBe(true);
    expect(run.output().match(/DynamoDB Local:/g)).toHaveLength(1);
    run.child.kill('SIGKILL');
    await expectAllStopped(run);
  }, 200_000);
});

describe('the CLI without a running npm start', () => {
  it('says which variables point it at one', async () => {
    const port = await runPort();
    const viaPort = await cli(['customers', 'show', 'demo'], { DYNAMODB_PORT: String(port) });
    expect(viaPort.status).toBe(1);
    expect(viaPort.stderr).toContain(`cannot reach local DynamoDB at http://127.0.0.1:${port} (from DYNAMODB_PORT)`);
    expect(viaPort.stderr).toMatch(/DYNAMODB_ENDPOINT or DYNAMODB_PORT.*DATA_DIR/);
    vi.stubEnv('DYNAMODB_ENDPOINT', '');
    vi.stubEnv('DYNAMODB_PORT', '');
    vi.stubEnv('DATA_DIR', tempDir('none'));
    const target = await resolveTarget('production', false);
    target.client.destroy();
    vi.unstubAllEnvs();
    expect(target.unreachableHint).toMatch(/no npm start runs with DATA_DIR .*set DATA_DIR.*DYNAMODB_ENDPOINT \/ DYNAMODB_PORT/);
  }, 60_000);
});

describe('the line per request', () => {
  it('is readable text with control characters escaped, or one JSON object', () => {
    const line = { method: 'GET', path: '/v1/x\u001b[31m', status: 200, ms: 3, requestId: 'r-1', customerId: undefined };
    const at = new Date('2026-01-02T03:04:05.678Z');
    expect(formatRequestLine(line, 'text', at)).toBe('03:04:05.678 GET    /v1/x\\x1b[31m 200 3 ms r-1 -');
    expect(JSON.parse(formatRequestLine(line, 'json', at))).toEqual({ ...line, time: at.toISOString(), customerId: null });
  });
});

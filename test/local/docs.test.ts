/**
 * The API reference of the local gateway, through serve.ts as `npm start` runs it: /v1/openapi.json and /docs are
 * public, the page's scripts come from the installed swagger-ui-dist (no CDN), and in headless Chromium it shows
 * every operation. The screenshot is saved to test/artifacts/docs.png.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_VERSION } from '../../lib/openapi/document.js';
import { ROUTES } from '../../lib/routes.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
/** CI installs Chromium (.ci/run): there a missing browser is a failure, not a reason to skip. */
const inCi = Boolean(process.env.CI);
if (!hasChromium && !inCi) {
  console.warn(`Skipping the API reference browser check: ${CHROMIUM} is not installed (Debian: apt-get install chromium).`);
}
const SCREENSHOT = fileURLToPath(new URL('../artifacts/docs.png', import.meta.url));

let child: ChildProcess | undefined;
let origin = '';

beforeAll(async () => {
  child = fork(fileURLToPath(new URL('../../infra/local/serve.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child?.once('message', (m: { ready: boolean; url?: string; message?: string }) =>
      m.ready && m.url ? resolve(m.url) : reject(new Error(m.message)),
    );
    child?.once('exit', (code) => reject(new Error(`serve.ts exited with ${code}`)));
  });
  origin = new URL(url).origin;
});

afterAll(() => {
  child?.kill('SIGTERM');
});

describe('GET /v1/openapi.json on the local gateway', () => {
  it('answers without an API key with the committed OpenAPI document, its own server listed first', async () => {
    const response = await fetch(`${origin}/v1/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const served = v.parse(v.looseObject({ servers: v.array(v.looseObject({ url: v.string() })) }), await response.json());
    const committed: unknown = JSON.parse(readFileSync(new URL('../../openapi.json', import.meta.url), 'utf8'));
    // Served on a port of its own (PORT=0), so "Try it out" must call this server, not localhost:3000.
    expect(served.servers[0]).toMatchObject({ url: `${origin}/v1`, description: 'This server (production)' });
    expect({ ...served, servers: served.servers.slice(1) }).toEqual(committed);
  });
});

describe('GET /docs on the local gateway', () => {
  it('is an HTML page whose scripts and styles come from the gateway itself, not a CDN', async () => {
    const response = await fetch(`${origin}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].flatMap(([, src]) => (src ? [src] : []));
    expect(sources).toEqual(['/docs/favicon-32x32.png', '/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js']);
    for (const source of sources) expect((await fetch(`${origin}${source}`)).status, source).toBe(200);
    expect((await fetch(`${origin}/docs/swagger-ui-bundle.js`)).headers.get('content-type')).toMatch(/javascript/);
  });

  it('renders every operation in headless Chromium, loading nothing from outside', async (context) => {
    if (!hasChromium) {
      expect(inCi, `${CHROMIUM} is missing on CI: .ci/run installs Debian's chromium`).toBe(false);
      context.skip();
    }
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const outside: string[] = [];
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(origin) || url.startsWith('data:')) return route.continue();
        outside.push(url);
        return route.abort();
      });
      await page.goto(`${origin}/docs`);
      await page.waitForSelector('.opblock', { timeout: 20_000 });

      const operations = await page.$$eval('.opblock', (blocks) =>
        blocks.map((b) => ({
          method: b.querySelector('.opblock-summary-method')?.textContent?.trim(),
          path: b.querySelector('[data-path]')?.getAttribute('data-path'),
          deprecated: b.classList.contains('opblock-deprecated'),
        })),
      );
      expect(operations).toHaveLength(ROUTES.length);
      for (const route of ROUTES) {
        expect(operations).toContainEqual({ method: route.method, path: route.path, deprecated: route.deprecation !== undefined });
      }
      await expect(page.locator('.info .title').textContent()).resolves.toContain('Pet Store API');
      await expect(page.locator('.info .title').textContent()).resolves.toContain(API_VERSION);

      mkdirSync(fileURLToPath(new URL('../artifacts/', import.meta.url)), { recursive: true });
      await page.screenshot({ path: SCREENSHOT, fullPage: true });
      expect(outside).toEqual([]);
      expect(pageErrors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000); // 12 s in a full run on 2 cores: Chromium's start and render
});

/**
 * The end-to-end load's A/A control: load.ts's measurement with the gateway on both sides, so the ratio it prints is
 * the noise of a run alone. `npx tsx test/bench/load-aa.ts [runs] [seconds]` (defaults 3 and 30, as the bench).
 */
import { benchEnvironment } from './bench-environment.js';

const runs = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 30);
const { dynamoLocal, env } = await benchEnvironment('loadaa-');
const { addCategories, LISTED_CATEGORIES, loadHandlers } = await import('./work.js');
const { endToEnd, loadApiKey } = await import('./load.js');
await addCategories(await loadHandlers(), LISTED_CATEGORIES);
try {
  for (let run = 1; run <= runs; run++) {
    const [a, b] = await endToEnd(env, loadApiKey, seconds, 8, { script: '../../infra/local/serve.ts', name: 'local gateway, again' });
    if (!a || !b || a.non2xx + a.errors + b.non2xx + b.errors > 0) throw new Error('load-aa: a slice had non-2xx answers or errors');
    console.log(
      `run ${run}: first ${a.requestsPerSecond.toFixed(0)}, second ${b.requestsPerSecond.toFixed(0)} requests a second, ratio ${(a.requestsPerSecond / b.requestsPerSecond).toFixed(3)}`,
    );
    console.log(`  slices: ${a.slices} | ${b.slices}`);
  }
} finally {
  await dynamoLocal.stop();
}
process.exit(0);

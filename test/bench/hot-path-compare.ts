/**
 * Runs test/bench/hot-path.ts on two trees in turn, several rounds, against one DynamoDB Local, and prints each
 * figure's median per tree: `npx tsx test/bench/hot-path-compare.ts <treeA> <treeB> [rounds] [invocations]`.
 * Taking the trees in turn lets a shared machine's drift hit both alike (docs/performance.md).
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { startDynamoLocal } from '../../infra/local/dynamodb-local.js';
import { percentile } from './dynamo-meter.js';

const [a, b] = [resolve(process.argv[2] ?? '.'), resolve(process.argv[3] ?? '.')];
const rounds = Number(process.argv[4] ?? 5);
const invocations = process.argv[5] ?? '1000';
const dynamoLocal = await startDynamoLocal();
type Row = { operation: string; statuses: string } & Record<string, number>;
const seen = new Map<string, number[]>();
try {
  for (let round = 0; round < rounds; round++) {
    for (const [tree, name] of round % 2
      ? [
          [b, 'B'],
          [a, 'A'],
        ]
      : [
          [a, 'A'],
          [b, 'B'],
        ]) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', 'test/bench/hot-path.ts', String(tree), invocations], {
        env: { ...process.env, HOT_PATH_ENDPOINT: dynamoLocal.endpoint },
        encoding: 'utf8',
      });
      const { rows } = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as { rows: Row[] };
      for (const row of rows) {
        if (row.statuses !== undefined && Object.keys(JSON.parse(row.statuses)).some((s) => s !== '201' && s !== '200' && s !== '501'))
          console.error(`${name} ${row.operation}: ${row.statuses}`);
        for (const [figure, value] of Object.entries(row)) {
          if (typeof value !== 'number') continue;
          const key = `${row.operation}\t${figure}\t${name}`;
          seen.set(key, [...(seen.get(key) ?? []), value]);
        }
      }
      console.error(
        `round ${round + 1} ${name}: ${rows.map((r) => `${r.operation} ${r.overheadMedianUs}µs/${r.userUsPerCall}µs`).join(', ')}`,
      );
    }
  }
} finally {
  await dynamoLocal.stop();
}
console.log(`A = ${a}\nB = ${b}\noperation\tfigure\tA median\tB median\tA runs\tB runs`);
for (const key of seen.keys()) {
  if (!key.endsWith('\tA')) continue;
  const [operation, figure] = key.split('\t');
  const [ra, rb] = [seen.get(key) ?? [], seen.get(`${operation}\t${figure}\tB`) ?? []];
  console.log([operation, figure, percentile(ra, 50), percentile(rb, 50), ra.join(','), rb.join(',')].join('\t'));
}

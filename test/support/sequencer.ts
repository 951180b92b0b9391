/**
 * The order test files start in: the slowest first (measured, docs/contributing.md "The slowest files"), so that the
 * longest file never starts last and the workers end together; then the rest as vitest orders them (by its cache of
 * durations, or by size where it has none, as in CI).
 */
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Slowest first: about 5 s or more each on a quiet 2-core machine. */
const SLOWEST = [
  'test/local/npm-start-loop.test.ts',
  // The run's `npm run synth` (cli-synth.ts): early, so that bundles.node24, which reads it, seldom waits.
  'test/infra/synth.cli.test.ts',
  'test/reliability/any-body.test.ts',
  'test/local/npm-start.test.ts',
  'test/rate-limit/unban-instances.http.test.ts',
  'test/structure/check.test.ts',
  'test/cli/petstore-cli.test.ts',
  'test/rate-limit/limits.test.ts',
  'test/client/package-export.test.ts',
  'test/cli/aws-target.test.ts',
  'test/rate-limit/shards.test.ts',
  'test/local/docs.test.ts',
  'test/reliability/fuzz.test.ts',
  'test/reliability/hung-dynamodb.test.ts',
  'test/categories/allowance.test.ts',
  'test/reliability/revocation-cache-ttl.test.ts',
  'test/bundles/bundles.node24.test.ts',
];

export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = SLOWEST.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return index === -1 ? SLOWEST.length : index;
    };
    const rest = await super.sort(files.filter((spec) => rank(spec) === SLOWEST.length));
    return [...files.filter((spec) => rank(spec) < SLOWEST.length).sort((a, b) => rank(a) - rank(b)), ...rest];
  }
}

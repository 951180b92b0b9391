/**
 * The usage history (lib/usage/) and the rate limiter (lib/rate-limit/) depend on each other one way only: the rate
 * limiter writes the history's day counts (the usage sweep, not the limiter, moves finished days), and the
 * history's readers are told which counter items a customer has. Read from the import graph of every module under
 * lib/ (type-only and dynamic imports included), so a path through a third folder counts as well.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript-api';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function files(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const relative = path.posix.join(dir, name);
    return statSync(path.join(ROOT, relative)).isDirectory() ? files(relative) : relative.endsWith('.ts') ? [relative] : [];
  });
}

/** Each module of lib/ and the modules of lib/ it imports (`./x.js` resolves to `./x.ts`). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files('lib')) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const local = importedFiles
      .map((i) => i.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.posix.join(path.posix.dirname(file), name).replace(/\.js$/, '.ts'));
    graph.set(file, local);
  }
  return graph;
}

/** An import path from a module under `from` to one under `to` (the first found), or undefined. */
function pathBetween(graph: Map<string, string[]>, from: string, to: string): string[] | undefined {
  const start = [...graph.keys()].filter((file) => file.startsWith(`${from}/`));
  const cameFrom = new Map<string, string | undefined>(start.map((file) => [file, undefined]));
  const queue = [...start];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (file.startsWith(`${to}/`)) {
      const route = [file];
      for (let step = cameFrom.get(file); step !== undefined; step = cameFrom.get(step)) route.unshift(step);
      return route;
    }
    for (const next of graph.get(file) ?? []) {
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, file);
      queue.push(next);
    }
  }
  return undefined;
}

describe('lib/usage and lib/rate-limit', () => {
  const graph = importGraph();

  it('the import graph is read: lib/usage/history.ts imports its calendar days', () => {
    expect(graph.get('lib/usage/history.ts')).toContain('lib/usage/days.ts');
  });

  it('depend on each other one way only', () => {
    const usageToRateLimit = pathBetween(graph, 'lib/usage', 'lib/rate-limit');
    const rateLimitToUsage = pathBetween(graph, 'lib/rate-limit', 'lib/usage');
    const both = usageToRateLimit !== undefined && rateLimitToUsage !== undefined;
    expect(both, `${usageToRateLimit?.join(' -> ')}\nand ${rateLimitToUsage?.join(' -> ')}`).toBe(false);
  });
});

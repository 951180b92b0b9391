/**
 * Which edits reload `npm start`'s gateways: TypeScript and JSON under functions/, lib/ (but the client) and infra/local/,
 * watched with chokidar (Node's recursive fs.watch on Linux loses a file saved by rename); changes within 100 ms, one reload.
 */
import { join, relative, sep } from 'node:path';
import { watch } from 'chokidar';

const WATCHED = ['functions', 'lib', join('infra', 'local')];
const SOURCE = /\.(ts|mts|json)$/;

export function watchSources(root: string, changed: (files: string[]) => void): { ready: Promise<void>; close(): Promise<void> } {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(
    WATCHED.map((dir) => join(root, dir)),
    {
      ignoreInitial: true,
      ignored: (path, stats) =>
        path.startsWith(join(root, 'lib', 'client') + sep) ||
        path.includes(`${sep}node_modules${sep}`) ||
        (stats?.isFile() === true && !SOURCE.test(path)),
    },
  );
  watcher.on('all', (_event, path) => {
    if (!SOURCE.test(path)) return;
    pending.add(relative(root, path));
    clearTimeout(timer);
    timer = setTimeout(() => {
      const files = [...pending];
      pending = new Set();
      changed(files);
    }, 100);
  });
  return {
    ready: new Promise((resolve) => watcher.once('ready', () => resolve())),
    async close() {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}

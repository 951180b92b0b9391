/**
 * Which edits make `npm start` reload its gateways: TypeScript and JSON under functions/, lib/ (but the client
 * package, which the gateways do not run) and infra/local/. Node's recursive fs.watch (Linux with Node 20 and later,
 * macOS, Windows); changes within 100 ms of each other make one reload.
 */
import { type FSWatcher, watch } from 'node:fs';
import { join, sep } from 'node:path';

const WATCHED = ['functions', 'lib', join('infra', 'local')];
const SOURCE = /\.(ts|mts|json)$/;

export function watchSources(root: string, changed: (files: string[]) => void): { close(): void } {
  let pending = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const watchers: FSWatcher[] = WATCHED.map((dir) =>
    watch(join(root, dir), { recursive: true }, (_event, file) => {
      if (!file || !SOURCE.test(file)) return;
      const path = join(dir, file.toString());
      if (path.startsWith(join('lib', 'client') + sep)) return;
      pending.add(path);
      clearTimeout(timer);
      timer = setTimeout(() => {
        const files = [...pending];
        pending = new Set();
        changed(files);
      }, 100);
    }),
  );
  return {
    close() {
      clearTimeout(timer);
      for (const watcher of watchers) watcher.close();
    },
  };
}

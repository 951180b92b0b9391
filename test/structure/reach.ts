/** The product files (and their lines) a handler's bundle is built from, read from esbuild's metafile. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Reach {
  files: string[];
  lines: number;
}

export async function reachOf(entry: string): Promise<Reach> {
  const { metafile } = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    logLevel: 'silent',
    external: ['@aws-sdk/*', '@smithy/*'],
  });
  const files = Object.keys(metafile.inputs)
    .filter((file) => !file.includes('node_modules/') && /^(lib|functions|infra)\//.test(file))
    .sort();
  const lines = files.reduce((sum, file) => sum + readFileSync(`${ROOT}${file}`, 'utf8').split('\n').length - 1, 0);
  return { files, lines };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const entry of process.argv.slice(2)) {
    const { files, lines } = await reachOf(entry);
    console.log(`${entry}: ${files.length} files, ${lines} lines`);
    if (process.env.LIST) for (const file of files) console.log(`  ${file}`);
  }
}

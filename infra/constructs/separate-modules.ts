/**
 * Modules a function loads from a file of their own rather than from its bundle. A module that only some
 * invocations need (the idempotency utility: only a request with an Idempotency-Key) is imported with
 * `import('./<name>.mjs')`; the function's bundle keeps that import as it is (external), and `<name>.mjs` is
 * bundled by itself with the same options into the same asset, beside index.mjs. A cold start neither reads nor
 * parses it. Bundled into index.mjs instead, a dynamically imported module becomes a lazy initialiser that is not
 * evaluated at load but still parsed, and the builtins it imports statically are loaded (the idempotency utility's
 * JMESPath engine imports node:zlib).
 *
 * The source of such a module is an `.mts` file, so that one specifier names it in the sources (TypeScript, tsx and
 * Vitest resolve `.mjs` to `.mts`) and in the asset. It must import nothing whose state the rest of the function
 * shares: it is bundled with copies of its own of whatever it imports.
 */
import path from 'node:path';

export const SEPARATE_MODULE_EXTENSION = '.mts';

/** A separate module's file in the asset, as the function's code imports it: `./<name>.mjs`. */
export function separateModuleFile(module: string): string {
  if (path.extname(module) !== SEPARATE_MODULE_EXTENSION) {
    throw new Error(`${module}: a separate module is an ${SEPARATE_MODULE_EXTENSION} file`);
  }
  return `./${path.basename(module, SEPARATE_MODULE_EXTENSION)}.mjs`;
}

/** The options of the function's own bundle (api-function.ts) that a separate module is bundled with too. */
export interface BundleOptions {
  target: string;
  mainFields: readonly string[];
  externals: readonly string[];
  /** Import paths esbuild replaces with these files (the builtins' CommonJS views). */
  aliases: Readonly<Record<string, string>>;
}

const quoted = (arg: string) => `'${arg.replaceAll("'", `'\\''`)}'`;

/** The shell command, run after the function's own bundle is built, that bundles `module` into `outputDir`. */
export function separateModuleCommand(module: string, outputDir: string, options: BundleOptions): string {
  return [
    // The project's esbuild, as NodejsFunction runs it for the function's own bundle.
    'npx',
    '--no-install',
    'esbuild',
    module,
    '--bundle',
    `--outfile=${path.join(outputDir, separateModuleFile(module))}`,
    '--platform=node',
    `--target=${options.target}`,
    '--format=esm',
    `--main-fields=${options.mainFields.join(',')}`,
    '--minify',
    '--log-level=warning',
    ...options.externals.map((name) => `--external:${name}`),
    ...Object.entries(options.aliases).map(([name, file]) => `--alias:${name}=${file}`),
  ]
    .map(quoted)
    .join(' ');
}

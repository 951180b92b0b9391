/**
 * Modules a function loads with `import('./<name>.mjs')` from a file of their own, bundled beside index.mjs with the
 * same options, so a cold start neither reads nor parses them. The source is an `.mts` file (TypeScript, tsx and Vitest
 * resolve it from `.mjs`); it shares no state with the function, as it is bundled with copies of what it imports.
 */
import path from 'node:path';

export const SEPARATE_MODULE_EXTENSION = '.mts';

/** A separate module's file in the asset, as the function's code imports it: `./<name>.mjs`. */
export function separateModuleFile(module: string): string {
  if (path.extname(module) !== SEPARATE_MODULE_EXTENSION)
    throw new Error(`${module}: a separate module is an ${SEPARATE_MODULE_EXTENSION} file`);
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
  const args = [
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
  ];
  return args.map(quoted).join(' ');
}

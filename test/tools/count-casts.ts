/**
 * `npm run casts`: counts type assertions (`x as T`, `<T>x`) in product code (lib/, functions/, infra/), leaving out
 * `as const`, which asserts nothing. Reads the syntax tree, so "as" in strings and comments never counts.
 * `npm run casts -- test` counts the tests instead (any folders or files given replace the product's); `--list` prints
 * each.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript-api';

const PRODUCT = ['lib', 'functions', 'infra'];
const given = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const roots = given.length > 0 ? given : PRODUCT;

function files(dir: string): string[] {
  if (statSync(dir).isFile()) return [dir];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'node_modules' ? [] : files(full);
    return /\.m?ts$/.test(full) ? [full] : [];
  });
}

const found: string[] = [];
for (const file of roots.flatMap(files)) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && node.type.getText(source) !== 'const') {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${file}:${line + 1}: ${node.getText(source).replace(/\s+/g, ' ').slice(0, 100)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}
if (process.argv.includes('--list')) for (const line of found) console.log(line);
console.log(`${found.length} type assertions (excluding as const) in ${roots.join(', ')}`);

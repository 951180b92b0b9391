/**
 * What gives the admin's code away in a bundle: the strings its modules hold (update and condition expressions,
 * error messages), read from their syntax trees. A minifier renames identifiers but keeps string contents, so a
 * bundle that carries any of these modules' code carries some of these strings. Identifiers alone (no space, colon,
 * "#", "(" or "=") are left out: a name such as ConditionalCheckFailed is also part of the SDK's own strings.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript-api';

/** The modules only the admin CLI (and `npm start`'s demo key) may use: no function's bundle may carry them. */
export const ADMIN_MODULES = [
  'lib/auth/admin.ts',
  'lib/auth/admin-change.ts',
  'lib/auth/customer-admin.ts',
  'lib/auth/key-admin.ts',
  'lib/rate-limit/lift-ban.ts',
];

const EXPRESSION_LIKE = /[\s:#(=]/;

export function stringsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const specifier = node.parent !== undefined && (ts.isImportDeclaration(node.parent) || ts.isExportDeclaration(node.parent));
    const text =
      (ts.isStringLiteral(node) && !specifier) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)
        ? node.text
        : undefined;
    if (text && text.length >= 12 && EXPRESSION_LIKE.test(text)) found.push(text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export function adminMarkers(): string[] {
  return [...new Set(ADMIN_MODULES.flatMap(stringsOf))];
}

/**
 * The usage sweep's modules: moving finished days to the usage history (a TransactWriteItems) is the sweep
 * function's job alone; no request, so no operation's bundle, carries it.
 */
export const HISTORY_MOVE_MODULES = ['lib/usage/day-move.ts', 'lib/usage/day-sweep.ts', 'lib/usage/history-item.ts'];

export function historyMoveMarkers(): string[] {
  return [...new Set(HISTORY_MOVE_MODULES.flatMap(stringsOf))];
}

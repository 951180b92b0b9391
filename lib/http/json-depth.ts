/**
 * How deeply a JSON text nests arrays and objects, found by one pass over the text with a counter: no recursion and
 * no parsing, so that neither this check nor JSON.parse after it ever meets a pathological depth. (V8's JSON.parse
 * itself is iterative, but a reviver, such as the body parser's `__proto__` guard, is called by a recursive walk
 * that overflows the stack a few thousand levels down, and so would any recursive walk over the value.)
 */

/** Arrays and objects inside each other that a request body may hold: `{"name":"Dog"}` is 1 level deep. */
export const MAX_JSON_DEPTH = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }

/** True when `text` opens more than `limit` arrays and objects inside each other. */
/**
 * Brackets inside strings do not count; a backslash escapes the next character of a string. The text need not be
 * valid JSON: a text that opens more than the limit is refused whatever follows, before the parser sees it.
 */
export function nestsDeeperThan(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (OPENERS.has(c)) {
      depth++;
      if (depth > limit) return true;
    } else if (CLOSERS.has(c)) depth--;
  }
  return false;
}

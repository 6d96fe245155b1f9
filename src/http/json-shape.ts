/**
 * Bounds on the shape of a JSON body, checked in one pass over its text before it is parsed
 * (issue 9, item 1: bounded work for any input). What a body at the 1 MiB limit costs most is not
 * its validation but its parsing, when it holds hundreds of thousands of empty objects or unknown
 * keys, or arrays nested half a million deep: the parser builds them all, and the garbage collector
 * then walks them, up to a quarter of a second of the one thread that serves every request (measured
 * on a busy 2-core machine). Refused here, such a body costs one pass over its text. No request of
 * the API comes near either bound (the largest, an order of 20 items, holds about 300 entries,
 * 3 deep), so they refuse nothing real.
 */

/** Arrays and objects nested deeper than this are refused. */
export const MAX_JSON_DEPTH = 32;
/** Array items and object fields a body may hold, counted at every depth. */
export const MAX_JSON_ENTRIES = 10_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const isWhitespace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/**
 * The first bound `text` breaks, as a problem of the body (`must not nest …`), or null. Malformed
 * JSON is not judged here: the parser refuses it next.
 */
export function jsonShapeProblem(text: string): string | null {
  let depth = 0;
  let entries = 0;
  // Just after `{` or `[`: the next token is the container's first entry, unless it closes it.
  let opened = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isWhitespace(code)) continue;
    if (opened) {
      opened = false;
      if (code !== CLOSE_OBJECT && code !== CLOSE_ARRAY) entries += 1;
    }
    if (code === QUOTE) {
      i = endOfString(text, i);
      if (i < 0) return null;
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) return `must not nest arrays and objects more than ${MAX_JSON_DEPTH} deep`;
      opened = true;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      depth -= 1;
    } else if (code === COMMA) {
      entries += 1;
    }
    if (entries > MAX_JSON_ENTRIES) return `must hold at most ${MAX_JSON_ENTRIES} array items and object fields in all`;
  }
  return null;
}

/** The index of the quote that closes the string opened at `start`, or -1 if none does. */
function endOfString(text: string, start: number): number {
  let end = start;
  for (;;) {
    end = text.indexOf('"', end + 1);
    if (end < 0) return -1;
    // Escaped when an odd number of backslashes stands before it.
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return end;
  }
}

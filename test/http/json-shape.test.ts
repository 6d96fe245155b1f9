import { describe, expect, it } from 'vitest';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_ENTRIES } from '../../src/http/json-shape.js';

/** Bounds on a JSON body's shape, checked on its text before it is parsed (issue 9, item 1). */

const TOO_DEEP = `must not nest arrays and objects more than ${MAX_JSON_DEPTH} deep`;
const TOO_MANY = `must hold at most ${MAX_JSON_ENTRIES} array items and object fields in all`;
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** `{"a":[0,0,…]}`: one field and `items` array items. */
const entries = (items: number, item = '0') => `{"a":[${Array.from({ length: items }, () => item).join(',')}]}`;

describe('the shape of a JSON body', () => {
  it('when arrays and objects nest as deep as allowed, then the body passes; one level more, then it is refused', () => {
    expect(jsonShapeProblem(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(jsonShapeProblem(nested(MAX_JSON_DEPTH + 1))).toBe(TOO_DEEP);
    expect(jsonShapeProblem(`{"a":${'{"b":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}}`)).toBe(TOO_DEEP);
  });

  it('when a body holds as many entries as allowed, then it passes; one more, then it is refused', () => {
    expect(jsonShapeProblem(entries(MAX_JSON_ENTRIES - 1))).toBeNull();
    expect(jsonShapeProblem(entries(MAX_JSON_ENTRIES))).toBe(TOO_MANY);
  });

  it('when entries are empty arrays and objects, then each counts once and their insides not at all', () => {
    expect(jsonShapeProblem(entries(MAX_JSON_ENTRIES - 1, '{}'))).toBeNull();
    expect(jsonShapeProblem(entries(MAX_JSON_ENTRIES - 1, '[ ]'))).toBeNull();
    expect(jsonShapeProblem(`{"a":[${Array.from({ length: MAX_JSON_ENTRIES / 2 }, () => '{"b":1}').join(',')}]}`)).toBe(TOO_MANY);
  });

  it('when brackets, commas and escaped quotes are inside strings, then they count for nothing', () => {
    expect(jsonShapeProblem(`{"a":"${'[{,'.repeat(MAX_JSON_ENTRIES)}\\"${nested(MAX_JSON_DEPTH + 1)}"}`)).toBeNull();
  });

  it('when a string ends in an escaped backslash, then what follows it is counted again', () => {
    expect(jsonShapeProblem(`{"a":"x\\\\","b":${nested(MAX_JSON_DEPTH)}}`)).toBe(TOO_DEEP);
  });

  it('when the text is not JSON, then it is left to the parser', () => {
    expect(jsonShapeProblem('{"a":"never closed')).toBeNull();
    expect(jsonShapeProblem(']]]]')).toBeNull();
  });
});

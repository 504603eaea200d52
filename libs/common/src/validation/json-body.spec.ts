import { describe, expect, it } from 'vitest';
import { ServiceException } from '../errors/service.exception';
import { checkJsonBody, nestsDeeperThan, parseJsonBody } from './json-body';

function thrown(run: () => unknown): ServiceException {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceException) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('nestsDeeperThan', () => {
  it.each([
    ['{}', 1, false],
    ['{"a":{}}', 1, true],
    ['[[1],[2,[3]]]', 3, false],
    ['[[1],[2,[3]]]', 2, true],
    // Brackets inside strings, escaped quotes and backslashes are text.
    ['{"a":"[[[[{{{{"}', 1, false],
    ['{"a":"\\"[[[["}', 1, false],
    ['{"a":"\\\\","b":[[]]}', 3, false],
    ['{"a":"\\\\","b":[[]]}', 2, true],
    [`${'['.repeat(100_000)}${']'.repeat(100_000)}`, 32, true],
  ])('%s deeper than %i: %s', (text, max, expected) => {
    expect(nestsDeeperThan(text, max)).toBe(expected);
  });
});

describe('parseJsonBody', () => {
  it('parses a body within the limits', () => {
    expect(parseJsonBody('{"a":[{"b":null}]}', 3)).toEqual({ a: [{ b: null }] });
  });

  it('refuses a body nested too deep before parsing, and text that is not JSON', () => {
    expect(thrown(() => parseJsonBody('[[[[', 3)).codeName).toBe('BODY_TOO_DEEP');
    expect(thrown(() => parseJsonBody('{"a":', 3)).codeName).toBe('MALFORMED_BODY');
    expect(thrown(() => parseJsonBody('', 3)).codeName).toBe('MALFORMED_BODY');
    expect(thrown(() => parseJsonBody('nope', 3, 'The `data` part is not valid JSON.')).message).toBe(
      'The `data` part is not valid JSON.',
    );
  });

  it('names every inherited member name at its path, __proto__ included', () => {
    const error = thrown(() => parseJsonBody('{"__proto__":{},"a":[{"constructor":1},{"ok":{"valueOf":2}}]}', 8));
    expect(error.codeName).toBe('VALIDATION');
    expect(error.details).toEqual({
      ['__proto__']: ['unknown member; no other members are allowed'],
      'a.0.constructor': ['unknown member; no other members are allowed'],
      'a.1.ok.valueOf': ['unknown member; no other members are allowed'],
    });
  });
});

describe('checkJsonBody', () => {
  it('removes null members at every level with nullIsAbsent, and keeps array elements and other bodies', () => {
    const body = { a: null, b: { c: null, d: [null, { e: null, f: 1 }] } };
    expect(checkJsonBody(structuredClone(body), 32, { nullIsAbsent: true })).toEqual({ b: { d: [null, { f: 1 }] } });
    expect(checkJsonBody(structuredClone(body), 32)).toEqual(body);
    expect(parseJsonBody('{"x": null, "y": {"z": null}}', 32, undefined, { nullIsAbsent: true })).toEqual({ y: {} });
    // A null member named after an inherited one is removed before it is judged.
    expect(checkJsonBody({ constructor: null }, 32, { nullIsAbsent: true })).toEqual({});
  });

  it('bounds an already parsed value (a multipart field) without recursion', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(thrown(() => checkJsonBody(deep, 32)).codeName).toBe('BODY_TOO_DEEP');
    expect(checkJsonBody({ a: [1, { b: 'toString' }] }, 3)).toEqual({ a: [1, { b: 'toString' }] });
  });

  it('names at most 20 members, whatever the body holds', () => {
    const many = Array.from({ length: 1000 }, () => ({ toString: 1 }));
    expect(Object.keys(thrown(() => checkJsonBody(many, 4)).details)).toHaveLength(20);
  });
});

import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, ValidateNested, validateSync } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { flattenValidationErrors, VALIDATION_ERROR_OPTIONS } from './validation.pipe';
import { closestName, declaredMembers, editDistance, unknownMemberMessage } from './unknown-member';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['abc', '', 3],
    ['resizng', 'resizing', 1],
    ['widht', 'width', 1], // a swap of neighbours is one edit
    ['colour', 'color', 1],
    ['kitten', 'sitting', 3],
    ['ca', 'abc', 3], // optimal string alignment: no edit of a swapped pair
  ])('%s -> %s: %i', (a, b, expected) => {
    expect(editDistance(a, b)).toBe(expected);
    expect(editDistance(b, a)).toBe(expected);
  });
});

describe('closestName', () => {
  const OPERATIONS = ['restorations', 'background', 'padding', 'resizing', 'adjustments', 'privacy'];
  it.each<[string, readonly string[], string | undefined]>([
    ['resizng', OPERATIONS, 'resizing'],
    ['Resizing', OPERATIONS, 'resizing'], // case is ignored
    ['backgroud', OPERATIONS, 'background'],
    ['adjustment', OPERATIONS, 'adjustments'],
    ['privcy', OPERATIONS, 'privacy'],
    ['widht', ['width', 'height', 'fit'], 'width'],
    ['heigth', ['width', 'height', 'fit'], 'height'],
    ['fix', ['width', 'height', 'fit'], 'fit'], // 1 of 3 letters: a third
    ['pth', ['bucket', 'path', 'prefix'], 'path'],
    ['acces_key', ['access_key', 'secret_access_key'], 'access_key'],
    ['outpaint-by', ['feathering', 'outpaint_by'], 'outpaint_by'],
    // Nothing close: more than a third of the letters differ, or the lengths alone tell.
    ['bogus', OPERATIONS, undefined],
    ['x', ['y', 'width'], undefined],
    ['ab', ['a', 'b'], undefined],
    ['scale', ['width', 'height', 'fit'], undefined],
    ['crop', ['type'], undefined],
    ['resizingresizing', OPERATIONS, undefined],
    ['r'.repeat(100_000), OPERATIONS, undefined],
    ['anything', [], undefined],
  ])('%s among %j: %s', (name, known, expected) => {
    expect(closestName(name, known)).toBe(expected);
  });

  it('prefers the smallest distance, then the earlier name', () => {
    expect(closestName('pathx', ['paths', 'path'])).toBe('paths');
    expect(closestName('pat', ['path', 'pat_', 'paty'])).toBe('path');
  });
});

describe('unknownMemberMessage', () => {
  it('suggests the close name, or says only that no other members are allowed', () => {
    expect(unknownMemberMessage('resizng', ['resizing'])).toBe(
      'unknown member; did you mean "resizing"? No other members are allowed',
    );
    expect(unknownMemberMessage('bogus', ['resizing'])).toBe('unknown member; no other members are allowed');
    expect(unknownMemberMessage('crp', ['type', 'crop'], 'crp is not a member of fit type "crop"')).toBe(
      'crp is not a member of fit type "crop"; did you mean "crop"? No other members are allowed',
    );
  });
});

class Inner {
  @IsString()
  access_key: string;

  @IsOptional()
  @IsString()
  secret_access_key?: string;
}

class Outer {
  @IsInt()
  width: number;

  @ValidateNested()
  @Type(() => Inner)
  credentials: Inner;
}

function flatten(plain: Record<string, unknown>): Record<string, string[]> {
  const errors = validateSync(plainToInstance(Outer, plain), {
    whitelist: true,
    forbidNonWhitelisted: true,
    validationError: VALIDATION_ERROR_OPTIONS,
  });
  return flattenValidationErrors(errors);
}

describe('flattenValidationErrors: unknown members', () => {
  it('reads the known members of each level from its class', () => {
    expect(declaredMembers(Outer)).toEqual(['width', 'credentials']);
    expect(declaredMembers(undefined)).toEqual([]);
    expect(
      flatten({ width: 1, widht: 2, credentials: { access_key: 'a', secret_acess_key: 'b', region: 'x' } }),
    ).toEqual({
      widht: ['unknown member; did you mean "width"? No other members are allowed'],
      'credentials.secret_acess_key': [
        'unknown member; did you mean "secret_access_key"? No other members are allowed',
      ],
      'credentials.region': ['unknown member; no other members are allowed'],
    });
  });

  it('suggests nothing in an object with more than 20 unknown members', () => {
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`widt${i}`, i]));
    const details = flatten({ width: 1, credentials: { access_key: 'a' }, widht: 0, ...many });
    expect(details.widht).toEqual(['unknown member; no other members are allowed']);
  });
});

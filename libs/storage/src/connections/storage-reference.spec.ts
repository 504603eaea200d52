import { describe, expect, it } from 'vitest';
import { parseStorageReference, STORAGE_NAME_PATTERN } from './storage-reference';

describe('parseStorageReference', () => {
  it.each([
    ['storage://shop/images/red.jpg', { name: 'shop', path: 'images/red.jpg', isFolder: false }],
    ['storage://shop/images/', { name: 'shop', path: 'images/', isFolder: true }],
    ['storage://shop/', { name: 'shop', path: '', isFolder: true }],
    ['storage://shop', { name: 'shop', path: '', isFolder: true }],
    ['storage://My Bucket/a%2e%2e/b.png', { name: 'My Bucket', path: 'a%2e%2e/b.png', isFolder: false }],
  ])('parses %s', (value, expected) => {
    expect(parseStorageReference(value)).toEqual(expected);
  });

  it.each([
    ['https://shop/a.jpg', /must start with storage:\/\//],
    ['storage:///a.jpg', /not a valid storage name/],
    ['storage://../a.jpg', /not a valid storage name/],
    ['storage://' + 'x'.repeat(51) + '/a.jpg', /not a valid storage name/],
    ['storage://shop/../secret.jpg', /segments/],
    ['storage://shop/a/../../b.jpg', /segments/],
    ['storage://shop/a/./b.jpg', /segments/],
    ['storage://shop/a//b.jpg', /segments/],
    ['storage://shop/..', /segments/],
    ['storage://shop/a\\..\\b.jpg', /control characters/],
    ['storage://shop/a\u0000.jpg', /control characters/],
  ])('refuses %s', (value, reason) => {
    const parsed = parseStorageReference(value);
    expect(parsed).toHaveProperty('error');
    expect((parsed as { error: string }).error).toMatch(reason);
  });

  it('shares its name rule with storage creation', () => {
    expect(STORAGE_NAME_PATTERN.test('catalogue-2026')).toBe(true);
    expect(STORAGE_NAME_PATTERN.test(' padded')).toBe(false);
    expect(STORAGE_NAME_PATTERN.test('a/b')).toBe(false);
    expect(STORAGE_NAME_PATTERN.test('..')).toBe(false);
    expect(STORAGE_NAME_PATTERN.test('')).toBe(false);
  });
});

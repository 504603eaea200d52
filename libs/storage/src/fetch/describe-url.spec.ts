import { describe, expect, it } from 'vitest';
import { describeUrl } from './describe-url';

describe('describeUrl', () => {
  it.each([
    // Scheme, host and port stay; so do paths made of words, numbers and short names.
    ['https://images.example.com/shoes/red.jpg', 'https://images.example.com/shoes/red.jpg'],
    ['http://127.0.0.1:8080/a/b/c.png', 'http://127.0.0.1:8080/a/b/c.png'],
    ['http://[::1]:81/x', 'http://[::1]:81/x'],
    ['https://example.com', 'https://example.com/'],
    ['https://example.com/product-shot-blue-large.webp', 'https://example.com/product-shot-blue-large.webp'],
    [
      'https://discord.test/api/webhooks/123456789012345678/x',
      'https://discord.test/api/webhooks/123456789012345678/x',
    ],
    ['storage://in/shoes/winter/boot.tiff', 'storage://in/shoes/winter/boot.tiff'],
    // The query (presigned signatures, tokens) and the fragment never appear; a removed query is marked.
    [
      'https://bucket.s3.amazonaws.com/a.jpg?X-Amz-Signature=0123456789abcdef&X-Amz-Credential=AKIA',
      'https://bucket.s3.amazonaws.com/a.jpg?[redacted]',
    ],
    ['https://example.com/a.jpg?token=x#section', 'https://example.com/a.jpg?[redacted]'],
    ['https://example.com/a.jpg#access_token=secret', 'https://example.com/a.jpg'],
    ['https://example.com/?', 'https://example.com/'],
    // User name and password never appear.
    ['https://user:hunter2@example.com/a.png', 'https://example.com/a.png'],
    ['http://token@example.com/', 'http://example.com/'],
    // Segments shaped like tokens (16+ characters mixing letters and digits or cases, or 32+ of anything) go;
    // the last segment keeps its extension.
    [
      'https://hooks.slack.test/services/T0001/B0001/XyZaBcDeFgHiJkLmNoPqRsTu',
      'https://hooks.slack.test/services/T0001/B0001/[redacted]',
    ],
    ['https://hooks.test/catch/SECRETa1b2c3d4e5f6/ping', 'https://hooks.test/catch/[redacted]/ping'],
    ['https://h.test/tmp/0f8e4c2a9b7d6e5f4a3b2c1d0e9f8a7b.webp', 'https://h.test/tmp/[redacted].webp'],
    ['https://h.test/files/3f2504e0-4f89-11d3-9a0c-0305e82c3301/a.png', 'https://h.test/files/[redacted]/a.png'],
    ['https://h.test/j/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 'https://h.test/j/[redacted]'],
    ['https://h.test/' + 'a'.repeat(40), 'https://h.test/[redacted]'],
    ['https://h.test/d/abcdef0123456789abcd.tar.gz', 'https://h.test/d/[redacted].gz'],
    // Opaque URLs (data:, javascript:) keep only their scheme; what is not a URL is not echoed at all.
    ['data:image/png;base64,iVBORw0KGgo=', 'data:[redacted]'],
    ['javascript:alert(1)', 'javascript:[redacted]'],
    ['not a url with a SECRET', '[not a URL]'],
  ])('%s -> %s', (input, expected) => {
    expect(describeUrl(input)).toBe(expected);
    expect(describeUrl(URL.canParse(input) ? new URL(input) : input)).toBe(expected);
  });
});

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '@app/common';
import { CredentialCipher, KEY_FILE_NAME } from './credential-cipher';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'atelier-cipher-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('CredentialCipher', () => {
  const secret = { secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };

  it('round-trips, and the envelope holds neither the secret nor its base64', () => {
    const cipher = new CredentialCipher(loadConfig({ DATA_DIR: dataDir() }));
    const envelope = cipher.encrypt(secret, 'account:1');
    expect(envelope).toMatch(/^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(envelope).not.toContain(secret.secret_access_key);
    expect(envelope).not.toContain(Buffer.from(JSON.stringify(secret)).toString('base64url').slice(0, 16));
    expect(cipher.decrypt(envelope, 'account:1')).toEqual(secret);
    // A fresh IV each time: the same secret never gives the same envelope.
    expect(cipher.encrypt(secret, 'account:1')).not.toBe(envelope);
  });

  it('refuses another owner, and a tampered ciphertext', () => {
    const cipher = new CredentialCipher(loadConfig({ DATA_DIR: dataDir() }));
    const envelope = cipher.encrypt(secret, 'account:1');
    expect(() => cipher.decrypt(envelope, 'account:2')).toThrow();
    const parts = envelope.split('.');
    const body = Buffer.from(parts[4], 'base64url');
    body[0] ^= 1;
    parts[4] = body.toString('base64url');
    expect(() => cipher.decrypt(parts.join('.'), 'account:1')).toThrow();
  });

  it('creates a 0600 key file in DATA_DIR once and reuses it', () => {
    const dir = dataDir();
    const first = new CredentialCipher(loadConfig({ DATA_DIR: dir }));
    const file = join(dir, KEY_FILE_NAME);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')).toHaveLength(32);
    const envelope = first.encrypt(secret, 'a');
    expect(new CredentialCipher(loadConfig({ DATA_DIR: dir })).decrypt(envelope, 'a')).toEqual(secret);
  });

  it('rotates: the new key decrypts old envelopes given the previous key, and marks them stale', () => {
    const oldKey = randomBytes(32).toString('hex');
    const newKey = randomBytes(32).toString('base64');
    const before = new CredentialCipher(loadConfig({ DATA_DIR: dataDir(), STORAGE_ENCRYPTION_KEY: oldKey }));
    const envelope = before.encrypt(secret, 'a');
    const withoutOld = new CredentialCipher(loadConfig({ DATA_DIR: dataDir(), STORAGE_ENCRYPTION_KEY: newKey }));
    expect(() => withoutOld.decrypt(envelope, 'a')).toThrow(/STORAGE_ENCRYPTION_PREVIOUS_KEYS/);
    const after = new CredentialCipher(
      loadConfig({ DATA_DIR: dataDir(), STORAGE_ENCRYPTION_KEY: newKey, STORAGE_ENCRYPTION_PREVIOUS_KEYS: oldKey }),
    );
    expect(after.isStale(envelope)).toBe(true);
    expect(after.decrypt(envelope, 'a')).toEqual(secret);
    expect(after.isStale(after.encrypt(secret, 'a'))).toBe(false);
  });
});

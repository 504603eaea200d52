import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '@app/common';
import { v1Envelope } from '../../../../test/fixtures/v1-envelope';
import { CredentialCipher, KEY_FILE_NAME } from './credential-cipher';
import { legacyStorageSecretBinding, storageSecretBinding } from './secret-binding';

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
    expect(envelope).toMatch(/^v2\.[0-9a-f]{8}\.[\w-]+\.[\w-]+\.[\w-]+$/);
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

  it('refuses an envelope whose tag was truncated (GCM would check only the bytes given)', () => {
    const cipher = new CredentialCipher(loadConfig({ DATA_DIR: dataDir() }));
    const parts = cipher.encrypt(secret, 'a').split('.');
    for (const length of [4, 8, 12, 15]) {
      const truncated = [...parts];
      truncated[3] = Buffer.from(parts[3], 'base64url').subarray(0, length).toString('base64url');
      expect(() => cipher.decrypt(truncated.join('.'), 'a'), `${length}-byte tag`).toThrow();
    }
  });

  it("binds a storage's secret to its row: another storage of the same account cannot decrypt it", () => {
    const cipher = new CredentialCipher(loadConfig({ DATA_DIR: dataDir() }));
    const envelope = cipher.encrypt(secret, storageSecretBinding(1, 7));
    expect(cipher.decrypt(envelope, storageSecretBinding(1, 7))).toEqual(secret);
    expect(() => cipher.decrypt(envelope, storageSecretBinding(1, 8))).toThrow();
    expect(() => cipher.decrypt(envelope, storageSecretBinding(2, 7))).toThrow();
    // Nor does it pass for a v1 envelope of the account by a changed version label.
    const relabelled = `v1${envelope.slice(2)}`;
    expect(() => cipher.decrypt(relabelled, storageSecretBinding(1, 7), legacyStorageSecretBinding(1))).toThrow();
  });

  it('reads a v1 envelope (bound to the account only), marks it stale, and re-encrypts it as v2', () => {
    const key = randomBytes(32);
    const cipher = new CredentialCipher(
      loadConfig({ DATA_DIR: dataDir(), STORAGE_ENCRYPTION_KEY: key.toString('hex') }),
    );
    const v1 = v1Envelope(key, secret, legacyStorageSecretBinding(3));
    expect(cipher.isStale(v1)).toBe(true);
    expect(() => cipher.decrypt(v1, storageSecretBinding(3, 9))).toThrow();
    const read = cipher.decrypt(v1, storageSecretBinding(3, 9), legacyStorageSecretBinding(3));
    expect(read).toEqual(secret);
    const upgraded = cipher.encrypt(read, storageSecretBinding(3, 9));
    expect(upgraded).toMatch(/^v2\./);
    expect(cipher.isStale(upgraded)).toBe(false);
    expect(cipher.decrypt(upgraded, storageSecretBinding(3, 9))).toEqual(secret);
  });

  it('creates DATA_DIR with mode 0700', () => {
    const dir = join(dataDir(), 'fresh', 'data');
    new CredentialCipher(loadConfig({ DATA_DIR: dir }));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a key file that group or others may read or write, naming it and the chmod to run', () => {
    const dir = dataDir();
    new CredentialCipher(loadConfig({ DATA_DIR: dir }));
    const file = join(dir, KEY_FILE_NAME);
    for (const mode of [0o640, 0o604, 0o620, 0o666]) {
      chmodSync(file, mode);
      const start = () => new CredentialCipher(loadConfig({ DATA_DIR: dir }));
      expect(start, mode.toString(8)).toThrow(ConfigError);
      expect(start, mode.toString(8)).toThrow(`chmod 600 ${file}`);
    }
    chmodSync(file, 0o400);
    expect(() => new CredentialCipher(loadConfig({ DATA_DIR: dir }))).not.toThrow();
  });
});

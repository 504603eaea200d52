import { createHash, randomBytes } from 'node:crypto';

/** Every key starts with this, so leaked keys are recognisable (and greppable by scanners). */
export const KEY_PREFIX = 'sk_';
/** 32 random bytes: 256 bits of entropy. */
const KEY_BYTES = 32;

export interface NewKeySecret {
  /** The key, shown once. */
  secret: string;
  /** Hex SHA-256: the only form stored. */
  hash: string;
  /** Displayable start of the key. */
  prefix: string;
}

/**
 * A fresh key. SHA-256 rather than a slow password hash: the key has 256 bits of entropy, so a
 * stolen hash cannot be brute-forced, and verification stays one indexed lookup per request.
 */
export function generateKey(): NewKeySecret {
  const secret = KEY_PREFIX + randomBytes(KEY_BYTES).toString('base64url');
  return { secret, hash: hashKey(secret), prefix: secret.slice(0, KEY_PREFIX.length + 8) };
}

export function hashKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** `Authorization: Bearer <key>`, scheme case-insensitive; undefined when absent or malformed. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  const match = value?.match(/^\s*bearer\s+(\S+)\s*$/i);
  return match?.[1];
}

/*
 * The associated data of every secret the service encrypts (CredentialCipher), in one place so that no two kinds
 * of secret can share one: an envelope decrypts only for the row it was written for, so someone with write access
 * to the database cannot move a secret to another row, account or purpose.
 */

/** A storage's credentials (envelope v2): its account and its own row. */
export function storageSecretBinding(accountId: number, storageId: number): string {
  return `storage-secret:account:${accountId}:storage:${storageId}`;
}

/** What envelope v1 bound a storage's credentials to: the account only. Read, never written. */
export function legacyStorageSecretBinding(accountId: number): string {
  return `account:${accountId}`;
}

/** The webhook signing secret of an account (one per account). */
export function webhookSecretBinding(accountId: number): string {
  return `webhook-secret:account:${accountId}`;
}

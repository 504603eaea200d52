/** A storage type's name: one of STORAGE_TYPES (types/registry.ts), each defined in its folder under types/. */
export type StorageType = string;

/** Parameters of an `s3` or `gcs` storage that may be shown; the secret half of the credentials is not here. */
export type BucketParameters = {
  bucket: string;
  /** Root prefix inside the bucket, without leading or trailing `/`; absent for the bucket root. */
  path?: string;
  /** S3-compatible endpoint (an extension); absent means AWS, or Google's XML API for `gcs`. */
  endpoint?: string;
  region?: string;
  /** HMAC or AWS access key id, or the service account's e-mail for a `gcs` service-account key. */
  credentials: { access_key?: string; client_email?: string };
};

export type WebFolderParameters = {
  base_url: string;
};

/** What a storage's parameters show (never a secret): each type's own members (BucketParameters, ...). */
export type PublicParameters = { readonly [member: string]: unknown };

/** A Google Cloud service-account key file, as JSON. */
export interface GcsServiceAccountKey {
  type?: string;
  project_id?: string;
  private_key_id?: string;
  private_key: string;
  client_email: string;
  [member: string]: unknown;
}

/** What is encrypted at rest: each type's own members (the bucket types' are named here). */
export interface StorageSecret {
  secret_access_key?: string;
  service_account?: GcsServiceAccountKey;
  [member: string]: unknown;
}

/** A storage connection as the drivers need it: what may be shown, and the decrypted secret. */
export interface StorageConnection {
  type: StorageType;
  parameters: PublicParameters;
  secret: StorageSecret | null;
}

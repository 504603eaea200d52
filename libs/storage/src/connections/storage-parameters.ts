/** The kinds of storage, in the order the contract lists them (docs/api-contract.md, "Storage"). */
export const STORAGE_TYPES = ['web_folder', 's3', 'gcs'] as const;
export type StorageType = (typeof STORAGE_TYPES)[number];

/** Parameters of an `s3` or `gcs` storage that may be shown; the secret half of the credentials is not here. */
export interface BucketParameters {
  bucket: string;
  /** Root prefix inside the bucket, without leading or trailing `/`; absent for the bucket root. */
  path?: string;
  /** S3-compatible endpoint (an extension); absent means AWS, or Google's XML API for `gcs`. */
  endpoint?: string;
  region?: string;
  /** HMAC or AWS access key id, or the service account's e-mail for a `gcs` service-account key. */
  credentials: { access_key?: string; client_email?: string };
}

export interface WebFolderParameters {
  base_url: string;
}

export type PublicParameters = BucketParameters | WebFolderParameters;

/** A Google Cloud service-account key file, as JSON. */
export interface GcsServiceAccountKey {
  type?: string;
  project_id?: string;
  private_key_id?: string;
  private_key: string;
  client_email: string;
  [member: string]: unknown;
}

/** What is encrypted at rest. */
export interface StorageSecret {
  secret_access_key?: string;
  service_account?: GcsServiceAccountKey;
}

/** A storage connection as the drivers need it: what may be shown, and the decrypted secret. */
export interface StorageConnection {
  type: StorageType;
  parameters: PublicParameters;
  secret: StorageSecret | null;
}

export function isBucketParameters(type: StorageType, _parameters: PublicParameters): _parameters is BucketParameters {
  return type === 's3' || type === 'gcs';
}

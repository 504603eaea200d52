import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { StorageConnections } from './connections/storage-connections.service';
import { CredentialCipher } from './credentials/credential-cipher';
import { StorageDriverFactory } from './drivers/storage-driver.factory';
import { AddressPolicy } from './fetch/address-policy';
import { SafeFetcher } from './fetch/safe-fetcher';
import { SampleImages } from './samples/sample-images';
import { StorageResolver } from './storage-resolver';
import { TemporaryBucket } from './temporary/temporary-bucket';

/**
 * Storage connections, references, the temporary bucket, SSRF-safe downloads and the sample images, for the API and
 * the worker.
 */
@Module({
  imports: [DatabaseModule],
  providers: [
    AddressPolicy,
    SafeFetcher,
    SampleImages,
    CredentialCipher,
    StorageDriverFactory,
    StorageConnections,
    StorageResolver,
    TemporaryBucket,
  ],
  exports: [
    AddressPolicy,
    SafeFetcher,
    SampleImages,
    CredentialCipher,
    StorageConnections,
    StorageResolver,
    TemporaryBucket,
  ],
})
export class StorageModule {}

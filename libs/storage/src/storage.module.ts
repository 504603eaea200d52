import { Module } from '@nestjs/common';
import { DatabaseModule } from '@app/database';
import { StorageConnections } from './connections/storage-connections.service';
import { CredentialCipher } from './credentials/credential-cipher';
import { StorageDriverFactory } from './drivers/storage-driver.factory';
import { AddressPolicy } from './fetch/address-policy';
import { SafeFetcher } from './fetch/safe-fetcher';
import { StorageResolver } from './storage-resolver';
import { TemporaryBucket } from './temporary/temporary-bucket';

/** Storage connections, references, the temporary bucket and SSRF-safe downloads, for the API and the worker. */
@Module({
  imports: [DatabaseModule],
  providers: [
    AddressPolicy,
    SafeFetcher,
    CredentialCipher,
    StorageDriverFactory,
    StorageConnections,
    StorageResolver,
    TemporaryBucket,
  ],
  exports: [AddressPolicy, SafeFetcher, CredentialCipher, StorageConnections, StorageResolver, TemporaryBucket],
})
export class StorageModule {}

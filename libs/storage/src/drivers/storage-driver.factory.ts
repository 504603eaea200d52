import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Injectable } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { AppConfig, ServiceException } from '@app/common';
import type { StorageConnection } from '../connections/storage-parameters';
import { AddressPolicy, bareHost } from '../fetch/address-policy';
import { SafeFetcher } from '../fetch/safe-fetcher';
import { storageType } from '../types/registry';
import type { DriverContext } from '../types/storage-type';
import type { EndpointGuard } from './endpoint-guard';
import type { StorageDriver } from './storage-driver';
import { tracedDriver } from './traced-storage.driver';

/** The port of an http(s) URL, its scheme's default when it names none. */
function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** `host:port` of an http(s) URL, the same for every spelling of one endpoint (case, default port, root dot). */
function endpointKey(endpoint: string): string {
  const url = new URL(endpoint);
  return `${bareHost(url).toLowerCase()}:${portOf(url)}`;
}

/** `address:port` with the address in one spelling (an IPv4-mapped IPv6 address as its IPv4 address). */
function addressKey(address: string, port: string): string {
  return `${ipaddr.process(address.split('%')[0]).toNormalizedString()}:${port}`;
}

/** The answer to a tenant storage that names the service's own store (by name, spelling or address). */
function internalStore(): ServiceException {
  return ServiceException.validation({
    'parameters.endpoint': ["this endpoint is the service's own internal store; connect a store of your own"],
  });
}

/** Every address of a host: itself for an IP literal, else the resolver's answers (none when it does not resolve). */
async function addressesOf(host: string): Promise<string[]> {
  const name = host.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (isIP(name) !== 0) return [name];
  try {
    return (await dns.promises.lookup(name, { all: true, verbatim: true })).map((answer) => answer.address);
  } catch {
    return [];
  }
}

/** The one place that turns a storage connection into its driver. */
@Injectable()
export class StorageDriverFactory {
  /** The service's own object store (the temporary bucket's endpoints): no tenant storage may name it. */
  private readonly internalEndpoints: ReadonlySet<string>;

  /** The same endpoints as URLs: the addresses they resolve to are refused as well (see {@link guardOf}). */
  private readonly internalUrls: readonly URL[];

  constructor(
    private readonly config: AppConfig,
    private readonly policy: AddressPolicy,
    private readonly fetcher: SafeFetcher,
  ) {
    const temporary = config.temporaryBucket;
    const endpoints = [temporary?.endpoint, temporary?.publicEndpoint].filter((url) => url !== undefined);
    this.internalEndpoints = new Set(endpoints.map(endpointKey));
    this.internalUrls = endpoints.map((endpoint) => new URL(endpoint));
  }

  /**
   * `address:port` of every address the temporary bucket's endpoints resolve to now (names may move: resolved at
   * each check, through the system's resolver and its cache).
   */
  private async internalAddresses(): Promise<Set<string>> {
    const keys = new Set<string>();
    for (const url of this.internalUrls) {
      for (const address of await addressesOf(bareHost(url))) keys.add(addressKey(address, portOf(url)));
    }
    return keys;
  }

  /**
   * The address policy for a tenant's endpoint, and one rule more: no address it resolves to (at its port) may be
   * one of the temporary bucket's, whatever the spelling (`localhost` for `127.0.0.1`, `[::ffff:10.0.0.5]`, a
   * second name of the store). Checked on the endpoint before the first request and on every connection.
   * @internal (public for its spec: the per-connection `lookup`)
   */
  guardOf(endpoint: URL): EndpointGuard {
    const policy = this.policy;
    const port = portOf(endpoint);
    const refuseInternal = async (addresses: string[]) => {
      if (this.internalUrls.length === 0) return;
      const internal = await this.internalAddresses();
      if (addresses.some((address) => internal.has(addressKey(address, port)))) throw internalStore();
    };
    // the addresses the policy hands to the connection are the ones judged (no second resolution to race)
    const lookup: LookupFunction = (hostname, options, callback) => {
      policy.lookup(hostname, options, (error, address, family) => {
        if (error) return callback(error, '');
        const given = typeof address === 'string' ? [address] : address.map((answer) => answer.address);
        refuseInternal(given).then(
          () => (typeof address === 'string' ? callback(null, address, family) : callback(null, address)),
          (refusal: Error) => callback(refusal, ''),
        );
      });
    };
    return {
      async resolve(url: URL) {
        const resolved = await policy.resolve(url);
        await refuseInternal(await addressesOf(bareHost(url)));
        return resolved;
      },
      lookup,
    };
  }

  /** What every type's driver is lent: the outbound rules and the bounds of this configuration. */
  private get context(): DriverContext {
    const { storageListMaxPages, storageListTimeoutMs, storageListPageMaxBytes } = this.config;
    return {
      config: this.config,
      guardOf: (endpoint) => this.guardOf(endpoint),
      fetcher: this.fetcher,
      listing: {
        maxPages: storageListMaxPages,
        timeoutMs: storageListTimeoutMs,
        pageMaxBytes: storageListPageMaxBytes,
      },
      connectTimeoutMs: this.config.fetchConnectTimeoutMs,
      requestTimeoutMs: this.config.fetchTimeoutMs,
    };
  }

  /** The connection's driver; with tracing on, a span per call (traced-storage.driver.ts). */
  create(connection: StorageConnection): StorageDriver {
    return tracedDriver(this.build(connection), connection.type);
  }

  private build(connection: StorageConnection): StorageDriver {
    const endpoint = connection.parameters.endpoint;
    // Even where FETCH_ALLOW_HOSTS opens its address, the store that holds every account's temporary results
    // is not a tenant's storage.
    if (typeof endpoint === 'string' && this.internalEndpoints.has(endpointKey(endpoint))) throw internalStore();
    return storageType(connection.type).driver(connection, this.context);
  }
}

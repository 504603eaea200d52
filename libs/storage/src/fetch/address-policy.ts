import dns, { type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Injectable, Logger } from '@nestjs/common';
import { AppConfig, ServiceException } from '@app/common';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** One address a host may be reached at, as `dns.lookup` returns it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** How a refusal names each ipaddr.js range (`range()`); any other non-unicast range is named by its id. */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  loopback: 'a loopback',
  private: 'a private',
  linkLocal: 'a link-local',
  multicast: 'a multicast',
  unspecified: 'an unspecified',
  broadcast: 'the broadcast',
  carrierGradeNat: 'a carrier-grade NAT',
  uniqueLocal: 'a unique-local',
  rfc6145: 'an IPv4-translated',
  rfc6052: 'a NAT64',
  '6to4': 'a 6to4',
  teredo: 'a Teredo',
  reserved: 'a reserved',
  benchmarking: 'a benchmarking',
  deprecatedSiteLocal: 'a site-local',
  discard: 'a discard-only',
  amt: 'an AMT',
  as112: 'an AS112',
  as112v6: 'an AS112',
};

/**
 * IPv6 global unicast is 2000::/3 (RFC 4291); ipaddr.js calls some addresses outside it `unicast`
 * (IPv4-compatible `::a.b.c.d`, unassigned space), which must not reach a host stack that maps them.
 */
const IPV6_GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** The ipaddr.js range of an address, with IPv4-mapped IPv6 judged as its IPv4 address. */
function classify(ip: string): { address: Address; range: string } {
  const address = ipaddr.process(ip);
  let range: string = address.range();
  if (range === 'unicast' && address.kind() === 'ipv6' && !address.match(IPV6_GLOBAL_UNICAST)) range = 'nonGlobal';
  return { address, range };
}

function describeRange(range: string): string {
  if (range === 'nonGlobal') return 'a non-global IPv6';
  return RANGE_NAMES[range] ?? `a special-purpose (${range})`;
}

function refused(message: string): ServiceException {
  return new ServiceException('FETCH_REFUSED', message);
}

/**
 * What the client is told about an address that is not public, whether it was given as a literal, resolved from a
 * name or reached by a redirect: never the address or its range, which would map the internal network's names.
 */
export const NOT_PUBLIC_MESSAGE =
  "The URL's host is not allowed: it is not a public address. An operator can allow it with FETCH_ALLOW_HOSTS.";

/** A resolver failure as `dns.lookup` reports one, for answers that are no use (none, or none of a family). */
function noAddress(host: string, family?: number): NodeJS.ErrnoException {
  const what = family === undefined ? 'no address' : `no IPv${family} address`;
  return Object.assign(new Error(`${host} has ${what}`), { code: 'ENODATA' });
}

/** The host of a URL without IPv6 brackets or a trailing root dot. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
}

/**
 * Decides which URLs and addresses the service may download from, so that a user-given URL cannot reach the
 * service's own network (SSRF): only http(s), no credentials in the URL, and only globally routable unicast
 * addresses — checked on IP literals and on every address a host name resolves to — unless the configured
 * allow-list (FETCH_ALLOW_HOSTS) opens an address range or an exact host name.
 *
 * A refused address is FETCH_REFUSED with {@link NOT_PUBLIC_MESSAGE}; the address, its range and the name it came
 * from go to the server log only. A name that does not resolve rejects with the resolver's own error (ENOTFOUND,
 * EAI_AGAIN, ENODATA), which callers report like any failed connection.
 */
@Injectable()
export class AddressPolicy {
  private readonly logger = new Logger(AddressPolicy.name);
  private readonly allowedHosts: ReadonlySet<string>;
  private readonly allowedRanges: readonly [Address, number][];

  constructor(config: AppConfig) {
    const hosts = new Set<string>();
    const ranges: [Address, number][] = [];
    for (const entry of config.fetchAllowHosts) {
      const [ip, bits] = entry.split('/');
      if (isIP(ip) === 0) {
        hosts.add(entry.replace(/\.$/, ''));
        continue;
      }
      const address = ipaddr.process(ip);
      // A mapped entry (::ffff:a.b.c.d/120) narrows to IPv4 with the prefix shifted, like the addresses it opens.
      const shift = address.kind() === 'ipv4' && ipaddr.parse(ip).kind() === 'ipv6' ? 96 : 0;
      const width = address.kind() === 'ipv4' ? 32 : 128;
      ranges.push([address, bits === undefined ? width : Math.max(0, Number(bits) - shift)]);
    }
    this.allowedHosts = hosts;
    this.allowedRanges = ranges;
  }

  /** Refuses URLs that are not http(s), carry a user name or password, or have no host; no DNS involved. */
  assertUrl(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw refused(`Only http and https URLs can be fetched; "${url.protocol}" URLs are not allowed.`);
    }
    if (url.username !== '' || url.password !== '') {
      throw refused(`URLs with a user name or password cannot be fetched (host "${bareHost(url)}").`);
    }
    if (bareHost(url) === '') throw refused('The URL has no host.');
  }

  /**
   * Refuses an address outside global unicast unless allow-listed. `host` is the name it was resolved from;
   * omitted for an IP literal.
   */
  assertAddress(ip: string, host?: string): void {
    if (isIP(ip.split('%')[0]) === 0) throw this.refuse(`Host "${host ?? ip}" resolves to "${ip}", not an IP address`);
    const { address, range } = classify(ip);
    if (range === 'unicast' || this.isAllowedAddress(address)) return;
    const shown = address.toString();
    const what = `${describeRange(range)} address`;
    if (host !== undefined) throw this.refuse(`Host "${host}" resolves to ${shown}, ${what}`);
    throw this.refuse(`Address ${ip}${shown === ip ? '' : ` (${shown})`} is ${what}`);
  }

  /**
   * Checks the URL and every address its host resolves to, and returns the one address to connect to. Connect to
   * exactly that address (pinning): resolving again would let a DNS answer change between check and connect.
   */
  async resolve(url: URL): Promise<ResolvedAddress> {
    this.assertUrl(url);
    const [first] = await this.resolveHost(bareHost(url));
    return first;
  }

  /**
   * Every address of a host (an IP literal or a name), in resolver order, after checking all of them: one refused
   * answer refuses the host, since a rebinding resolver may mix public and private answers.
   */
  async resolveHost(host: string): Promise<ResolvedAddress[]> {
    const name = host
      .toLowerCase()
      .replace(/^\[(.*)\]$/, '$1')
      .replace(/\.$/, '');
    const family = isIP(name);
    if (family !== 0) {
      this.assertAddress(name);
      return [{ address: name, family: family as 4 | 6 }];
    }
    const answers = await this.lookupName(name);
    if (!this.allowedHosts.has(name)) for (const answer of answers) this.assertAddress(answer.address, name);
    return answers;
  }

  /**
   * A `net`/`http.Agent` `lookup` option that resolves and checks like {@link resolveHost}, for clients that
   * connect on their own (the S3 driver's user-given endpoints). Node skips `lookup` for IP-literal hosts, so such
   * a client must also check its endpoint URL with {@link resolve} before use.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.resolveHost(hostname).then(
      (answers) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = wanted === undefined ? answers : answers.filter((a) => a.family === wanted);
        if (usable.length === 0) {
          callback(noAddress(hostname, wanted), '');
        } else if (options.all) {
          callback(null, usable);
        } else {
          callback(null, usable[0].address, usable[0].family);
        }
      },
      (error: Error) => callback(error, ''),
    );
  };

  /** Logs the detail for the operator and returns what the client may see. */
  private refuse(detail: string): ServiceException {
    this.logger.warn(`Refused a URL: ${detail}; downloads from it are not allowed unless FETCH_ALLOW_HOSTS opens it.`);
    return refused(NOT_PUBLIC_MESSAGE);
  }

  private isAllowedAddress(address: Address): boolean {
    return this.allowedRanges.some(([range, bits]) => range.kind() === address.kind() && address.match(range, bits));
  }

  private async lookupName(name: string): Promise<ResolvedAddress[]> {
    // Through the module object at call time, so that tests can stub the resolver.
    const answers: LookupAddress[] = await dns.promises.lookup(name, { all: true, verbatim: true });
    if (answers.length === 0) throw noAddress(name);
    return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
  }
}

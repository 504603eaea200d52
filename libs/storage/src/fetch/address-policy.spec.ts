import dns, { type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Logger } from '@nestjs/common';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadConfig, ServiceException } from '@app/common';
import { AddressPolicy, NOT_PUBLIC_MESSAGE } from './address-policy';
import { rejected } from '../../../../test/helpers/rejected';

function policy(allow = ''): AddressPolicy {
  return new AddressPolicy(loadConfig({ FETCH_ALLOW_HOSTS: allow }));
}

/** The thrown ServiceException, or a failure when nothing or something else was thrown. */
function caught(action: () => unknown): ServiceException {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceException);
    return error as ServiceException;
  }
  throw new Error('expected a ServiceException');
}

let answers: Record<string, string[]>;
/** The policy's warnings: the detail of each refusal, which the client is not told. */
let warnings: string[];
beforeEach(() => {
  answers = {};
  warnings = [];
  vi.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
  // Only stubbed .test names resolve; an unknown name fails as a real resolver would, without a query.
  vi.spyOn(dns.promises, 'lookup').mockImplementation((async (host: string) => {
    const list = answers[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address): LookupAddress => ({ address, family: isIP(address) }));
  }) as unknown as typeof dns.promises.lookup);
});
afterEach(() => vi.restoreAllMocks());

describe('AddressPolicy.assertAddress', () => {
  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['::1', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.0.1', /private/],
    ['169.254.169.254', /link-local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['224.0.0.1', /multicast/],
    ['ff02::1', /multicast/],
    ['0.0.0.0', /unspecified/],
    ['0.1.2.3', /unspecified/],
    ['::', /unspecified/],
    ['255.255.255.255', /broadcast/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['fc00::1', /unique-local/],
    ['fd12:3456::1', /unique-local/],
    ['::ffff:127.0.0.1', /\(127\.0\.0\.1\) is a loopback/],
    ['::ffff:10.0.0.1', /private/],
    ['64:ff9b::a00:1', /NAT64/],
    ['2002:7f00:1::', /6to4/],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
    ['::7f00:1', /non-global IPv6/],
    ['192.0.2.10', /reserved/],
    ['198.18.0.1', /reserved/],
    ['240.0.0.1', /reserved/],
    ['2001:db8::1', /reserved/],
    ['2001:2::1', /benchmarking/],
  ];

  it.each(refused)('refuses %s (%s), telling the client neither the address nor its range', (ip, reason) => {
    const error = caught(() => policy().assertAddress(ip));
    expect(error.codeName).toBe('FETCH_REFUSED');
    expect(error.message).toBe(NOT_PUBLIC_MESSAGE);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(reason);
    expect(warnings[0]).toMatch(/not allowed unless FETCH_ALLOW_HOSTS opens it\.$/);
  });

  it.each(['93.184.216.34', '8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450::1', '::ffff:8.8.8.8'])(
    'allows the public address %s',
    (ip) => {
      expect(() => policy().assertAddress(ip)).not.toThrow();
    },
  );

  it('logs the host a refused address was resolved from, and tells the client only the setting', () => {
    const error = caught(() => policy().assertAddress('127.0.0.2', 'x.test'));
    expect(error.message).toBe(
      "The URL's host is not allowed: it is not a public address. An operator can allow it with FETCH_ALLOW_HOSTS.",
    );
    expect(warnings).toEqual([
      'Refused a URL: Host "x.test" resolves to 127.0.0.2, a loopback address; downloads from it are not allowed unless FETCH_ALLOW_HOSTS opens it.',
    ]);
  });

  it('opens allow-listed addresses and ranges only', () => {
    const allowing = policy('127.0.0.1,10.0.0.0/8,::1,fd00::/8');
    for (const ip of ['127.0.0.1', '::ffff:127.0.0.1', '10.0.0.1', '10.255.255.255', '::1', 'fd00::5']) {
      expect(() => allowing.assertAddress(ip)).not.toThrow();
    }
    for (const ip of ['127.0.0.2', '172.16.0.1', '192.168.0.1', 'fc00::1', '169.254.169.254']) {
      expect(caught(() => allowing.assertAddress(ip)).codeName).toBe('FETCH_REFUSED');
    }
  });

  it('reads an IPv4-mapped allow-list entry as the IPv4 range it maps', () => {
    const allowing = policy('::ffff:10.1.0.0/112');
    expect(() => allowing.assertAddress('10.1.2.3')).not.toThrow();
    expect(caught(() => allowing.assertAddress('10.2.0.1')).codeName).toBe('FETCH_REFUSED');
  });
});

describe('AddressPolicy.assertUrl', () => {
  it.each([
    ['file:///etc/passwd', /Only http and https URLs can be fetched; "file:"/],
    ['ftp://example.com/a.png', /Only http and https/],
    ['gopher://example.com:70/_x', /Only http and https/],
    ['data:image/png;base64,AAAA', /Only http and https/],
    ['javascript:alert(1)', /Only http and https/],
    ['http://user@example.com/', /user name or password/],
    ['http://:secret@example.com/', /user name or password/],
    ['http://127.0.0.1@169.254.169.254/', /user name or password cannot be fetched \(host "169\.254\.169\.254"\)/],
  ])('refuses %s', (url, message) => {
    const error = caught(() => policy().assertUrl(new URL(url)));
    expect(error.codeName).toBe('FETCH_REFUSED');
    expect(error.message).toMatch(message);
  });

  it('accepts plain http and https URLs', () => {
    expect(() => policy().assertUrl(new URL('https://images.example.com/a.png?x=1'))).not.toThrow();
    expect(() => policy().assertUrl(new URL('http://93.184.216.34:8080/'))).not.toThrow();
  });
});

describe('AddressPolicy.resolve', () => {
  it('checks IP literals in every WHATWG spelling without asking DNS', async () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://[::ffff:7f00:1]/']) {
      const error = await rejected(policy().resolve(new URL(url)));
      expect(error.message).toBe(NOT_PUBLIC_MESSAGE);
      expect(warnings.pop()).toMatch(/is a loopback address/);
    }
    await expect(policy().resolve(new URL('http://[2606:4700::1111]/'))).resolves.toEqual({
      address: '2606:4700::1111',
      family: 6,
    });
    expect(dns.promises.lookup).not.toHaveBeenCalled();
  });

  it('returns the first address of a name whose every answer is public, asking DNS once', async () => {
    answers['cdn.test'] = ['93.184.216.34', '2606:4700::1111'];
    await expect(policy().resolve(new URL('https://cdn.test/a.png'))).resolves.toEqual({
      address: '93.184.216.34',
      family: 4,
    });
    expect(dns.promises.lookup).toHaveBeenCalledTimes(1);
    expect(dns.promises.lookup).toHaveBeenCalledWith('cdn.test', { all: true, verbatim: true });
  });

  it('refuses a name when any answer is refused (rebinding with mixed answers)', async () => {
    answers['mixed.test'] = ['93.184.216.34', '192.168.1.20'];
    const error = await rejected(policy().resolve(new URL('http://mixed.test/')));
    expect(error.codeName).toBe('FETCH_REFUSED');
    expect(error.message).toBe(NOT_PUBLIC_MESSAGE);
    expect(warnings[0]).toMatch(/^Refused a URL: Host "mixed\.test" resolves to 192\.168\.1\.20, a private address;/);
  });

  it('opens an allow-listed host name whatever it resolves to, and that name only', async () => {
    answers['assets.internal'] = ['10.0.0.7'];
    answers['other.assets.internal'] = ['10.0.0.8'];
    const allowing = policy('assets.internal');
    await expect(allowing.resolve(new URL('http://assets.internal./x'))).resolves.toEqual({
      address: '10.0.0.7',
      family: 4,
    });
    const error = await rejected(allowing.resolve(new URL('http://other.assets.internal/x')));
    expect(error.message).toBe(NOT_PUBLIC_MESSAGE);
    expect(warnings[0]).toMatch(/other\.assets\.internal" resolves to 10\.0\.0\.8, a private address/);
    // A name entry opens the name, not the addresses it resolves to.
    expect((await rejected(allowing.resolve(new URL('http://10.0.0.7/')))).codeName).toBe('FETCH_REFUSED');
  });

  it("rejects with the resolver's own error when the name does not resolve, for the caller to report", async () => {
    const error = await policy()
      .resolve(new URL('http://nowhere.test/'))
      .catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ServiceException);
    expect(error).toMatchObject({ code: 'ENOTFOUND' });
  });

  it('checks the scheme and credentials before any DNS query', async () => {
    answers['cdn.test'] = ['93.184.216.34'];
    expect((await rejected(policy().resolve(new URL('http://u:p@cdn.test/')))).codeName).toBe('FETCH_REFUSED');
    expect(dns.promises.lookup).not.toHaveBeenCalled();
  });
});

describe('AddressPolicy.lookup', () => {
  function lookup(host: string, options: { all?: boolean; family?: number }) {
    return new Promise<{ error: Error | null; address: unknown; family?: number }>((resolve) => {
      policy().lookup(host, options, (error, address, family) => resolve({ error, address, family }));
    });
  }

  it('answers like dns.lookup for checked names, with and without `all`', async () => {
    answers['cdn.test'] = ['93.184.216.34', '2606:4700::1111'];
    expect(await lookup('cdn.test', {})).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    expect(await lookup('cdn.test', { family: 6 })).toEqual({ error: null, address: '2606:4700::1111', family: 6 });
    expect((await lookup('cdn.test', { all: true })).address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700::1111', family: 6 },
    ]);
  });

  it('calls back with FETCH_REFUSED for a name resolving to a refused address', async () => {
    answers['internal.test'] = ['10.0.0.1'];
    const { error } = await lookup('internal.test', { all: true });
    expect(error).toBeInstanceOf(ServiceException);
    expect((error as ServiceException).codeName).toBe('FETCH_REFUSED');
  });
});

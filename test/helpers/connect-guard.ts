import net, { type LookupFunction } from 'node:net';

/**
 * Proof that code under test connects only where a test allows: every TCP (and TLS) connection attempt in this
 * process goes through `net.Socket.prototype.connect`, which the guard wraps. A destination outside the allowed
 * addresses is recorded and the attempt fails before any packet leaves (the socket is destroyed with an error).
 */
export interface ConnectGuard {
  /** Destinations refused, e.g. `127.0.0.2:80` or `10.0.0.1 (from internal.test)`; tests assert it stays empty. */
  readonly refused: string[];
  /** Addresses let through, in order. */
  readonly allowed: string[];
  /** Puts the original `connect` back. */
  restore(): void;
}

interface ConnectOptions {
  host?: string;
  port?: number | string;
  path?: string;
  lookup?: LookupFunction;
}

/** A copy of the options `connect` was called with, and a way to put an edited copy back in its place. */
function connectOptions(args: unknown[]): { options: ConnectOptions; replace(options: ConnectOptions): void } {
  const [first, second] = args;
  // net.createConnection() and http agents pass one array of already normalised arguments.
  if (Array.isArray(first)) {
    return { options: { ...(first[0] as ConnectOptions) }, replace: (options) => (first[0] = options) };
  }
  if (first !== null && typeof first === 'object') {
    return { options: { ...(first as ConnectOptions) }, replace: (options) => (args[0] = options) };
  }
  if (typeof first === 'string' && !/^\d+$/.test(first)) return { options: { path: first }, replace: () => undefined };
  return {
    options: { port: first as number, host: typeof second === 'string' ? second : undefined },
    replace: () => undefined,
  };
}

function refuse(socket: net.Socket, destination: string): net.Socket {
  const error = Object.assign(new Error(`connect-guard: the test does not allow a connection to ${destination}`), {
    code: 'ECONNREFUSED',
  });
  process.nextTick(() => socket.destroy(error));
  return socket;
}

/** Wraps a `lookup` option so that the addresses it yields are checked before the socket connects to them. */
function guardLookup(lookup: LookupFunction, guard: ConnectGuard, allow: ReadonlySet<string>): LookupFunction {
  return (hostname, options, callback) =>
    lookup(hostname, options, (error, address, family) => {
      if (error) return callback(error, address, family);
      const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      const refused = addresses.filter((entry) => !allow.has(entry));
      if (refused.length > 0) {
        guard.refused.push(...refused.map((entry) => `${entry} (from ${hostname})`));
        const message = `connect-guard: the test does not allow ${refused.join(', ')} (from ${hostname})`;
        return callback(Object.assign(new Error(message), { code: 'ECONNREFUSED' }), '');
      }
      guard.allowed.push(...addresses);
      callback(null, address, family);
    });
}

/**
 * Installs the guard; only `allowedAddresses` (IP addresses, e.g. the test's own loopback servers) may be reached.
 * A host name connected without a `lookup` option would be resolved by the system resolver, unpinned: refused too.
 * Unix-socket (`path`) connections are not network connections and pass.
 */
export function installConnectGuard(allowedAddresses: Iterable<string> = ['127.0.0.1']): ConnectGuard {
  const allow = new Set(allowedAddresses);
  const original = net.Socket.prototype.connect;
  const guard: ConnectGuard = {
    refused: [],
    allowed: [],
    restore: () => {
      net.Socket.prototype.connect = original;
    },
  };
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]): net.Socket {
    const { options, replace } = connectOptions(args);
    const call = () => (original as (...a: unknown[]) => net.Socket).apply(this, args);
    if (options.path) return call();
    const host = options.host ?? 'localhost';
    if (net.isIP(host) !== 0) {
      if (!allow.has(host)) {
        guard.refused.push(`${host}:${options.port}`);
        return refuse(this, `${host}:${options.port}`);
      }
      guard.allowed.push(host);
      return call();
    }
    if (!options.lookup) {
      guard.refused.push(`${host}:${options.port} (system resolver, not pinned)`);
      return refuse(this, host);
    }
    replace({ ...options, lookup: guardLookup(options.lookup, guard, allow) });
    return call();
  } as typeof net.Socket.prototype.connect;
  return guard;
}

/** A TCP listener that counts the connections it accepts (and closes them at once). */
export interface CountingListener {
  readonly host: string;
  readonly port: number;
  readonly connections: number;
  close(): Promise<void>;
}

/** Listens on `host` (e.g. the forbidden loopback 127.0.0.2) at a free port; a test asserts it sees 0. */
export async function startListener(host: string): Promise<CountingListener> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    host,
    port,
    get connections() {
      return connections;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

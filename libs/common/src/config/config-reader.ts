/** Environment variables read by the service; the typed config is the only place that reads them. */
export type Environment = Record<string, string | undefined>;

/** One problem found in the environment, named by its variable. */
export interface ConfigProblem {
  variable: string;
  message: string;
}

/**
 * Reads variables of one environment by kind (string, integer in a range, boolean, URL, enum, key), collecting
 * every problem instead of stopping at the first, so that a ConfigError can list them all at once.
 */
export class Reader {
  readonly problems: ConfigProblem[] = [];

  constructor(private readonly env: Environment) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string;
  string(name: string): string | undefined;
  string(name: string, fallback?: string): string | undefined {
    return this.raw(name) ?? fallback;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push({ variable: name, message: `must be an integer from ${min} to ${max}, got "${value}"` });
      return fallback;
    }
    return Number(value);
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(value)) return true;
    if (['0', 'false', 'no', 'off'].includes(value)) return false;
    this.problems.push({ variable: name, message: `must be true or false, got "${value}"` });
    return fallback;
  }

  url(name: string, protocols: string[]): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    try {
      const url = new URL(value);
      if (!protocols.includes(url.protocol)) throw new Error('protocol');
      return value;
    } catch {
      this.problems.push({
        variable: name,
        message: `must be a URL with scheme ${protocols.map((p) => p.replace(':', '')).join(' or ')}`,
      });
      return undefined;
    }
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (!allowed.includes(value as T)) {
      this.problems.push({ variable: name, message: `must be one of ${allowed.join(', ')}, got "${value}"` });
      return fallback;
    }
    return value as T;
  }

  /** A 32-byte key given as 64 hex digits or as base64. */
  key(name: string, value: string | undefined): Buffer | undefined {
    if (value === undefined) return undefined;
    const key = /^[0-9a-f]{64}$/i.test(value)
      ? Buffer.from(value, 'hex')
      : /^[A-Za-z0-9+/_-]{43}=?$/.test(value)
        ? Buffer.from(value, 'base64')
        : undefined;
    if (key?.length === 32) return key;
    this.problems.push({ variable: name, message: 'must be a 32-byte key: 64 hex digits or 44 base64 characters' });
    return undefined;
  }

  problem(variable: string, message: string): void {
    this.problems.push({ variable, message });
  }
}

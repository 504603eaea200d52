import { ServiceException } from '@app/common';
import { DEFAULT_ACCOUNT_NAME, type ApiKeyEntity } from '@app/database';
import type { CreateKeyInput } from './keys.service';
import type { Principal } from './principal';

/** The limits a new key is stored with. */
export interface GrantedLimits {
  quota: number | null;
  rateLimitPerSecond: number | null;
  rateLimitPerMinute: number | null;
  /** The operator-made key whose rate limits the new key shares; null when an operator creates it. */
  grantKeyId: number | null;
  /** Calls that move from the creator's quota to the new key's; 0 when none do. */
  callsFromCreator: number;
}

/** The key that creates another, as stored, with the rate limits in force for it. */
export interface Creator {
  key: ApiKeyEntity;
  rateLimit: Principal['rateLimit'];
}

/**
 * Operators set limits: the keys CLI (no caller), `ADMIN_API_KEY` and the admin keys of the `default` account.
 * They manage every account and grant any limits.
 */
export function isOperator(caller: Principal | undefined): boolean {
  return caller === undefined || (caller.accountName === DEFAULT_ACCOUNT_NAME && caller.scopes.includes('admin'));
}

/** An operator's new key has the limits asked for, or none. */
export function operatorLimits(input: CreateKeyInput): GrantedLimits {
  return {
    quota: input.quota ?? null,
    rateLimitPerSecond: input.rateLimit?.perSecond ?? null,
    rateLimitPerMinute: input.rateLimit?.perMinute ?? null,
    grantKeyId: null,
    callsFromCreator: 0,
  };
}

/**
 * The limits a key that is not an operator's (an account's own admin key) may give a new key, so that the
 * limits an operator set bind the whole account:
 * - quota: when the creator has one, the new key needs one, at most the creator's calls left, and those calls
 *   move from the creator to the new key (two keys never spend more than the one had);
 * - rate limits: each at most the creator's; an absent one is the creator's own setting;
 * - the new key also counts against the rate limits of the creator's grant (the operator-made key above it),
 *   so more keys do not make more requests.
 * Every refused field in one 403 (`KEY_LIMITS_EXCEEDED`) whose details name it.
 */
export function limitsGrantedBy(creator: Creator, input: CreateKeyInput): GrantedLimits {
  const problems: Record<string, string[]> = {};
  const { key } = creator;
  const callsLeft = key.quota === null ? null : Math.max(0, key.quota - key.callsUsed);
  if (callsLeft !== null && input.quota === undefined) {
    problems.quota = [`quota is required, at most ${callsLeft}: the key that creates it has a quota`];
  } else if (callsLeft !== null && input.quota! > callsLeft) {
    problems.quota = [`quota must be at most ${callsLeft}, the calls left to the key that creates it`];
  }
  const perSecond = input.rateLimit?.perSecond;
  if (perSecond !== undefined && perSecond > creator.rateLimit.perSecond) {
    problems['rate_limit.per_second'] = [
      `per_second must be at most ${creator.rateLimit.perSecond}, the limit of the key that creates it`,
    ];
  }
  const perMinute = input.rateLimit?.perMinute;
  if (perMinute !== undefined && perMinute > creator.rateLimit.perMinute) {
    problems['rate_limit.per_minute'] = [
      `per_minute must be at most ${creator.rateLimit.perMinute}, the limit of the key that creates it`,
    ];
  }
  if (Object.keys(problems).length > 0) throw limitsExceeded(problems);
  return {
    quota: input.quota ?? null,
    rateLimitPerSecond: perSecond ?? key.rateLimitPerSecond,
    rateLimitPerMinute: perMinute ?? key.rateLimitPerMinute,
    grantKeyId: key.grantKeyId ?? key.id,
    callsFromCreator: callsLeft === null ? 0 : input.quota!,
  };
}

/** The 403 of a grant beyond the creator's limits; `problems` maps field paths to messages. */
export function limitsExceeded(problems: Record<string, string[]>): ServiceException {
  const reasons = Object.values(problems).flat().join('; ');
  return new ServiceException(
    'KEY_LIMITS_EXCEEDED',
    `A key cannot be given more than the key that creates it has: ${reasons}.`,
    problems,
  );
}

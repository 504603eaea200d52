import { AccountsAndKeys1763800000000 } from './1763800000000-accounts-and-keys';
import { Storages1763900000000 } from './1763900000000-storages';

/** Every migration, in order. Listed by class (no globs) so tests and builds run the same set. */
export const MIGRATIONS = [AccountsAndKeys1763800000000, Storages1763900000000];

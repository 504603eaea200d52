import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { alwaysShown, AppConfig, ensureDataDir } from '@app/common';
import { KeysService } from './keys.service';

/** The file under DATA_DIR that keeps the first admin key until its owner has stored it elsewhere. */
export const FIRST_ADMIN_KEY_FILE = 'first-admin-key.txt';

const MORE_KEYS = 'npm run keys -- create --name NAME --scopes admin';

/** What the first-start check did, for the notice written once the service listens. */
type Outcome =
  | { kind: 'configured' }
  | { kind: 'created'; secret: string; file: string; fileError?: string }
  | { kind: 'existing'; file: string };

/**
 * First start without ADMIN_API_KEY and without any key: creates an admin key of the default account, so a fresh
 * install is usable at once, and keeps it in a file only the owner can read. The process announces it after the
 * service listens ({@link announce}), as the last thing it writes: the secret only on a terminal, never in a log
 * stream that others may read (docker logs, journald, CI).
 */
@Injectable()
export class BootstrapKeyService implements OnApplicationBootstrap {
  private outcome: Outcome = { kind: 'configured' };

  constructor(
    private readonly config: AppConfig,
    private readonly keys: KeysService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.adminApiKey) return;
    const file = join(this.config.dataDir, FIRST_ADMIN_KEY_FILE);
    // Only the instance whose row won (KeysService.createBootstrapKey) holds the secret, so only it writes.
    const secret = await this.keys.createBootstrapKey();
    if (!secret) {
      this.outcome = { kind: 'existing', file };
      return;
    }
    try {
      writeKeyFile(this.config.dataDir, file, secret);
      this.outcome = { kind: 'created', secret, file };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
      this.outcome = { kind: 'created', secret, file, fileError: code };
    }
  }

  /**
   * Tells the operator about the admin key. `terminal`: standard output is one a person reads; then, and only
   * then, the new secret is printed on it. The notice of a new key is logged whatever LOG_LEVEL says.
   */
  announce(logger: Logger, terminal: boolean): void {
    const outcome = this.outcome;
    if (outcome.kind === 'configured') return;
    if (outcome.kind === 'existing') {
      const log = logger.child({ context: 'BootstrapKey' });
      if (existsSync(outcome.file)) {
        log.warn(`The first admin API key is still in ${outcome.file}: once it is stored elsewhere, delete that file.`);
      } else {
        log.info(`Admin API keys are in the database (ADMIN_API_KEY is not set). To make another: ${MORE_KEYS}`);
      }
      return;
    }
    if (terminal) {
      process.stdout.write(keyBox(outcome));
      return;
    }
    const log = alwaysShown(logger, 'BootstrapKey');
    if (outcome.fileError) {
      log.error(
        `Created the first admin API key but could not write it to ${outcome.file} (${outcome.fileError}), and ` +
          `standard output is not a terminal, so it is not shown. Make an admin key with: ${MORE_KEYS}`,
      );
    } else {
      log.info(
        `Created the first admin API key of the default account. It is not shown in the log because standard ` +
          `output is not a terminal: it is in ${outcome.file}, readable by this service's user alone. Store it ` +
          `(a password manager, your secret store), then delete that file.`,
      );
    }
  }
}

/** Writes the key where only the owner may read it: a 0600 file made beside it, then renamed into place. */
function writeKeyFile(dataDir: string, file: string, secret: string): void {
  ensureDataDir(dataDir);
  const partial = `${file}.${process.pid}.partial`;
  try {
    writeFileSync(partial, `${secret}\n`, { flag: 'wx', mode: 0o600 });
    // A file left by an earlier database holds a key that no longer exists: replaced.
    renameSync(partial, file);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

/** The terminal notice of a new key: the key on a line of its own, where to find it again, what to do next. */
function keyBox(outcome: Extract<Outcome, { kind: 'created' }>): string {
  const where = outcome.fileError
    ? [`  It could not be kept in ${outcome.file} (${outcome.fileError}): store it now, it is not shown again.`]
    : [
        `  A copy is in ${outcome.file} (readable by you alone).`,
        '  Store the key (a password manager, your secret store), then delete that file:',
        `    rm ${outcome.file}`,
      ];
  return [
    '',
    '  Atelier created an admin API key for the default account:',
    '',
    `    ${outcome.secret}`,
    '',
    ...where,
    `  Use it as: Authorization: Bearer <key>. More keys: ${MORE_KEYS}`,
    '',
    '',
  ].join('\n');
}

import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '@app/common';
import { KeysService } from './keys.service';

/**
 * First start without ADMIN_API_KEY and without any key: creates an admin key of the default
 * account and prints it once on standard output (not through the logger), so a fresh install
 * is usable at once.
 */
@Injectable()
export class BootstrapKeyService implements OnApplicationBootstrap {
  constructor(
    private readonly config: AppConfig,
    private readonly keys: KeysService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.adminApiKey) return;
    const secret = await this.keys.createBootstrapKey();
    if (!secret) return;
    process.stdout.write(
      [
        '',
        '  Atelier created an admin API key for the default account.',
        '  It is shown this once; store it now:',
        '',
        `    ${secret}`,
        '',
        '  Use it as: Authorization: Bearer <key>. Manage keys with `npm run keys -- --help`.',
        '',
      ].join('\n') + '\n',
    );
  }
}

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RawResponse } from '@app/common';
import { Public } from '../auth/require-scopes.decorator';
import { DASHBOARD_FOLDER, resolveDashboardFile } from './dashboard-files';

/** The project root: the folder that holds dist/ (from the sources and from dist/apps/api/src/dashboard alike). */
function projectRoot(): string {
  for (let dir = __dirname; ; dir = join(dir, '..')) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (join(dir, '..') === dir) return process.cwd();
  }
}

/**
 * The account dashboard (apps/dashboard, built by `npm run build` into dist/dashboard): static files, public (the
 * pages ask for a key and call the public API with it). Client routes fall back to index.html.
 */
@ApiExcludeController()
@Public()
@Controller('dashboard')
export class DashboardController {
  private readonly root = join(projectRoot(), DASHBOARD_FOLDER);

  @Get()
  @RawResponse()
  async index(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    // `/dashboard` -> `/dashboard/`, so that the page's relative URLs resolve under it.
    if (!request.url.split('?')[0].endsWith('/')) {
      await reply.redirect('/dashboard/', 302);
      return;
    }
    await this.send('', reply);
  }

  @Get('*')
  @RawResponse()
  async file(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const path = request.url.split('?')[0].replace(/^\/dashboard\/?/, '');
    await this.send(path, reply);
  }

  private async send(path: string, reply: FastifyReply): Promise<void> {
    reply.header('x-content-type-options', 'nosniff');
    if (!existsSync(join(this.root, 'index.html'))) {
      await reply
        .code(503)
        .header('content-type', 'text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(
          'The dashboard is not built: run `npm run build` (it writes dist/dashboard), then restart the service.\n',
        );
      return;
    }
    let file;
    try {
      file = resolveDashboardFile(this.root, path);
    } catch {
      file = undefined; // a malformed escape in the path
    }
    if (!file) {
      await reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('No such dashboard file.\n');
      return;
    }
    await reply.header('content-type', file.type).header('cache-control', file.cache).send(file.body);
  }
}

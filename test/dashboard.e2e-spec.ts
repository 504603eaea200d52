import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from './helpers/http';
import { startImageServer, type ImageServer } from './helpers/image-server';
import { freePort, type RunningProcess } from './helpers/process';
import { startS3Server, type S3TestServer } from './helpers/s3-server';
import { startWorkerFor } from './helpers/tasks';
import { startTestApp, type TestApp } from './helpers/test-app';

/**
 * The account dashboard (apps/dashboard, served at /dashboard) in a real browser: Debian's Chromium driven by
 * playwright-core, against the real service and an S3 server (s3rver), on loopback only.
 */
const CHROMIUM = '/usr/bin/chromium';
const BUILT = resolve(__dirname, '../dist/dashboard/index.html');
/** DASHBOARD_SCREENSHOTS=docs/dashboard keeps the README's screenshots; by default they go to a temp folder. */
const KEEP = process.env.DASHBOARD_SCREENSHOTS;

const HAVE_CHROMIUM = existsSync(CHROMIUM);
const TITLE = HAVE_CHROMIUM
  ? 'the dashboard in a browser'
  : `the dashboard in a browser (skipped: no ${CHROMIUM}; install Debian's chromium package)`;

describe.skipIf(!HAVE_CHROMIUM)(TITLE, () => {
  let app: TestApp;
  let s3: S3TestServer;
  let images: ImageServer;
  let worker: RunningProcess | undefined;
  let browser: BrowserContext;
  let page: Page;
  let shots: string;

  beforeAll(async () => {
    expect(existsSync(BUILT), 'dist/dashboard is built by `npm run build`').toBe(true);
    s3 = await startS3Server(['photos']);
    const colours = ['#d04020', '#2060c0'];
    for (const [i, colour] of colours.entries()) {
      const png = await sharp({ create: { width: 96, height: 64, channels: 3, background: colour } })
        .png()
        .toBuffer();
      await s3.client.send(new PutObjectCommand({ Bucket: 'photos', Key: `in/${i}.png`, Body: png }));
    }
    images = await startImageServer();
    const port = await freePort();
    app = await startTestApp({
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      FETCH_ALLOW_HOSTS: '127.0.0.1',
    });
    worker = await startWorkerFor(app);
    shots = mkdtempSync(join(tmpdir(), 'atelier-dashboard-'));
    // A fresh profile folder per run: no state from another run or from a person's browser.
    browser = await chromium.launchPersistentContext(join(shots, 'profile'), {
      executablePath: CHROMIUM,
      viewport: { width: 1280, height: 900 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = browser.pages()[0] ?? (await browser.newPage());
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await worker?.stop();
    await images?.stop();
    await app?.close();
    await s3?.stop();
    if (shots) rmSync(shots, { recursive: true, force: true });
  });

  /** A full-page screenshot, checked: not blank (its pixels vary), the expected text on the page. */
  async function screenshot(name: string, expected: string[]) {
    const file = join(shots, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    const text = await page.locator('body').innerText();
    for (const words of expected) expect(text, `${name}: "${words}" on the page`).toContain(words);
    const stats = await sharp(file).stats();
    expect(Math.max(...stats.channels.map((c) => c.stdev)), `${name} is not blank`).toBeGreaterThan(10);
    if (KEEP) {
      mkdirSync(resolve(__dirname, '..', KEEP), { recursive: true });
      copyFileSync(file, resolve(__dirname, '..', KEEP, `${name}.png`));
    }
  }

  /** The console's reports of what a Content-Security-Policy refused on the page, from now on. */
  function cspReports(on: Page): string[] {
    const reports: string[] = [];
    on.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) reports.push(message.text());
    });
    return reports;
  }

  const details = (summary: string) =>
    page.locator('details', { has: page.locator(`summary:text-is("${summary}")`) }).first();

  it('serves the built pages: SPA fallback, cached hashed assets, content types, no key needed', async () => {
    const root = await fetch(`${app.url}/`, { redirect: 'manual' });
    expect(root.headers.get('location')).toBe('/dashboard');
    const bare = await fetch(`${app.url}/dashboard`, { redirect: 'manual' });
    expect(bare.status).toBe(302);
    expect(bare.headers.get('location')).toBe('/dashboard/');
    const index = await fetch(`${app.url}/dashboard/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const html = await index.text();
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /href="(\/dashboard\/assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(script && style).toBeTruthy();
    const js = await fetch(`${app.url}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${app.url}${style}`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    // A client route is the page itself; a missing asset or a path out of the folder is a 404, not the page.
    const route = await fetch(`${app.url}/dashboard/tasks/42`);
    expect(route.status).toBe(200);
    expect(await route.text()).toBe(html);
    expect((await fetch(`${app.url}/dashboard/assets/missing-0000.js`)).status).toBe(404);
    expect((await fetch(`${app.url}/dashboard/..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${app.url}/dashboard/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
    // Swagger stays at /docs.
    expect((await fetch(`${app.url}/docs`)).status).toBe(200);
  });

  it('signs in, creates a key shown once, edits its scopes, connects a storage, edits, runs a batch, signs out', async () => {
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    // Whatever the page's Content-Security-Policy blocks is reported on the console: nothing, on every page.
    const blocked = cspReports(page);

    // Sign in: a wrong key is refused in words; the right one opens the pages its scopes allow.
    await page.goto(`${app.url}/`);
    await expect.poll(() => page.url()).toContain('/dashboard/');
    await page.getByLabel('API key').fill('sk_not_a_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('API key').fill(app.adminKey);
    await screenshot('sign-in', ['Sign in with an API key']);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();

    // Create a key: shown once, with a copy button; it works against the API.
    await page.getByLabel('Name', { exact: true }).fill('catalogue pipeline');
    await page.getByRole('checkbox', { name: 'storage' }).check();
    await page.getByLabel(/^Quota/).fill('500');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const shown = (await page.getByTestId('new-key').innerText()).trim();
    expect(shown).toMatch(/^sk_/);
    await page.getByRole('button', { name: 'Copy the key' }).waitFor();
    await screenshot('keys', ['shown only this once', 'catalogue pipeline']);
    expect((await call(app.url, 'GET', '/v1/storage/storages', { key: shown })).status).toBe(200);
    await page.getByRole('button', { name: 'I have saved it' }).click();
    expect(await page.locator('body').innerText()).not.toContain(shown);
    await page.reload();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    expect(await page.content()).not.toContain(shown);

    // Edit its scopes (PATCH /v1/keys/{id}): storage off, image_generation on.
    await page.getByRole('button', { name: 'Edit scopes of catalogue pipeline' }).click();
    const editor = page.getByRole('group', { name: 'Scopes of catalogue pipeline' });
    await editor.getByRole('checkbox', { name: 'storage' }).uncheck();
    await editor.getByRole('checkbox', { name: 'image_generation' }).check();
    await page.getByRole('button', { name: 'Save scopes' }).click();
    await page.getByRole('cell', { name: 'image_editing, image_generation' }).waitFor();
    const keys = (await call(app.url, 'GET', '/v1/keys', { key: app.adminKey })).body.data as any[];
    expect(keys.find((k) => k.name === 'catalogue pipeline').scopes.sort()).toEqual([
      'image_editing',
      'image_generation',
    ]);
    expect((await call(app.url, 'GET', '/v1/storage/storages', { key: shown })).status).toBe(403);

    // Revoke it (after a confirmation): the key stops working at once.
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke catalogue pipeline' }).click();
    await page.getByRole('row', { name: /catalogue pipeline.*revoked/ }).waitFor();
    expect((await call(app.url, 'GET', '/v1/usage', { key: shown })).status).toBe(401);

    // Connect a storage on s3rver with the form of its type; the secret is write-only.
    await page.getByRole('link', { name: 'Storages' }).click();
    await page.getByRole('heading', { name: 'Storages' }).waitFor();
    await page.getByLabel('Name (used as storage://name/…)').fill('photos');
    await page.getByLabel('Type').selectOption('s3');
    await page.getByLabel('bucket', { exact: true }).fill('photos');
    await page.getByLabel('endpoint', { exact: true }).fill(s3.endpoint);
    await details('credentials').locator('summary').click();
    await page.getByLabel('access_key', { exact: true }).fill(s3.accessKey);
    await page.getByLabel('secret_access_key', { exact: true }).fill(s3.secretKey);
    await page.getByRole('button', { name: 'Connect storage' }).click();
    await page.getByText('Connected "photos": the service reached it.').waitFor();
    await page.getByRole('button', { name: 'Test the connection of photos' }).click();
    await page.getByText('"photos" is reachable.').waitFor();
    await screenshot('storages', ['photos', 's3', 'Connect a storage']);
    expect(await page.content()).not.toContain(s3.secretKey);
    // Edit it: a folder inside the bucket; saving proves it reachable again; the shown parameters follow.
    await page.getByRole('button', { name: 'Edit photos' }).click();
    await page.getByLabel('path', { exact: true }).fill('in');
    await page.getByRole('button', { name: 'Save and test' }).click();
    await page.getByText('Saved "photos"; the service reached it with the new settings.').waitFor();
    await page.getByRole('cell', { name: 'photos/in' }).waitFor();
    // A second storage, deleted (after a confirmation).
    await page.getByLabel('Name (used as storage://name/…)').fill('scratch');
    await page.getByLabel('Type').selectOption('s3');
    await page.getByLabel('bucket', { exact: true }).fill('photos');
    await page.getByLabel('endpoint', { exact: true }).fill(s3.endpoint);
    await details('credentials').locator('summary').click();
    await page.getByLabel('access_key', { exact: true }).fill(s3.accessKey);
    await page.getByLabel('secret_access_key', { exact: true }).fill(s3.secretKey);
    await page.getByRole('button', { name: 'Connect storage' }).click();
    await page.getByText('Connected "scratch": the service reached it.').waitFor();
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete scratch' }).click();
    await page.getByText('Deleted "scratch".').waitFor();
    const storages = (await call(app.url, 'GET', '/v1/storage/storages', { key: app.adminKey })).body.data as any[];
    expect(storages.map((x) => [x.name, x.parameters.path])).toEqual([['photos', 'in']]);

    // Playground: the sample by URL, resized to 240 px wide and desaturated; before/after, download, curl.
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByRole('heading', { name: 'Playground' }).waitFor();
    const resizing = details('resizing');
    await resizing.locator('summary').click();
    await resizing.getByLabel('width (form)').selectOption({ label: 'integer (Pixels)' });
    await resizing.getByLabel('width: integer (Pixels)').fill('240');
    await resizing.getByLabel('height (form)').selectOption({ label: 'one of: auto' });
    await resizing.getByLabel('height: one of: auto').selectOption('auto');
    const adjustments = details('adjustments');
    await adjustments.locator('summary').click();
    await adjustments.getByLabel('saturation', { exact: true }).fill('-100');
    await page.getByRole('button', { name: 'Run edit' }).click();
    const after = page.getByRole('img', { name: 'After' });
    await after.waitFor();
    await expect.poll(() => after.evaluate((img) => (img as any).naturalWidth)).toBe(240);
    await page.getByRole('link', { name: 'Download result' }).waitFor();
    await screenshot('playground', ['Result', '480×720 png → 240×360 png']);
    await details('The request as curl').locator('summary').click();
    const curl = await page.locator('pre.code').innerText();
    // Run by a shell as a user would paste it (asynchronously: the service answers from this same process).
    const { stdout } = await promisify(execFile)('bash', ['--noprofile', '--norc', '-c', curl], {
      env: { PATH: process.env.PATH, ATELIER_KEY: app.adminKey },
      timeout: 30_000,
    });
    const answer = JSON.parse(stdout);
    expect([answer.data.output.width, answer.data.output.height]).toEqual([240, 360]);

    // A conflict the API states is explained before sending; a refusal shows the API's field details.
    await adjustments.getByLabel('saturation', { exact: true }).fill('-150');
    await adjustments.getByText('must be at least -100').waitFor();
    expect(await page.getByRole('button', { name: 'Run edit' }).isDisabled()).toBe(true);

    // Tasks: a batch over the storage folder; its progress bar moves to done; results with thumbnails.
    await page.getByRole('link', { name: 'Tasks' }).click();
    await page.getByLabel(/^Images:/).fill('storage://photos/');
    await page.getByRole('button', { name: 'Start batch' }).click();
    await page.getByRole('heading', { name: /^Task #\d+$/ }).waitFor();
    const bar = page.getByRole('progressbar');
    await expect
      .poll(() => bar.getAttribute('aria-valuetext'), { timeout: 60_000, interval: 250 })
      .toBe('2 done, 0 failed of 2');
    await page.getByText('DONE', { exact: true }).waitFor();
    await page
      .getByRole('img', { name: /^Result for storage:\/\/photos\// })
      .first()
      .waitFor();
    await expect
      .poll(() =>
        page.getByRole('img', { name: /^Result for/ }).evaluateAll((imgs) => imgs.map((i) => (i as any).naturalWidth)),
      )
      .toEqual([96, 96]);
    await screenshot('task', ['Results (2)', '2/2 done']);
    await page.getByRole('link', { name: '← All tasks' }).click();
    await page
      .getByRole('link', { name: /batch task #\d+/ })
      .first()
      .waitFor();
    await screenshot('tasks', ['Start a batch', 'DONE']);

    // Usage: calls, quota, rate limit.
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.getByText('Calls used').waitFor();
    await screenshot('usage', ['Calls used', 'Quota', 'Rate limit']);

    // Narrow screen (375 px): nothing wider than the screen.
    await page.setViewportSize({ width: 375, height: 800 });
    await page.getByRole('link', { name: 'Playground' }).click();
    await page.getByRole('heading', { name: 'Playground' }).waitFor();
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );
    await screenshot('playground-375', ['Playground', 'Run edit']);
    await page.setViewportSize({ width: 1280, height: 900 });

    // Sign out: the key is gone from the tab, and was never a cookie.
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('atelier.key'))).toBe(app.adminKey);
    expect(await page.context().cookies()).toEqual([]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => (globalThis as any).sessionStorage.length)).toBe(0);
    expect(app.logs.join('\n')).not.toContain(app.adminKey);
    expect(failures).toEqual([]);
    expect(blocked).toEqual([]);
  }, 180_000);
  it('cancels a task that has not ended, after a confirmation, from its row and its page; a refusal in words', async () => {
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    // Two batches whose one input the origin holds: they stay unfinished until the test lets it go.
    const png = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#808080' } })
      .png()
      .toBuffer();
    const held = ['/held/a.png', '/held/b.png'].map((path) => {
      images.put(path, png, 'image/png');
      return images.hold(path);
    });
    try {
      const [first, second] = await Promise.all(
        ['/held/a.png', '/held/b.png'].map(async (path) => {
          const body = { input: [images.url(path)], operations: { resizing: { width: 16, height: 'auto' } } };
          const created = await call(app.url, 'POST', '/v1/image/edit/batch', { key: app.adminKey, body });
          expect(created.status, created.text).toBe(200);
          return created.body.data.id as number;
        }),
      );
      await held[0].arrived;
      const statusOf = async (id: number) =>
        (await call(app.url, 'GET', `/v1/tasks/${id}`, { key: app.adminKey })).body.data.status;
      const row = (id: number) =>
        page.getByRole('listitem').filter({ has: page.getByRole('link', { name: `batch task #${id}`, exact: true }) });

      await page.goto(`${app.url}/dashboard/`);
      await page.getByLabel('API key').fill(app.adminKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('link', { name: 'Tasks' }).click();
      await row(first).getByText('PROCESSING', { exact: true }).waitFor();
      await row(second)
        .getByRole('button', { name: `Cancel task #${second}` })
        .waitFor();
      await screenshot('tasks-cancellable', ['Cancel', 'PROCESSING']);

      // From the list: confirmed, the row turns CANCELLED and its button goes; the API says so too.
      let asked = '';
      page.once('dialog', (dialog) => {
        asked = dialog.message();
        void dialog.accept();
      });
      await row(first)
        .getByRole('button', { name: `Cancel task #${first}` })
        .click();
      await row(first).getByText('CANCELLED', { exact: true }).waitFor();
      expect(asked).toContain(`Cancel batch task #${first}?`);
      expect(await row(first).getByRole('button').count()).toBe(0);
      expect(await statusOf(first)).toBe('CANCELLED');
      await screenshot('tasks-cancelled', ['CANCELLED']);

      // From its page: dismissing the confirmation keeps the task; one that ended while the question was open (the
      // API cancelled it) is refused with the service's 409 in words, and the page shows its status now.
      await page.getByRole('link', { name: `batch task #${second}`, exact: true }).click();
      await page.getByRole('heading', { name: `Task #${second}` }).waitFor();
      const button = page.getByRole('button', { name: `Cancel task #${second}` });
      page.once('dialog', (dialog) => void dialog.dismiss());
      await button.click();
      await button.waitFor();
      // The API's own cancel answering 200 shows that the dismissed question sent nothing.
      let meanwhile = 0;
      page.once('dialog', async (dialog) => {
        meanwhile = (await call(app.url, 'DELETE', `/v1/tasks/${second}`, { key: app.adminKey })).status;
        await dialog.accept();
      });
      await button.click();
      const refusal = page.getByRole('alert');
      await refusal.getByText('The task has ended (DONE, ERROR or CANCELLED) and cannot be cancelled.').waitFor();
      expect(meanwhile).toBe(200);
      expect(await refusal.innerText()).toContain('(code 1702)');
      await page.getByText('CANCELLED', { exact: true }).waitFor();
      expect(await button.count()).toBe(0);
      await screenshot('task-cancel-refused', ['cannot be cancelled', 'CANCELLED']);
      expect(failures).toEqual([]);
    } finally {
      for (const hold of held) hold.release();
    }
  }, 120_000);

  it('sends the pages with a self-only Content-Security-Policy, no framing and no referrer; Swagger UI still renders', async () => {
    const csp = (page: string) => {
      const own = `'self' ${new URL(app.config.publicBaseUrl).origin}`;
      return [
        `default-src ${own}`,
        `script-src ${own}`,
        `style-src ${own}${page === 'docs' ? " 'unsafe-inline'" : ''}`,
        `img-src ${own} data: blob:`,
        `connect-src ${own}`,
        `font-src ${own}`,
        `form-action ${own}`,
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
      ].join('; ');
    };
    const html = await (await fetch(`${app.url}/dashboard/`)).text();
    const script = /src="(\/dashboard\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    for (const [path, page] of [
      ['/dashboard/', 'dashboard'],
      ['/dashboard/tasks/42', 'dashboard'],
      [script, 'dashboard'],
      ['/docs', 'docs'],
      ['/docs/', 'docs'],
      ['/docs/swagger-ui-init.js', 'docs'],
    ]) {
      const answer = await fetch(`${app.url}${path}`);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-security-policy'), path).toBe(csp(page!));
      expect(answer.headers.get('x-frame-options'), path).toBe('DENY');
      expect(answer.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
    // The API's own answers are not pages.
    expect((await fetch(`${app.url}/health/live`)).headers.get('content-security-policy')).toBeNull();

    // Swagger UI under its policy: it renders its operations, and the console reports nothing blocked.
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    const blocked = cspReports(page);
    await page.goto(`${app.url}/docs`);
    await page.getByRole('button', { name: 'Authorize' }).waitFor();
    await page.locator('.opblock-summary-path', { hasText: '/v1/image/edit' }).first().waitFor();
    await screenshot('swagger-ui', ['Atelier']);
    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);

    // Framed by another page, the dashboard is refused by the browser: the frame never holds it.
    await page.setContent(`<iframe id="f" src="${app.url}/dashboard/"></iframe>`);
    await expect.poll(() => blocked.some((text) => /frame-ancestors/.test(text)), { timeout: 20_000 }).toBe(true);
    const framed = page.frames().find((frame) => frame !== page.mainFrame());
    expect(await framed?.locator('#root').count()).toBe(0);
  }, 120_000);
});

import { mkdirSync, mkdtempSync, renameSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { build, buildInputs, ENTRY_POINTS, isCurrent, STAMP_FILE } from '../scripts/build-stamp.mjs';

/**
 * `npm start`, `npm run keys`, `npm test` and `npm run bench` build only when an input of the build changed
 * (scripts/build.mjs --if-changed). Here over a small project in a temporary folder, with a compiler that
 * writes the entry points (or fails), so that every case runs in milliseconds.
 */
describe('the build stamp', () => {
  let root: string;
  let compiled: number;
  const write = (file: string, content: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), content);
  };
  const compile = () => {
    compiled += 1;
    for (const file of ENTRY_POINTS) write(file, `// build ${compiled}`);
  };
  const buildIfChanged = () => build({ root, ifChanged: true, compile });

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'atelier-build-'));
    compiled = 0;
    write('apps/api/src/main.ts', 'main');
    write('apps/api/src/main.spec.ts', 'a unit spec');
    write('libs/common/src/index.ts', 'lib');
    write('apps/dashboard/src/main.tsx', 'page');
    write('libs/image-pipeline/icc/ISO_Coated.icc', 'profile read at run time');
    for (const file of ['tsconfig.json', 'tsconfig.build.json', 'nest-cli.json', 'package-lock.json'])
      write(file, '{}');
    write('README.md', 'docs');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('reads the sources that are built, the compiler settings and the lockfile, nothing else', () => {
    expect(buildInputs(root)).toEqual([
      'apps/api/src/main.ts',
      'apps/dashboard/src/main.tsx',
      'libs/common/src/index.ts',
      'nest-cli.json',
      'package-lock.json',
      'tsconfig.build.json',
      'tsconfig.json',
    ]);
    const project = buildInputs(resolve(__dirname, '..'));
    expect(project).toEqual(
      expect.arrayContaining(['apps/api/src/main.ts', 'apps/worker/src/main.ts', 'package-lock.json']),
    );
    // The dashboard (Vite): its pages, styles, page template and settings, and the API document of its client.
    expect(project).toEqual(
      expect.arrayContaining([
        'apps/dashboard/src/main.tsx',
        'apps/dashboard/src/styles.css',
        'apps/dashboard/index.html',
        'apps/dashboard/vite.config.mts',
        'openapi.json',
      ]),
    );
    expect(
      project.filter(
        (file) => !/^(apps|libs)\/.*\.ts$|^[a-z.-]+\.json$|^apps\/dashboard\//.test(file) || file.endsWith('.spec.ts'),
      ),
    ).toEqual([]);
  });

  it('builds the first time, then only when an input changed, appeared or went away', () => {
    expect(buildIfChanged()).toBe(true);
    expect(isCurrent(root)).toBe(true);
    expect(buildIfChanged()).toBe(false);
    // Not inputs: a unit spec, a run-time file, the docs.
    write('apps/api/src/main.spec.ts', 'changed');
    write('libs/image-pipeline/icc/ISO_Coated.icc', 'changed');
    write('README.md', 'changed');
    write('apps/dashboard/notes.md', 'not built');
    expect(buildIfChanged()).toBe(false);
    expect(compiled).toBe(1);

    const changes: Array<[string, () => void]> = [
      ['a source changed', () => write('apps/api/src/main.ts', 'main, edited')],
      ['a dashboard page changed', () => write('apps/dashboard/src/main.tsx', 'page, edited')],
      ['a dashboard style changed', () => write('apps/dashboard/src/styles.css', 'body {}')],
      ['the API document changed', () => write('openapi.json', '{"paths": {}}')],
      ['a source added', () => write('libs/common/src/new.ts', 'new')],
      ['a source removed', () => unlinkSync(join(root, 'libs/common/src/new.ts'))],
      [
        'a source renamed',
        () => renameSync(join(root, 'libs/common/src/index.ts'), join(root, 'libs/common/src/lib.ts')),
      ],
      ['the compiler settings', () => write('tsconfig.build.json', '{"include": []}')],
      ['the lockfile', () => write('package-lock.json', '{"lockfileVersion": 3}')],
    ];
    for (const [change, make] of changes) {
      make();
      expect(isCurrent(root), change).toBe(false);
      expect(buildIfChanged(), change).toBe(true);
      expect(buildIfChanged(), change).toBe(false);
    }
    expect(compiled).toBe(1 + changes.length);
  });

  it('always builds when asked to (npm run build), and the stamp it writes counts', () => {
    expect(build({ root, ifChanged: false, compile })).toBe(true);
    expect(build({ root, ifChanged: false, compile })).toBe(true);
    expect(buildIfChanged()).toBe(false);
    expect(compiled).toBe(2);
  });

  it('leaves no stamp that says current after a failed build, so the next run builds again', () => {
    expect(buildIfChanged()).toBe(true);
    write('apps/api/src/main.ts', 'a type error');
    const failing = () => {
      write(ENTRY_POINTS[0], '// half written'); // tsc emits what it can before it reports errors
      throw new Error('nest build failed');
    };
    expect(() => build({ root, ifChanged: true, compile: failing })).toThrow('nest build failed');
    expect(isCurrent(root)).toBe(false);
    // The source is put back as it was at the last good build: still not current, the failed build changed dist/.
    write('apps/api/src/main.ts', 'main');
    expect(isCurrent(root)).toBe(false);
    expect(buildIfChanged()).toBe(true);
    expect(compiled).toBe(2);
  });

  it('is not current when dist/ was rebuilt by other means or an entry point is missing', () => {
    buildIfChanged();
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(root, ENTRY_POINTS[3]), later, later); // `npx nest build api` or start:dev wrote it
    expect(isCurrent(root)).toBe(false);
    buildIfChanged();
    expect(isCurrent(root)).toBe(true);
    unlinkSync(join(root, ENTRY_POINTS[1]));
    expect(isCurrent(root)).toBe(false);
    rmSync(join(root, STAMP_FILE));
    compile();
    expect(isCurrent(root)).toBe(false);
  });
});

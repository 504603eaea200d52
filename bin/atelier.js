#!/usr/bin/env node
// `npx atelier`: runs the built command line (apps/cli/src, compiled by `npm run build` into dist/).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const main = join(root, 'dist', 'apps', 'cli', 'src', 'main.js');
if (!existsSync(main)) {
  process.stderr.write(`atelier: the command line is not built yet. Run \`npm run build\` in ${root}, then try again.\n`);
  process.exitCode = 2;
} else {
  require(main);
}

import { runCli } from './cli';

// The one place the CLI reads its environment (ATELIER_URL, ATELIER_KEY, ATELIER_CONFIG, HOME).
const env = process.env;

void runCli(process.argv.slice(2), env, { out: process.stdout, err: process.stderr }, process.stdin).then((code) => {
  process.exitCode = code;
});

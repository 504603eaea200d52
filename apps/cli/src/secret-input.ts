import { usageError } from './exit-codes';

/** Standard input as the CLI reads a key from it: a pipe, a file, or a terminal. */
export interface KeyInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
}

/** More than any key: standard input is not read further (a file piped in by mistake). */
const MOST_BYTES = 64 * 1024;

/**
 * The key piped to standard input (`--key-stdin`): its first line, white space around it removed, so that
 * `printf %s "$KEY"`, `echo "$KEY"` and a file holding the key all work. Never from an argument, which `ps` and
 * the shell's history show.
 */
export async function readKeyFromStdin(input: KeyInput | undefined, err: NodeJS.WritableStream): Promise<string> {
  if (!input) throw usageError('--key-stdin: there is no standard input to read the key from.');
  // a person at a terminal is asked, without echo
  if (input.isTTY) return promptForKey(input, err);
  let text = '';
  for await (const chunk of input) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.includes('\n') || text.length > MOST_BYTES) break;
  }
  const key = text.split(/\r?\n/)[0].trim();
  if (!key) throw usageError('--key-stdin: standard input held no key (pipe it in: printf %s "$KEY" | atelier ...).');
  return key;
}

/**
 * Asks for the key on the terminal, without echoing what is typed (raw mode: Enter ends, Backspace erases,
 * Ctrl-C cancels: a usage error, exit 2). `prompt` goes to `to` (standard error), so that standard output stays clean.
 */
export function promptForKey(input: KeyInput, to: NodeJS.WritableStream | undefined): Promise<string> {
  const setRawMode = input.setRawMode?.bind(input);
  if (!input.isTTY || !setRawMode) {
    return Promise.reject(usageError('No terminal to ask for the key on: pipe it with --key-stdin.'));
  }
  to?.write('API key (not shown): ');
  setRawMode(true);
  input.resume();
  return new Promise<string>((resolve, reject) => {
    let typed = '';
    const finish = (error?: Error) => {
      input.off('data', onData);
      setRawMode(false);
      input.pause();
      to?.write('\n');
      if (error) reject(error);
      else if (!typed.trim()) reject(usageError('No key was typed.'));
      else resolve(typed.trim());
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (char === '\r' || char === '\n') return finish();
        if (char === '\u0003') return finish(usageError('Cancelled: no key was saved or used.'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else if (char >= ' ') typed += char;
      }
    };
    input.on('data', onData);
  });
}

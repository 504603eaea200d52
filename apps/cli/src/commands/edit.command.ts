import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { parseCommand, positional, stringOption } from '../args';
import { clientFor, type Context } from '../context';
import { saveDownload } from '../downloads';
import { editMembers, EDIT_OPTIONS } from '../edit-request';
import { EXIT, usageError, type ExitCode } from '../exit-codes';
import { printJson, printLine } from '../output';

export const EDIT_HELP = `atelier edit INPUT [options]

Edits one image and prints where the result is. INPUT is an http(s) URL, a storage reference
(storage://NAME/path/file.jpg) or a local file (sent with POST /v1/image/edit/upload).

  --operations JSON|@FILE   the request's operations, e.g. '{"resizing": {"width": 300}}' or @ops.json
  --width N|N%|auto  --height N|N%|auto  --fit crop|bounds|cover|canvas|outpaint
                            shortcuts laid over --operations (operations.resizing)
  --format jpeg|png|webp|avif|tiff  [--quality 1-100]
                            the output format (output.format)
  --output storage://NAME/path/   write the result to a storage (output.destination)
  --download FILE|DIR       save the result here (a folder keeps the result's name)
  --json                    print the API's answer as JSON only`;

interface EditAnswer {
  input: { format?: string; width?: number; height?: number };
  output: { tmp_url?: string; service_storage_uri?: string; format?: string; width?: number; height?: number };
}

/** The request: by URL or reference, or the upload's multipart form for a local file. */
function editCall(input: string, members: ReturnType<typeof editMembers>) {
  if (/^(https?|storage):\/\//i.test(input)) return { path: '/v1/image/edit', body: { input, ...members } };
  if (!existsSync(input) || !statSync(input).isFile()) {
    throw usageError(`"${input}" is neither a URL, a storage:// reference nor a file here.`);
  }
  const form = new FormData();
  form.append('file', new Blob([readFileSync(input)]), basename(input));
  form.append('data', JSON.stringify(members));
  return { path: '/v1/image/edit/upload', form };
}

export async function editCommand(context: Context, args: string[]): Promise<ExitCode> {
  const parsed = parseCommand(args, { ...EDIT_OPTIONS, download: { type: 'string' } });
  if (parsed.values.help) return help(context);
  const input = positional(parsed, 0, 'INPUT (a URL, storage reference or file)');
  if (parsed.positionals.length > 1) throw usageError('edit takes one INPUT; for several, use `atelier batch`.');
  const members = editMembers(parsed.values);
  const client = clientFor(context, parsed.values);
  const call = editCall(input, members);
  const answer = await client.request<EditAnswer>('POST', call.path, call);
  const download = stringOption(parsed.values, 'download');
  let saved: string | undefined;
  if (download !== undefined) {
    if (!answer.output.tmp_url) {
      context.err.write(`Not downloaded: the result was written to ${answer.output.service_storage_uri}.\n`);
    } else saved = await saveDownload(client, answer.output.tmp_url, download);
  }
  if (parsed.values.json) {
    printJson(context, saved === undefined ? answer : { ...answer, saved_to: saved });
    return EXIT.OK;
  }
  const { output, input: info } = answer;
  printLine(
    context,
    `Edited ${input} (${info.format} ${info.width}x${info.height}) -> ${output.format} ${output.width}x${output.height}`,
  );
  printLine(context, `Result: ${output.tmp_url || output.service_storage_uri}`);
  if (saved) printLine(context, `Saved to ${saved}`);
  return EXIT.OK;
}

function help(context: Context): ExitCode {
  printLine(context, EDIT_HELP);
  return EXIT.OK;
}

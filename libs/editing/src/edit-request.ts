import { ServiceException } from '@app/common';
import { absent, isPlainObject, Issues, memberOf, validateShape } from './dto/dto-validation';
import { EditRequestDto } from './dto/edit-request.dto';
import { checkLocation, INPUT_MAX_LENGTH } from './dto/edit-values';
import { isOutputFormat } from './dto/format-options.dto';
import { readOperations } from './dto/operations.resolver';
import { readOutput } from './dto/output.resolver';
import type { EditRequest } from './edit-request.model';
import { transparencyProblem } from './edit-rules';

export interface ParseEditOptions {
  /** `required` for edits by URL or storage reference; `absent` for uploads, where `input` is refused. */
  input: 'required' | 'absent';
  /** Top-level members the caller reads itself (a task's `webhook_url`): suggested for a misspelt member too. */
  otherMembers?: readonly string[];
}

function readInput(body: Record<string, unknown>, mode: ParseEditOptions['input'], issues: Issues): void {
  const present = !absent(body.input);
  if (mode === 'absent') {
    if (present) issues.add('input', 'input must not be given: the image is the uploaded file');
    return;
  }
  if (!present) {
    issues.add('input', 'input is required');
    return;
  }
  const problem = checkLocation(body.input, INPUT_MAX_LENGTH, 'refuse');
  if (problem !== undefined) issues.add('input', `input ${problem}`);
}

/**
 * Across operations and output: a transparent background against a format the client names. Read from the raw
 * members, so that the conflict is reported even when either side has problems of its own; without a format the
 * planner checks the one it picks.
 */
function checkAcross(body: Record<string, unknown>, issues: Issues): void {
  const colour = memberOf(memberOf(body.operations, 'background'), 'color');
  const format = memberOf(body.output, 'format');
  const formatType = isPlainObject(format) ? format.type : format;
  if (colour !== 'transparent' || !isOutputFormat(formatType)) return;
  const problem = transparencyProblem(formatType, true);
  if (problem) issues.add('operations.background.color', problem);
}

/**
 * Validates an edit request body and returns it normalised. Every problem of the body is answered together in
 * one 422 (`ServiceException.validation`) whose details map dotted paths (`operations.resizing.width`) to
 * messages; a body that is not an object is 422 at `body`.
 */
export function parseEditRequest(
  body: unknown,
  options: ParseEditOptions & { input: 'required' },
): EditRequest & { input: string };
export function parseEditRequest(body: unknown, options: ParseEditOptions): EditRequest;
export function parseEditRequest(body: unknown, options: ParseEditOptions): EditRequest {
  if (!isPlainObject(body)) throw ServiceException.validation({ body: ['must be a JSON object'] });
  const issues = new Issues();
  validateShape(EditRequestDto, body, '', issues, { alsoKnown: options.otherMembers });
  readInput(body, options.input, issues);
  const operations = readOperations(body.operations, 'operations', issues);
  const output = readOutput(body.output, 'output', issues);
  checkAcross(body, issues);
  issues.throwIfAny();
  const request = { operations, output: output ?? {} };
  return options.input === 'required' ? { input: body.input as string, ...request } : request;
}

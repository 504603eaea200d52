// The request rules of the API, read from the committed openapi.json (the document the client is generated from):
// the playground's and the storage forms' fields, values, ranges and conflicts come from it, not from a copy.
import spec from '../../../openapi.json';

export interface Schema {
  type?: string;
  $ref?: string;
  allOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: (string | number)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  pattern?: string;
  description?: string;
  example?: unknown;
  writeOnly?: boolean;
  nullable?: boolean;
  additionalProperties?: boolean | Schema;
}

const schemas = (spec as unknown as { components: { schemas: Record<string, Schema> } }).components.schemas;

/** A named component schema (`OperationsDto`, `S3ParametersDto`, ...). */
export function component(name: string): Schema {
  const schema = schemas[name];
  if (!schema) throw new Error(`openapi.json has no schema ${name}`);
  return schema;
}

/** Follows `$ref` and a lone `allOf` (how Nest's Swagger writes a described reference), keeping the description. */
export function resolve(schema: Schema): Schema {
  if (schema.$ref) return resolve({ ...component(schema.$ref.split('/').pop()!), description: schema.description });
  if (schema.allOf?.length === 1) {
    const inner = resolve(schema.allOf[0]);
    return { ...inner, description: schema.description ?? inner.description };
  }
  return schema;
}

/** The name of a referenced schema, for a variant's label. */
export function refName(schema: Schema): string | undefined {
  return schema.$ref?.split('/').pop()?.replace(/Dto$/, '');
}

/** Drops unset members (undefined, '', empty objects and arrays): what is sent is only what the user chose. */
export function prune(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? value : undefined;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .map(([k, v]) => [k, prune(v)] as const)
      .filter(([, v]) => v !== undefined);
    return entries.length ? Object.fromEntries(entries) : undefined;
  }
  return value === '' ? undefined : value;
}

/** What the API would refuse in a value, by dotted path: ranges, lengths, enums, required members. */
export function check(schema: Schema, value: unknown, path: string, out: Record<string, string[]> = {}) {
  const s = resolve(schema);
  const add = (message: string) => (out[path] ??= []).push(message);
  if (value === undefined || value === null) return out;
  if (s.oneOf) {
    // The value's own form decides which variant's rules apply (a number: the integer one; a string: the others).
    const results = s.oneOf.filter((v) => fits(resolve(v), value)).map((v) => check(v, value, path, {}));
    if (results.length === 0) add('does not have one of the accepted forms');
    else if (!results.some((r) => Object.keys(r).length === 0)) {
      for (const r of results) for (const [p, m] of Object.entries(r)) (out[p] ??= []).push(...m);
    }
    return out;
  }
  if (s.enum && !s.enum.includes(value as string)) add(`must be one of ${s.enum.join(', ')}`);
  if (typeof value === 'number') {
    if (s.type === 'integer' && !Number.isInteger(value)) add('must be a whole number');
    if (s.minimum !== undefined && value < s.minimum) add(`must be at least ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) add(`must be at most ${s.maximum}`);
  }
  if (typeof value === 'string') {
    if (s.minLength !== undefined && value.length < s.minLength) add(`must have at least ${s.minLength} characters`);
    if (s.maxLength !== undefined && value.length > s.maxLength) add(`must have at most ${s.maxLength} characters`);
    if (s.pattern && !new RegExp(s.pattern).test(value)) add(`does not have the expected form (${s.pattern})`);
  }
  if (s.properties && typeof value === 'object' && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    for (const name of s.required ?? []) {
      if (object[name] === undefined) (out[path ? `${path}.${name}` : name] ??= []).push('is required');
    }
    for (const [name, member] of Object.entries(s.properties)) {
      check(member, object[name], path ? `${path}.${name}` : name, out);
    }
  }
  return out;
}

/**
 * The conflicts the document states ("Cannot be combined with ..."), for the members that are set: shown before
 * sending. Returns one sentence per conflict, naming the member.
 */
export function conflicts(schema: Schema, value: unknown, path = ''): string[] {
  const s = resolve(schema);
  if (!s.properties || !value || typeof value !== 'object') return [];
  const found: string[] = [];
  for (const [name, member] of Object.entries(s.properties)) {
    const set = (value as Record<string, unknown>)[name];
    if (set === undefined) continue;
    const here = path ? `${path}.${name}` : name;
    const description = resolve(member).description ?? member.description ?? '';
    for (const sentence of description.match(/[^.]*(?:cannot be combined|not together with|excludes)[^.]*\./gi) ?? []) {
      found.push(`${here}: ${sentence.trim()}`);
    }
    found.push(...conflicts(member, set, here));
  }
  return found;
}

/** Whether a value has the JSON type of a schema. */
function fits(schema: Schema, value: unknown): boolean {
  switch (schema.type) {
    case 'integer':
    case 'number':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && !Array.isArray(value);
    default:
      return schema.properties ? typeof value === 'object' && !Array.isArray(value) : true;
  }
}

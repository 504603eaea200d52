import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

/**
 * A fake OpenTelemetry collector on 127.0.0.1, faithful to OTLP/HTTP with protobuf (opentelemetry-proto
 * 1.x): `POST /v1/traces` with `Content-Type: application/x-protobuf` and an ExportTraceServiceRequest body,
 * answered 200 with an empty ExportTraceServiceResponse. Anything else is refused as a collector would
 * (404, 415). The body is decoded here from the wire format and the message definitions, independently of
 * the exporter's own encoder.
 */
export interface OtlpCollector {
  /** `http://127.0.0.1:<port>`: OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  endpoint: string;
  spans: ExportedSpan[];
  /** The headers of every export request, in order. */
  requests: IncomingHttpHeaders[];
  /** Requests it refused (a wrong path or content type): none expected. */
  refused: string[];
  close(): Promise<void>;
}

export type AttributeValue = string | number | boolean | AttributeValue[];

export interface ExportedSpan {
  /** The `service.name` of the resource it came with. */
  service: string;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, AttributeValue>;
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  startNanos: bigint;
  endNanos: bigint;
}

export const SpanKinds = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

/** @param port 0 (default): any free port; 4318: where the OpenTelemetry SDKs export when told nothing. */
export async function startOtlpCollector(port = 0): Promise<OtlpCollector> {
  const spans: ExportedSpan[] = [];
  const requests: IncomingHttpHeaders[] = [];
  const refused: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        refused.push(`${request.method} ${request.url}`);
        response.writeHead(404).end();
        return;
      }
      if (request.headers['content-type'] !== 'application/x-protobuf') {
        refused.push(`content-type ${request.headers['content-type']}`);
        response.writeHead(415).end();
        return;
      }
      requests.push(request.headers);
      spans.push(...decodeExportRequest(Buffer.concat(chunks)));
      // An empty ExportTraceServiceResponse: no partial_success.
      response.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': '0' }).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new Error(`the fake collector cannot listen on port ${port}: ${error}`)));
    server.listen(port, '127.0.0.1', resolve);
  });
  const { port: listening } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${listening}`,
    spans,
    requests,
    refused,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Fields of one protobuf message by number, in order: varints as bigint, length-delimited as bytes. */
type Fields = Map<number, (bigint | Buffer)[]>;

function readVarint(buffer: Buffer, at: { offset: number }): bigint {
  let result = 0n;
  for (let shift = 0n; ; shift += 7n) {
    const byte = buffer[at.offset++];
    if (byte === undefined) throw new Error('truncated varint');
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return result;
  }
}

/** Splits a message into its fields (wire types 0, 1, 2 and 5; groups are not used by OTLP). */
function fieldsOf(buffer: Buffer): Fields {
  const fields: Fields = new Map();
  const at = { offset: 0 };
  while (at.offset < buffer.length) {
    const tag = Number(readVarint(buffer, at));
    const [number, wire] = [tag >>> 3, tag & 7];
    let value: bigint | Buffer;
    if (wire === 0) value = readVarint(buffer, at);
    else if (wire === 1 || wire === 5) {
      const size = wire === 1 ? 8 : 4;
      value = buffer.subarray(at.offset, at.offset + size);
      at.offset += size;
    } else if (wire === 2) {
      const length = Number(readVarint(buffer, at));
      value = buffer.subarray(at.offset, at.offset + length);
      at.offset += length;
    } else throw new Error(`unexpected wire type ${wire}`);
    fields.set(number, [...(fields.get(number) ?? []), value]);
  }
  return fields;
}

const bytesOf = (fields: Fields, n: number): Buffer[] => (fields.get(n) ?? []) as Buffer[];
const firstBytes = (fields: Fields, n: number): Buffer => bytesOf(fields, n)[0] ?? Buffer.alloc(0);
const text = (fields: Fields, n: number): string => firstBytes(fields, n).toString('utf8');
const varint = (fields: Fields, n: number): bigint => ((fields.get(n) ?? [])[0] as bigint | undefined) ?? 0n;

/** AnyValue: string 1, bool 2, int 3, double 4, array 5 (ArrayValue.values 1). */
function anyValue(buffer: Buffer): AttributeValue {
  const fields = fieldsOf(buffer);
  if (fields.has(1)) return text(fields, 1);
  if (fields.has(2)) return varint(fields, 2) !== 0n;
  if (fields.has(3)) return Number(BigInt.asIntN(64, varint(fields, 3)));
  if (fields.has(4)) return firstBytes(fields, 4).readDoubleLE(0);
  if (fields.has(5)) return bytesOf(fieldsOf(firstBytes(fields, 5)), 1).map(anyValue);
  return '';
}

/** repeated KeyValue (key 1, value 2). */
function attributesOf(keyValues: Buffer[]): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {};
  for (const entry of keyValues) {
    const fields = fieldsOf(entry);
    attributes[text(fields, 1)] = anyValue(firstBytes(fields, 2));
  }
  return attributes;
}

/**
 * ExportTraceServiceRequest.resource_spans 1 -> ResourceSpans { resource 1 { attributes 1 }, scope_spans 2 }
 * -> ScopeSpans { spans 2 } -> Span { trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6,
 * start_time_unix_nano 7, end_time_unix_nano 8, attributes 9, status 15 { code 3 } }.
 */
export function decodeExportRequest(body: Buffer): ExportedSpan[] {
  const spans: ExportedSpan[] = [];
  for (const resourceSpans of bytesOf(fieldsOf(body), 1)) {
    const resource = fieldsOf(resourceSpans);
    const service = String(attributesOf(bytesOf(fieldsOf(firstBytes(resource, 1)), 1))['service.name'] ?? '');
    for (const scopeSpans of bytesOf(resource, 2)) {
      for (const encoded of bytesOf(fieldsOf(scopeSpans), 2)) {
        const span = fieldsOf(encoded);
        spans.push({
          service,
          traceId: firstBytes(span, 1).toString('hex'),
          spanId: firstBytes(span, 2).toString('hex'),
          parentSpanId: firstBytes(span, 4).toString('hex'),
          name: text(span, 5),
          kind: Number(varint(span, 6)),
          startNanos: firstBytes(span, 7).readBigUInt64LE(0),
          endNanos: firstBytes(span, 8).readBigUInt64LE(0),
          attributes: attributesOf(bytesOf(span, 9)),
          statusCode: Number(varint(fieldsOf(firstBytes(span, 15)), 3)),
        });
      }
    }
  }
  return spans;
}

import { useEffect, useId, useState } from 'react';
import { ApiError, unwrap } from '../api';
import { imageEditEdit, imageEditUpload, storageList } from '../client/sdk.gen';
import type { EditResponseDto, StorageResponseDto } from '../client/types.gen';
import { check, component, conflicts, prune, resolve } from '../schema';
import { SchemaForm } from '../SchemaForm';
import { CopyButton, ErrorBox } from '../ui';

type Source = 'url' | 'upload' | 'storage';

/** Single-quoted for a POSIX shell. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/** A curl command that sends exactly this request; the key is read from ATELIER_KEY, never written out. */
export function curlCommand(origin: string, source: Source, body: Record<string, unknown>, fileName?: string): string {
  const auth = `-H "Authorization: Bearer \${ATELIER_KEY:?export ATELIER_KEY=<your key> first}"`;
  if (source === 'upload') {
    const { input: _input, ...data } = body;
    return [
      `curl -sS -X POST ${quote(`${origin}/v1/image/edit/upload`)}`,
      auth,
      `-F ${quote(`file=@${fileName ?? 'image.png'}`)}`,
      `-F ${quote(`data=${JSON.stringify(data)}`)}`,
    ].join(' \\\n  ');
  }
  return [
    `curl -sS -X POST ${quote(`${origin}/v1/image/edit`)}`,
    auth,
    `-H 'Content-Type: application/json'`,
    `-d ${quote(JSON.stringify(body))}`,
  ].join(' \\\n  ');
}

export function PlaygroundPage({ canUseStorages }: { canUseStorages: boolean }) {
  const [source, setSource] = useState<Source>('url');
  const [url, setUrl] = useState(`${window.location.origin}/samples/bottle.png`);
  const [file, setFile] = useState<File>();
  const [storages, setStorages] = useState<StorageResponseDto[]>([]);
  const [storage, setStorage] = useState('');
  const [path, setPath] = useState('');
  const [operations, setOperations] = useState<unknown>();
  const [output, setOutput] = useState<unknown>();
  const [result, setResult] = useState<EditResponseDto>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [before, setBefore] = useState<string>();
  const [split, setSplit] = useState(50);
  const ids = { url: useId(), file: useId(), storage: useId(), path: useId(), split: useId() };

  useEffect(() => {
    if (canUseStorages)
      unwrap(storageList())
        .then(setStorages)
        .catch(() => undefined);
  }, [canUseStorages]);
  useEffect(() => {
    if (source === 'upload' && file) {
      const objectUrl = URL.createObjectURL(file);
      setBefore(objectUrl);
      return () => URL.revokeObjectURL(objectUrl);
    }
    // The page's Content-Security-Policy loads images from the service's own origin only: an outside URL has no
    // "before" view (the service fetches it; the browser does not).
    setBefore(source === 'url' && sameOrigin(url) ? url : undefined);
    return undefined;
  }, [source, file, url]);

  const operationsSchema = component('OperationsDto');
  const outputSchema = resolve(component('EditRequestDto').properties!.output);
  const input = source === 'url' ? url : source === 'storage' ? `storage://${storage}/${path.replace(/^\/+/, '')}` : '';
  const body = prune({ input: source === 'upload' ? undefined : input, operations, output }) as Record<string, unknown>;
  const local = check(operationsSchema, prune(operations), 'operations');
  const warnings = conflicts(operationsSchema, prune(operations));
  const apiFields = error instanceof ApiError ? error.fields : {};
  const errors = { ...local, ...apiFields };
  const ready =
    Object.keys(local).length === 0 &&
    (source === 'url' ? url !== '' : source === 'upload' ? !!file : storage !== '' && path !== '');

  async function run(event: React.FormEvent) {
    event.preventDefault();
    setError(undefined);
    setResult(undefined);
    setBusy(true);
    try {
      const answer =
        source === 'upload'
          ? await unwrap(
              imageEditUpload({ body: { file: file!, data: JSON.stringify(prune({ operations, output }) ?? {}) } }),
            )
          : await unwrap(imageEditEdit({ body: body as never }));
      setResult(answer);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  const after = result?.output.tmp_url;
  return (
    <section aria-labelledby="play-title">
      <h1 id="play-title">Playground</h1>
      <form className="card" onSubmit={run} noValidate>
        <fieldset className="field">
          <legend>Image</legend>
          <div className="choices">
            {(['url', 'upload', ...(canUseStorages ? ['storage'] : [])] as Source[]).map((s) => (
              <label key={s} className="choice">
                <input type="radio" name="source" checked={source === s} onChange={() => setSource(s)} />
                {s === 'url' ? 'By URL' : s === 'upload' ? 'Upload' : 'From a storage'}
              </label>
            ))}
          </div>
        </fieldset>
        {source === 'url' ? (
          <div className="field">
            <label htmlFor={ids.url}>Image URL</label>
            <input id={ids.url} type="url" value={url} onChange={(e) => setUrl(e.target.value)} />
          </div>
        ) : source === 'upload' ? (
          <div className="field">
            <label htmlFor={ids.file}>Image file</label>
            <input id={ids.file} type="file" accept="image/*" onChange={(e) => setFile(e.target.files?.[0])} />
          </div>
        ) : (
          <div className="row">
            <div className="field">
              <label htmlFor={ids.storage}>Storage</label>
              <select id={ids.storage} value={storage} onChange={(e) => setStorage(e.target.value)}>
                <option value="">(choose)</option>
                {storages.map((s) => (
                  <option key={s.id}>{s.name}</option>
                ))}
              </select>
            </div>
            <div className="field grow">
              <label htmlFor={ids.path}>Path of the file</label>
              <input id={ids.path} value={path} onChange={(e) => setPath(e.target.value)} placeholder="raw/shoe.jpg" />
            </div>
          </div>
        )}
        <h2>Operations</h2>
        <SchemaForm
          schema={operationsSchema}
          value={operations}
          onChange={setOperations}
          path="operations"
          label="operations"
          errors={errors}
        />
        <details className="group">
          <summary>Output (format, destination)</summary>
          <SchemaForm
            schema={outputSchema}
            value={output}
            onChange={setOutput}
            path="output"
            label="output"
            errors={errors}
            depth={1}
          />
        </details>
        {warnings.length ? (
          <div className="warning" role="note">
            <p>Before sending, note what the API says about these combinations:</p>
            <ul>
              {warnings.map((w) => (
                <li key={w}>{w}</li>
              ))}
            </ul>
          </div>
        ) : null}
        {Object.keys(local).length ? (
          <p className="field-error">Fix the fields marked above before running: the API would refuse them.</p>
        ) : null}
        <div className="row">
          <button type="submit" className="primary" disabled={!ready || busy}>
            {busy ? 'Running…' : 'Run edit'}
          </button>
          <CopyButton text={curlCommand(window.location.origin, source, body, file?.name)} label="Copy as curl" />
        </div>
        <details className="group">
          <summary>The request as curl</summary>
          <pre className="code">{curlCommand(window.location.origin, source, body, file?.name)}</pre>
        </details>
      </form>
      <ErrorBox error={error} />
      {result ? (
        <div className="card" aria-live="polite">
          <h2>Result</h2>
          <p>
            {result.input.width}×{result.input.height} {result.input.format} → {result.output.width}×
            {result.output.height} {result.output.format}
          </p>
          {result.notices?.map((n) => (
            <p key={n.code} className="warning">
              {n.code}: {n.message}
            </p>
          ))}
          {after ? (
            <>
              {before ? (
                <div className="compare" style={{ ['--split' as string]: `${split}%` }}>
                  <img src={before} alt="Before" />
                  <img src={after} alt="After" className="compare-after" />
                  <span className="compare-line" aria-hidden="true" />
                  <span className="compare-label compare-label-before" aria-hidden="true">
                    Before
                  </span>
                  <span className="compare-label compare-label-after" aria-hidden="true">
                    After
                  </span>
                </div>
              ) : (
                <img className="result" src={after} alt="After" />
              )}
              {before ? (
                <div className="field">
                  <label htmlFor={ids.split}>Before / after</label>
                  <input
                    id={ids.split}
                    type="range"
                    min={0}
                    max={100}
                    value={split}
                    onChange={(e) => setSplit(Number(e.target.value))}
                  />
                </div>
              ) : null}
              <p>
                <a className="button" href={after} download>
                  Download result
                </a>
              </p>
            </>
          ) : (
            <p>
              Written to <code className="wrap">{result.output.service_storage_uri ?? result.output.object_uri}</code>
            </p>
          )}
        </div>
      ) : null}
    </section>
  );
}

/** Whether `url` is an http(s) URL of the page's own origin. */
function sameOrigin(url: string): boolean {
  if (!/^https?:\/\//.test(url)) return false;
  try {
    return new URL(url).origin === window.location.origin;
  } catch {
    return false;
  }
}

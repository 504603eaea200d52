import { useCallback, useEffect, useId, useState } from 'react';
import { ApiError, unwrap } from '../api';
import { storageCreate, storageList, storageRemove, storageTypes, storageUpdate } from '../client/sdk.gen';
import type { StorageResponseDto } from '../client/types.gen';
import { check, component, prune } from '../schema';
import { SchemaForm } from '../SchemaForm';
import { ErrorBox } from '../ui';

type StorageType = StorageResponseDto['type'];

/**
 * The parameters schema of a type in openapi.json, named after it as the service's registry names it
 * (libs/storage/src/types: `web_folder` → `WebFolderParametersDto`): a new type needs no change here.
 */
function parametersSchema(type: string): string {
  const words = type.split('_').map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return `${words.join('')}ParametersDto`;
}

/** The API's field paths are `parameters.x`; the form's are `x` under the `parameters` group. */
function fieldErrors(error: unknown): Record<string, string[]> {
  return error instanceof ApiError ? error.fields : {};
}

function StorageForm(props: {
  title: string;
  types: string[];
  initial?: StorageResponseDto;
  onDone: (message: string) => void;
  onCancel?: () => void;
}) {
  const editing = props.initial;
  const [name, setName] = useState(editing?.name ?? '');
  const [type, setType] = useState<string>(editing?.type ?? props.types[0] ?? 's3');
  const [parameters, setParameters] = useState<unknown>(editing ? undefined : undefined);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  // What is missing is said once the user tries to send, not on an empty form.
  const [tried, setTried] = useState(false);
  const nameId = useId();
  const typeId = useId();
  const schema = component(parametersSchema(type));
  const local = editing || !tried ? {} : check(schema, prune(parameters) ?? {}, 'parameters');
  const errors = { ...local, ...fieldErrors(error) };

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setError(undefined);
    setTried(true);
    if (!editing && Object.keys(check(schema, prune(parameters) ?? {}, 'parameters')).length) return;
    setBusy(true);
    try {
      const params = prune(parameters) as never;
      if (editing) {
        const body = {
          ...(name !== editing.name ? { name } : {}),
          ...(type !== editing.type ? { type: type as StorageType } : {}),
          ...(params ? { parameters: params } : {}),
        };
        await unwrap(storageUpdate({ path: { storage_id: editing.id }, body }));
        props.onDone(`Saved "${name}"; the service reached it with the new settings.`);
      } else {
        await unwrap(storageCreate({ body: { name, type: type as StorageType, parameters: params ?? ({} as never) } }));
        props.onDone(`Connected "${name}": the service reached it.`);
        setName('');
        setParameters(undefined);
        setTried(false);
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="card" onSubmit={submit} noValidate>
      <h2>{props.title}</h2>
      <ErrorBox error={error} />
      <div className="field">
        <label htmlFor={nameId}>Name (used as storage://name/…)</label>
        <input id={nameId} required value={name} onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={typeId}>Type</label>
        <select
          id={typeId}
          value={type}
          onChange={(e) => {
            setType(e.target.value);
            setParameters(undefined);
          }}
        >
          {props.types.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      {editing ? (
        <p className="hint">
          Fill in only what changes: the other parameters stay. Secrets are write-only: they are never shown, and an
          empty secret field keeps the current one.
        </p>
      ) : null}
      <SchemaForm
        key={type}
        schema={{ ...schema, description: undefined }}
        value={parameters}
        onChange={setParameters}
        path="parameters"
        label="parameters"
        errors={errors}
      />
      <div className="row">
        <button type="submit" className="primary" disabled={busy || !name}>
          {busy ? 'Connecting…' : editing ? 'Save and test' : 'Connect storage'}
        </button>
        {props.onCancel ? (
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}

export function StoragesPage() {
  const [types, setTypes] = useState<string[]>([]);
  const [storages, setStorages] = useState<StorageResponseDto[]>([]);
  const [error, setError] = useState<unknown>();
  const [message, setMessage] = useState('');
  const [editing, setEditing] = useState<StorageResponseDto>();

  const load = useCallback(async () => {
    try {
      setStorages(await unwrap(storageList()));
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => {
    void load();
    unwrap(storageTypes())
      .then((t) => setTypes(Array.isArray(t) ? (t as string[]) : Object.keys(t ?? {})))
      .catch(setError);
  }, [load]);

  async function test(storage: StorageResponseDto) {
    setError(undefined);
    setMessage('');
    try {
      // A PATCH with parameters (here none changed) is proven reachable before it is saved: the connection test.
      await unwrap(storageUpdate({ path: { storage_id: storage.id }, body: { parameters: {} as never } }));
      setMessage(`"${storage.name}" is reachable.`);
    } catch (e) {
      setError(e);
    }
  }

  async function remove(storage: StorageResponseDto) {
    if (!window.confirm(`Delete the storage "${storage.name}"? Its files stay in the bucket.`)) return;
    setError(undefined);
    try {
      await unwrap(storageRemove({ path: { storage_id: storage.id } }) as never);
      setMessage(`Deleted "${storage.name}".`);
      await load();
    } catch (e) {
      setError(e);
    }
  }

  const done = async (text: string) => {
    setMessage(text);
    setEditing(undefined);
    await load();
  };

  return (
    <section aria-labelledby="storages-title">
      <h1 id="storages-title">Storages</h1>
      <ErrorBox error={error} />
      {message ? (
        <p className="ok" role="status">
          {message}
        </p>
      ) : null}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Where</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {storages.length === 0 ? (
              <tr>
                <td colSpan={4}>No storage yet: connect one below.</td>
              </tr>
            ) : null}
            {storages.map((s) => (
              <tr key={s.id}>
                <td>{s.name}</td>
                <td>{s.type}</td>
                <td>
                  <code className="wrap">
                    {String(s.parameters.base_url ?? s.parameters.bucket ?? '')}
                    {s.parameters.path ? `/${String(s.parameters.path)}` : ''}
                  </code>
                </td>
                <td className="actions">
                  <button type="button" aria-label={`Test the connection of ${s.name}`} onClick={() => test(s)}>
                    Test
                  </button>
                  <button type="button" aria-label={`Edit ${s.name}`} onClick={() => setEditing(s)}>
                    Edit
                  </button>
                  <button type="button" className="danger" aria-label={`Delete ${s.name}`} onClick={() => remove(s)}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {editing ? (
        <StorageForm
          key={editing.id}
          title={`Edit "${editing.name}"`}
          types={types}
          initial={editing}
          onDone={done}
          onCancel={() => setEditing(undefined)}
        />
      ) : types.length ? (
        <StorageForm title="Connect a storage" types={types} onDone={done} />
      ) : null}
    </section>
  );
}

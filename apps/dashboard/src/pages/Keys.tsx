import { useCallback, useEffect, useId, useState } from 'react';
import { unwrap, type Scope } from '../api';
import { keysCreate, keysList, keysRevoke, keysUpdate } from '../client/sdk.gen';
import type { CreatedKeyResponseDto, KeyResponseDto } from '../client/types.gen';
import { CopyButton, ErrorBox } from '../ui';

export const SCOPES: Scope[] = ['image_editing', 'image_generation', 'storage', 'admin'];

function ScopeChoices({ value, onChange, legend }: { value: Scope[]; onChange: (s: Scope[]) => void; legend: string }) {
  return (
    <fieldset className="field">
      <legend>{legend}</legend>
      <div className="choices">
        {SCOPES.map((scope) => (
          <label key={scope} className="choice">
            <input
              type="checkbox"
              checked={value.includes(scope)}
              onChange={(e) => onChange(e.target.checked ? [...value, scope] : value.filter((s) => s !== scope))}
            />
            {scope}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function KeysPage() {
  const [keys, setKeys] = useState<KeyResponseDto[]>([]);
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<CreatedKeyResponseDto>();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['image_editing']);
  const [quota, setQuota] = useState('');
  const [editing, setEditing] = useState<{ id: number; scopes: Scope[] }>();
  const nameId = useId();
  const quotaId = useId();

  const load = useCallback(async () => {
    try {
      setKeys(await unwrap(keysList()));
    } catch (e) {
      setError(e);
    }
  }, []);
  useEffect(() => void load(), [load]);

  async function create(event: React.FormEvent) {
    event.preventDefault();
    setError(undefined);
    try {
      const body = { name, scopes, ...(quota === '' ? {} : { quota: Number(quota) }) };
      setCreated(await unwrap(keysCreate({ body })));
      setName('');
      setQuota('');
      await load();
    } catch (e) {
      setError(e);
    }
  }

  async function saveScopes() {
    if (!editing) return;
    setError(undefined);
    try {
      await unwrap(keysUpdate({ path: { id: editing.id }, body: { scopes: editing.scopes } }));
      setEditing(undefined);
      await load();
    } catch (e) {
      setError(e);
    }
  }

  async function revoke(key: KeyResponseDto) {
    if (!window.confirm(`Revoke the key "${key.name}" (${key.prefix}…)? Clients using it stop working at once.`))
      return;
    setError(undefined);
    try {
      await unwrap(keysRevoke({ path: { id: key.id } }) as never);
      await load();
    } catch (e) {
      setError(e);
    }
  }

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <ErrorBox error={error} />
      {created?.key ? (
        <div className="callout" role="status">
          <h2>New key "{created.name}"</h2>
          <p>Copy it now: it is shown only this once and cannot be read again.</p>
          <p className="secret">
            <code data-testid="new-key">{created.key}</code>
          </p>
          <CopyButton text={created.key} label="Copy the key" />{' '}
          <button type="button" onClick={() => setCreated(undefined)}>
            I have saved it
          </button>
        </div>
      ) : null}
      <form className="card" onSubmit={create}>
        <h2>Create an API key</h2>
        <div className="field">
          <label htmlFor={nameId}>Name</label>
          <input id={nameId} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <ScopeChoices legend="Scopes" value={scopes} onChange={setScopes} />
        <div className="field">
          <label htmlFor={quotaId}>Quota (calls in all; empty: unlimited)</label>
          <input id={quotaId} type="number" min={0} step={1} value={quota} onChange={(e) => setQuota(e.target.value)} />
        </div>
        <button type="submit" className="primary" disabled={!name || scopes.length === 0}>
          Create API key
        </button>
      </form>
      <h2>Keys of the account</h2>
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">Calls / quota</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.id} className={key.revoked ? 'revoked' : undefined}>
                <td>{key.name}</td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>
                  {editing?.id === key.id ? (
                    <ScopeChoices
                      legend={`Scopes of ${key.name}`}
                      value={editing.scopes}
                      onChange={(s) => setEditing({ id: key.id, scopes: s })}
                    />
                  ) : (
                    key.scopes.join(', ')
                  )}
                </td>
                <td>
                  {key.calls_used} / {key.quota ?? '∞'}
                </td>
                <td className="actions">
                  {key.revoked ? (
                    'revoked'
                  ) : editing?.id === key.id ? (
                    <>
                      <button type="button" className="primary" onClick={saveScopes} disabled={!editing.scopes.length}>
                        Save scopes
                      </button>
                      <button type="button" onClick={() => setEditing(undefined)}>
                        Cancel
                      </button>
                    </>
                  ) : (
                    <>
                      <button
                        type="button"
                        aria-label={`Edit scopes of ${key.name}`}
                        onClick={() => setEditing({ id: key.id, scopes: [...key.scopes] })}
                      >
                        Edit scopes
                      </button>
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Revoke ${key.name}`}
                        onClick={() => revoke(key)}
                      >
                        Revoke
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

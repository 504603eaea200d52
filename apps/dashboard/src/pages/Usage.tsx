import { useEffect, useState } from 'react';
import { whoAmI, type Usage } from '../api';
import { ErrorBox } from '../ui';

export function UsagePage() {
  const [usage, setUsage] = useState<Usage>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    whoAmI().then(setUsage).catch(setError);
  }, []);
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <ErrorBox error={error} />
      {usage ? (
        <>
          <dl className="stats">
            <div className="card">
              <dt>Calls used</dt>
              <dd>{usage.calls_used}</dd>
            </div>
            <div className="card">
              <dt>Quota</dt>
              <dd>{usage.quota ?? 'unlimited'}</dd>
            </div>
            <div className="card">
              <dt>Calls left</dt>
              <dd>{usage.calls_left ?? 'unlimited'}</dd>
            </div>
            {(['per_second', 'per_minute'] as const).map((window) => (
              <div className="card" key={window}>
                <dt>Rate limit {window.replace('_', ' ')}</dt>
                <dd>
                  {usage.rate_limit[window].remaining} of {usage.rate_limit[window].limit} left
                  <span className="muted small"> (resets in {usage.rate_limit[window].reset_seconds} s)</span>
                </dd>
              </div>
            ))}
          </dl>
          <p className="muted">
            Key "{usage.key.name}"{usage.key.prefix ? ` (${usage.key.prefix}…)` : ''}, scopes{' '}
            {usage.key.scopes.join(', ')}.
          </p>
          <h2>Recent errors</h2>
          {usage.recent_errors.length === 0 ? (
            <p>No failed task item recently.</p>
          ) : (
            <ul>
              {usage.recent_errors.map((e, i) => (
                <li key={i}>
                  <a href={`#/tasks/${e.task_id}`}>Task #{e.task_id}</a> <code className="wrap">{e.input}</code>:{' '}
                  {e.error} <span className="muted small">{new Date(e.created_at).toLocaleString()}</span>
                </li>
              ))}
            </ul>
          )}
        </>
      ) : null}
    </section>
  );
}

// Shared pieces: an error box with the API's message and field details, a copy button, a progress bar.
import { useState } from 'react';
import { ApiError } from './api';

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : String(error);
  const fields = error instanceof ApiError ? Object.entries(error.fields) : [];
  const code = error instanceof ApiError ? error.body?.error_code : undefined;
  return (
    <div className="error-box" role="alert">
      <p>
        <strong>{message}</strong>
        {code ? <span className="muted"> (code {code})</span> : null}
      </p>
      {fields.length ? (
        <ul>
          {fields.map(([path, messages]) => (
            <li key={path}>
              <code>{path}</code>: {messages.join('; ')}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          // No clipboard permission: select-and-copy by hand still works on the shown text.
        }
        setDone(true);
        setTimeout(() => setDone(false), 2000);
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

export function Progress({
  done,
  failed,
  total,
  label,
}: {
  done: number;
  failed: number;
  total: number;
  label: string;
}) {
  const finished = done + failed;
  const percent = total > 0 ? Math.round((finished / total) * 100) : 0;
  return (
    <div className="progress-wrap">
      <div
        className="progress"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={total}
        aria-valuenow={finished}
        aria-valuetext={`${done} done, ${failed} failed of ${total}`}
      >
        <div className="progress-done" style={{ width: `${total ? (done / total) * 100 : 0}%` }} />
        <div className="progress-failed" style={{ width: `${total ? (failed / total) * 100 : 0}%` }} />
      </div>
      <span className="progress-text">
        {done}/{total} done{failed ? `, ${failed} failed` : ''} ({percent}%)
      </span>
    </div>
  );
}

export function Status({ status }: { status: string }) {
  return <span className={`status status-${status.toLowerCase()}`}>{status}</span>;
}

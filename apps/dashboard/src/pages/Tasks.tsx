import { useCallback, useEffect, useId, useState } from 'react';
import { ApiError, unwrap, type TaskSummary } from '../api';
import { batchCreateBatch, tasksCancel, tasksErrors, tasksList, tasksResults, tasksSummary } from '../client/sdk.gen';
import type { TaskErrorPageDto, TaskPageDto, TaskResultPageDto } from '../client/types.gen';
import { navigate } from '../router';
import { component, conflicts, prune } from '../schema';
import { SchemaForm } from '../SchemaForm';
import { ErrorBox, Progress, Status } from '../ui';

const FINAL = ['DONE', 'ERROR', 'CANCELLED'];
const POLL_MS = 1000;

/** Polls while `active`: the progress bars move without a reload. */
function usePolling(load: () => Promise<boolean>) {
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const tick = async () => {
      const again = await load().catch(() => true);
      if (!stopped && again) timer = setTimeout(tick, POLL_MS);
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [load]);
}

/**
 * Cancelling a task (DELETE /v1/tasks/{id}) after the user confirms, as revoking a key does. `reload` runs after
 * either answer: the row shows CANCELLED, or, when the service refused (409 when it ended meanwhile), its status now
 * beside the service's error.
 */
function useCancelTask(reload: () => Promise<unknown>) {
  // every cancel under way, so that one ending does not re-enable another's button
  const [pending, setPending] = useState<ReadonlySet<number>>(new Set());
  const [failed, setFailed] = useState<{ id: number; error: unknown }>();
  async function cancel(task: Pick<TaskSummary, 'id' | 'kind'>) {
    const words = `Cancel ${task.kind} task #${task.id}? Images not started yet are dropped and the task ends CANCELLED; this cannot be undone.`;
    if (!window.confirm(words)) return;
    setFailed(undefined);
    setPending((ids) => new Set(ids).add(task.id));
    try {
      await unwrap(tasksCancel({ path: { id: task.id } }));
    } catch (error) {
      setFailed({ id: task.id, error });
    } finally {
      setPending((ids) => new Set([...ids].filter((id) => id !== task.id)));
      await reload();
    }
  }
  return {
    /** The Cancel button of a task that has not ended; nothing for one that has. */
    button(task: Pick<TaskSummary, 'id' | 'kind' | 'status'>) {
      if (FINAL.includes(task.status)) return null;
      return (
        <button
          type="button"
          className="danger"
          aria-label={`Cancel task #${task.id}`}
          disabled={pending.has(task.id)}
          onClick={() => void cancel(task)}
        >
          {pending.has(task.id) ? 'Cancelling…' : 'Cancel'}
        </button>
      );
    },
    /** The service's answer when it refused to cancel this task. */
    error: (id: number) => (failed?.id === id ? failed.error : undefined),
  };
}

function NewBatch({ onStarted }: { onStarted: (id: number) => void }) {
  const [inputs, setInputs] = useState('');
  const [operations, setOperations] = useState<unknown>();
  const [output, setOutput] = useState('');
  const [error, setError] = useState<unknown>();
  const inputsId = useId();
  const outputId = useId();
  const schema = component('OperationsDto');
  const warnings = conflicts(schema, operations);
  const errors = error instanceof ApiError ? error.fields : {};

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setError(undefined);
    const lines = inputs
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const input = lines.length === 1 && lines[0].endsWith('/') ? lines[0] : lines;
    try {
      const task = await unwrap(
        batchCreateBatch({
          body: { input, operations: (prune(operations) ?? {}) as never, ...(output ? { output } : {}) } as never,
        }),
      );
      onStarted((task as { id: number }).id);
    } catch (e) {
      setError(e);
    }
  }

  return (
    <form className="card" onSubmit={submit}>
      <h2>Start a batch</h2>
      <ErrorBox error={error} />
      <div className="field">
        <label htmlFor={inputsId}>
          Images: one URL or storage://name/file per line, or one storage folder ending in /
        </label>
        <textarea id={inputsId} rows={3} required value={inputs} onChange={(e) => setInputs(e.target.value)} />
      </div>
      <details className="group">
        <summary>Operations</summary>
        <SchemaForm
          schema={schema}
          value={operations}
          onChange={setOperations}
          path="operations"
          label="operations"
          errors={errors}
        />
      </details>
      {warnings.map((w) => (
        <p key={w} className="warning">
          {w}
        </p>
      ))}
      <div className="field">
        <label htmlFor={outputId}>Output destination (optional: storage://name/folder/; empty: temporary links)</label>
        <input id={outputId} value={output} onChange={(e) => setOutput(e.target.value)} />
      </div>
      <button type="submit" className="primary" disabled={!inputs.trim()}>
        Start batch
      </button>
    </form>
  );
}

export function TasksPage() {
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const [tasks, setTasks] = useState<TaskPageDto>();
  const [error, setError] = useState<unknown>();
  const statusId = useId();
  const load = useCallback(async () => {
    try {
      const query = { page, per_page: 20, ...(status ? { status: status as TaskSummary['status'] } : {}) };
      const answer = await unwrap(tasksList({ query }));
      setTasks(answer);
      setError(undefined);
      return answer.items.some((t) => !FINAL.includes(t.status));
    } catch (e) {
      setError(e);
      return false;
    }
  }, [page, status]);
  usePolling(load);
  const cancelling = useCancelTask(load);
  const pages = tasks ? Math.max(1, Math.ceil(tasks.total / tasks.per_page)) : 1;

  return (
    <section aria-labelledby="tasks-title">
      <h1 id="tasks-title">Tasks</h1>
      <ErrorBox error={error} />
      <NewBatch onStarted={(id) => navigate(`/tasks/${id}`)} />
      <div className="row">
        <label htmlFor={statusId}>Status</label>
        <select
          id={statusId}
          value={status}
          onChange={(e) => {
            setStatus(e.target.value);
            setPage(1);
          }}
        >
          <option value="">all</option>
          {['ACCEPTED', 'PROCESSING', 'PAUSED', 'DONE', 'ERROR', 'CANCELLED'].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
      </div>
      <ul className="task-list">
        {tasks?.items.length === 0 ? <li>No task yet.</li> : null}
        {tasks?.items.map((t) => (
          <li key={t.id} className="card">
            <div className="task-head">
              <a href={`#/tasks/${t.id}`}>
                {t.kind} task #{t.id}
              </a>
              <Status status={t.status} />
              <span className="muted">{new Date(t.created_at).toLocaleString()}</span>
              {cancelling.button(t)}
            </div>
            <Progress label={`Progress of task ${t.id}`} {...t.progress} />
            <ErrorBox error={cancelling.error(t.id)} />
          </li>
        ))}
      </ul>
      <Pager page={page} pages={pages} onPage={setPage} />
    </section>
  );
}

function Pager({ page, pages, onPage }: { page: number; pages: number; onPage: (p: number) => void }) {
  if (pages <= 1) return null;
  return (
    <nav className="row" aria-label="Pages">
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {pages}
      </span>
      <button type="button" disabled={page >= pages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

export function TaskPage({ id }: { id: number }) {
  const [task, setTask] = useState<TaskSummary>();
  const [results, setResults] = useState<TaskResultPageDto>();
  const [errors, setErrors] = useState<TaskErrorPageDto>();
  const [resultPage, setResultPage] = useState(1);
  const [errorPage, setErrorPage] = useState(1);
  const [error, setError] = useState<unknown>();
  const load = useCallback(async () => {
    try {
      // The task's status and progress without its items; its results and errors a page at a time.
      const view = await unwrap(tasksSummary({ path: { id } }));
      setTask(view);
      setResults(await unwrap(tasksResults({ path: { id }, query: { page: resultPage, per_page: 24 } })));
      setErrors(await unwrap(tasksErrors({ path: { id }, query: { page: errorPage, per_page: 20 } })));
      return !FINAL.includes(view.status);
    } catch (e) {
      setError(e);
      return false;
    }
  }, [id, resultPage, errorPage]);
  usePolling(load);
  const cancelling = useCancelTask(load);

  return (
    <section aria-labelledby="task-title">
      <p>
        <a href="#/tasks">← All tasks</a>
      </p>
      <h1 id="task-title">Task #{id}</h1>
      <ErrorBox error={error} />
      {task ? (
        <div className="card">
          <div className="task-head">
            <Status status={task.status} />
            {cancelling.button(task)}
          </div>
          <Progress label={`Progress of task ${id}`} {...task.progress} />
          {task.progress.retrying ? <p className="muted">{task.progress.retrying} retrying</p> : null}
          {task.pause ? <p className="wrap">{task.pause.reason}</p> : null}
          <ErrorBox error={cancelling.error(id)} />
        </div>
      ) : null}
      <h2>Results {results ? `(${results.total})` : ''}</h2>
      <ul className="thumbs">
        {results?.items.map((r, i) => {
          const out = r.output_object;
          const link = out.tmp_url || out.service_storage_uri || out.object_uri || '';
          return (
            <li key={i} className="card">
              {out.tmp_url ? <img src={out.tmp_url} alt={`Result for ${r.input_object.input}`} loading="lazy" /> : null}
              <p className="wrap small">
                {out.tmp_url ? (
                  <a href={out.tmp_url} target="_blank" rel="noreferrer">
                    Open result ({out.width}×{out.height} {out.ext})
                  </a>
                ) : (
                  <code>{link}</code>
                )}
              </p>
              <p className="wrap small muted">from {r.input_object.input}</p>
            </li>
          );
        })}
      </ul>
      <Pager
        page={resultPage}
        pages={results ? Math.ceil(results.total / results.per_page) : 1}
        onPage={setResultPage}
      />
      <h2>Errors {errors ? `(${errors.total})` : ''}</h2>
      {errors?.items.length ? (
        <ul>
          {errors.items.map((e, i) => (
            <li key={i}>
              <code className="wrap">{e.input_object?.input ?? ''}</code>: {e.error}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">None.</p>
      )}
      <Pager page={errorPage} pages={errors ? Math.ceil(errors.total / errors.per_page) : 1} onPage={setErrorPage} />
    </section>
  );
}

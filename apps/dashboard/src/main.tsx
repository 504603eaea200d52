import { StrictMode, useEffect, useId, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { whoAmI, storedKey, rememberKey, type Scope, type Usage } from './api';
import { KeysPage } from './pages/Keys';
import { PlaygroundPage } from './pages/Playground';
import { StoragesPage } from './pages/Storages';
import { TaskPage, TasksPage } from './pages/Tasks';
import { UsagePage } from './pages/Usage';
import { navigate, useRoute } from './router';
import { ErrorBox } from './ui';
import './styles.css';

interface Page {
  route: string;
  title: string;
  /** Any of these scopes (or admin) opens the page. */
  scopes: Scope[];
}

const PAGES: Page[] = [
  { route: '/playground', title: 'Playground', scopes: ['image_editing'] },
  { route: '/tasks', title: 'Tasks', scopes: ['image_editing'] },
  { route: '/storages', title: 'Storages', scopes: ['storage'] },
  { route: '/keys', title: 'Keys', scopes: ['admin'] },
  { route: '/usage', title: 'Usage', scopes: [] },
];

const allowed = (page: Page, scopes: Scope[]) =>
  page.scopes.length === 0 || scopes.includes('admin') || page.scopes.some((s) => scopes.includes(s));

function SignIn({ onSignedIn }: { onSignedIn: (usage: Usage) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const id = useId();
  async function submit(event: React.FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    rememberKey(key.trim());
    try {
      onSignedIn(await whoAmI());
    } catch (e) {
      rememberKey(null);
      setError(e);
    } finally {
      setBusy(false);
    }
  }
  return (
    <main className="signin">
      <form className="card" onSubmit={submit}>
        <h1>Atelier dashboard</h1>
        <p>
          Sign in with an API key. It stays in this tab only (session storage) and is forgotten when you sign out or
          close the tab.
        </p>
        <ErrorBox error={error} />
        <div className="field">
          <label htmlFor={id}>API key</label>
          <input
            id={id}
            type="password"
            autoComplete="off"
            required
            value={key}
            onChange={(e) => setKey(e.target.value)}
            placeholder="sk_…"
          />
        </div>
        <button type="submit" className="primary" disabled={busy || !key.trim()}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        <p className="muted small">
          The API reference is at <a href="/docs">/docs</a>.
        </p>
      </form>
    </main>
  );
}

function App() {
  const [usage, setUsage] = useState<Usage>();
  const [checking, setChecking] = useState(!!storedKey());
  const route = useRoute();
  const main = useRef<HTMLElement>(null);

  useEffect(() => {
    const key = storedKey();
    if (!key) return;
    rememberKey(key);
    whoAmI()
      .then(setUsage)
      .catch(() => rememberKey(null))
      .finally(() => setChecking(false));
  }, []);
  // Moves focus to the page's heading on navigation, for keyboard and screen reader users.
  useEffect(() => {
    const heading = main.current?.querySelector('h1');
    heading?.setAttribute('tabindex', '-1');
    heading?.focus();
  }, [route, usage]);

  if (checking) return <p className="muted">Checking the key…</p>;
  if (!usage) return <SignIn onSignedIn={setUsage} />;

  const scopes = usage.key.scopes;
  const pages = PAGES.filter((p) => allowed(p, scopes));
  const taskMatch = /^\/tasks\/(\d+)$/.exec(route);
  const current =
    pages.find((p) => p.route === route) ??
    (taskMatch && pages.some((p) => p.route === '/tasks') ? undefined : pages[0]);
  let content;
  if (taskMatch && pages.some((p) => p.route === '/tasks')) content = <TaskPage id={Number(taskMatch[1])} />;
  else if (current?.route === '/playground') content = <PlaygroundPage canUseStorages={allowed(PAGES[2], scopes)} />;
  else if (current?.route === '/tasks') content = <TasksPage />;
  else if (current?.route === '/storages') content = <StoragesPage />;
  else if (current?.route === '/keys') content = <KeysPage />;
  else content = <UsagePage />;
  const active = taskMatch ? '/tasks' : current?.route;

  return (
    <>
      <a
        className="skip"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          main.current?.querySelector('h1')?.focus();
        }}
      >
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Atelier</span>
        <nav aria-label="Pages">
          <ul>
            {pages.map((p) => (
              <li key={p.route}>
                <a href={`#${p.route}`} aria-current={active === p.route ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who muted small">
          {usage.key.name}
          {usage.key.prefix ? ` (${usage.key.prefix}…)` : ''}
        </span>
        <button
          type="button"
          onClick={() => {
            rememberKey(null);
            setUsage(undefined);
            navigate('/');
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" ref={main} key={route}>
        {content}
      </main>
    </>
  );
}

rememberKey(storedKey());
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

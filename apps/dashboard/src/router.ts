// A tiny hash router: `#/keys`, `#/tasks/42`; the server never sees the route (index.html serves every page).
import { useEffect, useState } from 'react';

export function currentRoute(): string {
  return window.location.hash.replace(/^#/, '') || '/';
}

export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

export function navigate(route: string): void {
  window.location.hash = route;
}

/** The shell: sign-in when there is no token, otherwise the navigation and the page of the current path. */
import { lazy, Suspense, useEffect, useState, useSyncExternalStore } from 'react';
import { getToken, onTokenChange, setToken } from './api/client';
import { Loading } from './components/ui';
import { Link, matchPath, navigate, useLocation } from './router';
import { SignIn } from './pages/SignIn';
import { RunsPage } from './pages/Runs';

// Editors and graph code load on demand, so the first page stays small.
const RunPage = lazy(() => import('./pages/RunPage'));
const InboxPage = lazy(() => import('./pages/Inbox'));
const ConnectorsPage = lazy(() => import('./pages/Connectors'));
const PlaybooksPage = lazy(() => import('./pages/Playbooks'));
const SchedulesPage = lazy(() => import('./pages/Schedules'));
const EntityReviewPage = lazy(() => import('./pages/EntityReview'));
const AgentsPage = lazy(() => import('./pages/Agents'));
const WorkspacePage = lazy(() => import('./pages/Workspace'));
const TeamsPage = lazy(() => import('./pages/Teams'));
const ChatPage = lazy(() => import('./pages/Chat'));
const AgentDetailPage = lazy(() => import('./pages/AgentDetail'));

const NAV = [
  { href: '/runs', label: 'Runs' },
  { href: '/inbox', label: 'Inbox' },
  { href: '/connectors', label: 'Connectors' },
  { href: '/playbooks', label: 'Playbooks' },
  { href: '/chat', label: 'Chat' },
  { href: '/agents', label: 'Agents' },
  { href: '/schedules', label: 'Schedules' },
  { href: '/entities', label: 'Entity review' },
  { href: '/workspace', label: 'Workspace' },
  { href: '/teams', label: 'Teams' },
];

function useToken() {
  return useSyncExternalStore(onTokenChange, getToken, getToken);
}

export function App() {
  const token = useToken();
  const { path } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [path]);
  useEffect(() => {
    if (token && (path === '/' || path === '/sign-in')) navigate('/runs', true);
  }, [token, path]);
  if (!token) return <SignIn />;
  const section = NAV.find((n) => path === n.href || path.startsWith(`${n.href}/`));
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">Agent Factory</span>
        <button className="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen((o) => !o)}>
          Menu
        </button>
        <nav id="nav" aria-label="Main" className={menuOpen ? 'open' : ''}>
          <ul>
            {NAV.map((n) => (
              <li key={n.href}>
                <Link href={n.href} aria-current={section?.href === n.href ? 'page' : undefined}>
                  {n.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <button className="link" onClick={() => setToken(null)}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<Loading what="page" />}>
          <Page path={path} />
        </Suspense>
      </main>
    </div>
  );
}

function Page({ path }: { path: string }) {
  let m: Record<string, string> | null;
  if ((m = matchPath('/runs/:id', path))) return <RunPage runId={m.id!} />;
  if (path === '/runs' || path === '/') return <RunsPage />;
  if (path === '/inbox') return <InboxPage />;
  if (path === '/connectors') return <ConnectorsPage />;
  if ((m = matchPath('/playbooks/:id', path))) return <PlaybooksPage playbookId={m.id!} />;
  if (path === '/playbooks') return <PlaybooksPage />;
  if (path === '/schedules') return <SchedulesPage />;
  if (path === '/entities') return <EntityReviewPage />;
  if (path === '/chat') return <ChatPage />;
  if ((m = matchPath('/agents/:id', path))) return <AgentDetailPage profileId={m.id!} />;
  if (path === '/agents') return <AgentsPage />;
  if (path === '/workspace') return <WorkspacePage />;
  if (path === '/teams') return <TeamsPage />;
  return (
    <section>
      <h1>Not found</h1>
      <p>
        Nothing lives at <code>{path}</code>. <Link href="/runs">Go to runs</Link>.
      </p>
    </section>
  );
}

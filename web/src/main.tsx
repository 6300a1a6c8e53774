import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { type ReactNode, StrictMode, Suspense, useEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { useTranslation } from 'react-i18next';
import { api, data, problem } from './api.ts';
import { Notice } from './components/controls.tsx';
import { Layout } from './components/layout.tsx';
import { setPlatform } from './format.ts';
import { currentLanguage, showLanguage, startI18n } from './i18n/i18n.ts';
import { navigate, useLocation } from './router.tsx';
import {
  ENROLMENT_PAGE,
  findRoute,
  homeOf,
  mayOpen,
  NOT_FOUND,
  nextAfterSignIn,
  SIGN_IN,
  SIGN_IN_PAGE,
  signInFor,
} from './routes.tsx';
import { useMe, useTwoFactor } from './session.ts';
import './styles.css';
import { appKeys } from './query-keys.ts';

const queryClient = new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: true, retry: 1 } } });

function App() {
  const { t } = useTranslation();
  const { path } = useLocation();
  const platform = useQuery({
    queryKey: appKeys.platform(),
    queryFn: async () => {
      const value = await data(api.GET('/api/platform'));
      setPlatform(value);
      return value;
    },
    staleTime: Number.POSITIVE_INFINITY,
  });
  const me = useMe();
  // An account that must have two-factor sign-in and has not sees its enrolment before anything else.
  const twoFactor = useTwoFactor(Boolean(me.data));
  const user = me.data;
  const found = findRoute(path);
  const route = found?.route;
  // A signed-in account is led from the sign-in page (and from /) to where it was going, or its first page.
  const leaving = user && (path === '/' || path === SIGN_IN);

  useEffect(() => {
    // A page of the app that needs signing in sends there, remembering itself (`?next=`); an
    // address the app does not have says so instead.
    if (me.isSuccess && user === null && (path === '/' || (route !== undefined && route.access !== 'public'))) {
      navigate(signInFor(`${location.pathname}${location.search}`), { replace: true });
    }
    if (leaving) navigate(nextAfterSignIn(new URLSearchParams(location.search).get('next')) ?? homeOf(user), { replace: true });
  }, [me.isSuccess, user, route, leaving, path]);

  // Signed in, the account's language is the app's (it is also its e-mails'): the switcher saves it.
  useEffect(() => {
    if (user && user.language !== currentLanguage()) void showLanguage(user.language);
  }, [user]);

  useEffect(() => {
    document.title = `${route ? t(route.title) : t('app.pageNotFound')} · Nativa`;
  }, [route, t]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: the focus moves to each new page's content as the route changes.
  useEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
  }, [route]);

  if (me.error || platform.error) {
    return (
      <main className="auth">
        <Notice kind="error">{problem(me.error ?? platform.error)}</Notice>
      </main>
    );
  }
  if (!platform.data || me.isPending || leaving) return <Loading />;
  if (route?.access === 'public') return lazily(<route.page />);
  if (!user && !found && path !== '/') return <main className="auth">{lazily(<NOT_FOUND />)}</main>;
  if (!user) return lazily(<SIGN_IN_PAGE />);
  if (twoFactor.data?.required && !twoFactor.data.enabled) {
    return <Layout user={user}>{lazily(<ENROLMENT_PAGE user={user} id={0} />)}</Layout>;
  }
  if (!found || !route || !mayOpen(route, user)) return <Layout user={user}>{lazily(<NOT_FOUND />)}</Layout>;
  return <Layout user={user}>{lazily(<route.page user={user} id={found.id} />)}</Layout>;
}

function Loading() {
  const { t } = useTranslation();
  return <p className="loading">{t('app.loading')}</p>;
}

/** A page with a placeholder while its chunk loads (the first time it is opened). */
function lazily(page: ReactNode) {
  return <Suspense fallback={<Loading />}>{page}</Suspense>;
}

const root = document.getElementById('root');
if (root) {
  // The page's chunk loads while the app asks who is signed in, not after.
  findRoute(location.pathname)?.route.page.preload();
  // The app's words come first: its first paint is in the visitor's language, not English then theirs.
  await startI18n();
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </StrictMode>,
  );
}

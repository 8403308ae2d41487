import { type ComponentChildren, render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { INBOX_PAUSE_QUERY } from '../../vocabulary.ts';
import { type Access, type Api, createApi, type PauseRef, problemText, savedToken, saveToken } from './api.ts';
import { kindText, shortJson } from './decide.ts';
import { describedBy, ErrorText } from './fields.tsx';
import { PauseScreen } from './pause.tsx';
import { type LinkMemory, rowName } from './screen.ts';
import {
  forgetSession,
  type Identity,
  identityText,
  isCallback,
  loadConfig,
  loadSignIn,
  redirectUri,
  savedIdentity,
  saveIdentity,
} from './session.ts';
import type { SignInConfig } from './signin.ts';
import { Left, Since } from './times.tsx';
import type { PausePage, Problem } from './types.ts';

/**
 * The inbox page (§12): the person who decides sees the tenant's open pauses, or — opened from an answer link — that
 * one pause, and decides its asks. Preact with TSX, bundled by esbuild (`functions/inbox/build.ts`); nothing is
 * loaded from elsewhere. Its sizes are in `docs/inbox.md`; `test/inbox/assets.slow.test.ts` holds the page to its budget.
 * With an OIDC issuer (`inbox/config.json`), it signs people in through a chunk of its own (`signin.ts`, §13).
 *
 * An answer link is `<inbox>#<token>`: the token is read from the fragment, kept for this tab's session (so a reload
 * still shows the pause) and taken out of the address bar at once. Signed in, the page shows a pause at
 * `?run=<runId>&pause=<interruptId>`, so the browser's back button and a bookmark work.
 */

const LINK_KEY = 'handback.link';
/** What this tab decided on the link's pause once that closed it (`LinkMemory`), forgotten with a new link. */
const LINK_MEMORY_KEY = 'handback.link.decided';

/** The link's memory in `sessionStorage` (nothing, where the browser gives no storage). */
const linkMemory = {
  read(): LinkMemory | undefined {
    try {
      const saved = sessionStorage.getItem(LINK_MEMORY_KEY);
      return saved === null ? undefined : (JSON.parse(saved) as LinkMemory);
    } catch {
      return undefined;
    }
  },
  write(memory: LinkMemory): void {
    try {
      sessionStorage.setItem(LINK_MEMORY_KEY, JSON.stringify(memory));
    } catch {
      // No storage: a reload says only that the request is closed.
    }
  },
};

/** Where the page is, signed in: a pause, or the list. */
type Route = { kind: 'pause'; ref: PauseRef } | { kind: 'list' };

function routeOf(search: string): Route {
  const params = new URLSearchParams(search);
  const runId = params.get(INBOX_PAUSE_QUERY.runId);
  const interruptId = params.get(INBOX_PAUSE_QUERY.interruptId);
  return runId !== null && interruptId !== null ? { kind: 'pause', ref: { runId, interruptId } } : { kind: 'list' };
}

/** The link token from the fragment (then removed from the address bar), or the one this tab already opened. */
function linkToken(): string | undefined {
  const fragment = decodeURIComponent(location.hash.slice(1));
  if (fragment !== '') {
    history.replaceState(history.state, '', `${location.pathname}${location.search}`);
    try {
      sessionStorage.setItem(LINK_KEY, fragment);
      sessionStorage.removeItem(LINK_MEMORY_KEY);
    } catch {
      // No storage: the link lasts until the page is left.
    }
    return fragment;
  }
  try {
    return sessionStorage.getItem(LINK_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The clock the page's "3 minutes ago" reads, ticking every 30 seconds. */
function useNow(): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

interface AppProps {
  base: URL;
  link: string | undefined;
  /** The inbox's OIDC issuer and client (§13), when it serves one. */
  signIn: SignInConfig | undefined;
  /** Why coming back from the provider did not sign the person in. */
  signInError: string | undefined;
}

function App({ base, link, signIn, signInError }: AppProps) {
  const access: Access = link === undefined ? { kind: 'signed-in' } : { kind: 'link', token: link };
  const [api] = useState(() => createApi(base, access));
  const [route, setRoute] = useState<Route>(() => routeOf(location.search));
  const [unauthorized, setUnauthorized] = useState<Problem | undefined>(
    signInError === undefined ? undefined : { status: 401, code: 'sign_in_failed', detail: signInError },
  );
  const [signedInWith, setSignedInWith] = useState(savedToken());
  const [identity, setIdentity] = useState<Identity | undefined>(savedIdentity());
  const [leaving, setLeaving] = useState<string | undefined>();
  const nowMs = useNow();
  /** Leaves for the provider's login; comes back to this address. */
  const startSignIn =
    signIn === undefined
      ? undefined
      : async () => {
          setLeaving('Going to sign in…');
          try {
            await (await loadSignIn(base)).startSignIn(signIn, redirectUri(), location.search);
          } catch (error) {
            setLeaving(undefined);
            setUnauthorized({ status: 401, code: 'sign_in_failed', detail: signInFailure(error) });
          }
        };

  useEffect(() => {
    const onPop = () => setRoute(routeOf(location.search));
    addEventListener('popstate', onPop);
    return () => removeEventListener('popstate', onPop);
  }, []);

  const go = (next: Route) => {
    const search = next.kind === 'pause' ? hrefOf(next.ref) : location.pathname;
    history.pushState(null, '', search);
    setRoute(next);
  };

  if (access.kind === 'link') {
    return (
      <Shell>
        <PauseScreen
          api={api}
          pauseRef={{ runId: '', interruptId: '' }}
          signedIn={false}
          nowMs={nowMs}
          memory={linkMemory}
          onUnauthorized={() => {}}
        />
      </Shell>
    );
  }

  const signOut =
    signedInWith === undefined
      ? undefined
      : () => {
          saveToken(undefined);
          forgetSession();
          setSignedInWith(undefined);
          setIdentity(undefined);
          setUnauthorized({ status: 401, code: 'signed_out' });
        };

  if (leaving !== undefined) {
    return (
      <Shell>
        <p role="status">{leaving}</p>
      </Shell>
    );
  }

  if (unauthorized !== undefined) {
    return (
      <Shell>
        <TokenForm
          problem={unauthorized}
          onSignIn={startSignIn}
          onToken={(token) => {
            saveToken(token);
            setSignedInWith(token);
            setUnauthorized(undefined);
          }}
        />
      </Shell>
    );
  }

  return (
    <Shell onSignOut={signOut} onSignIn={signedInWith === undefined ? startSignIn : undefined} identity={identity}>
      {route.kind === 'pause' ? (
        <>
          <p class="back">
            <a
              href={location.pathname}
              onClick={(event) => {
                event.preventDefault();
                go({ kind: 'list' });
              }}
            >
              ← All waiting requests
            </a>
          </p>
          <PauseScreen
            key={`${route.ref.runId}/${route.ref.interruptId}`}
            api={api}
            pauseRef={route.ref}
            signedIn
            nowMs={nowMs}
            onUnauthorized={setUnauthorized}
          />
        </>
      ) : (
        <PauseList
          api={api}
          nowMs={nowMs}
          onOpen={(ref) => go({ kind: 'pause', ref })}
          onUnauthorized={setUnauthorized}
        />
      )}
    </Shell>
  );
}

interface ShellProps {
  children: ComponentChildren;
  onSignOut?: (() => void) | undefined;
  onSignIn?: (() => Promise<void>) | undefined;
  identity?: Identity | undefined;
}

function Shell({ children, onSignOut, onSignIn, identity }: ShellProps) {
  return (
    <>
      <header class="bar">
        <p class="brand">Handback inbox</p>
        {identity === undefined || onSignOut === undefined ? null : (
          <p class="who">
            Signed in as <strong>{identityText(identity)}</strong>
          </p>
        )}
        {onSignOut === undefined ? null : (
          <button type="button" class="quiet" onClick={onSignOut}>
            Sign out
          </button>
        )}
        {onSignIn === undefined || onSignOut !== undefined ? null : (
          <button type="button" class="quiet" onClick={() => void onSignIn()}>
            Sign in
          </button>
        )}
      </header>
      <main id="main">{children}</main>
    </>
  );
}

/** Asks for a bearer token when the API wants one; it is kept for this browser session only. */
function TokenForm({
  problem,
  onToken,
  onSignIn,
}: {
  problem: Problem;
  onToken(token: string): void;
  onSignIn: (() => Promise<void>) | undefined;
}) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>(
    problem.code === 'signed_out' || problem.code === 'sign_in_failed'
      ? undefined
      : savedToken() === undefined
        ? undefined
        : problemText(problem),
  );
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const input = useRef<HTMLInputElement>(null);
  return (
    <form
      class="token"
      aria-labelledby="token-title"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = token.trim().replace(/^Bearer\s+/i, '');
        if (trimmed === '') {
          setError('Paste your access token first.');
          input.current?.focus();
          return;
        }
        onToken(trimmed);
      }}
    >
      <h1 id="token-title" tabIndex={-1} ref={heading}>
        Sign in
      </h1>
      {problem.code === 'signed_out' && onSignIn !== undefined ? <p role="status">You are signed out.</p> : null}
      {problem.code === 'sign_in_failed' ? (
        <p class="error" role="alert">
          {problem.detail}
        </p>
      ) : null}
      {onSignIn === undefined ? null : (
        <p>
          <button type="button" class="primary" onClick={() => void onSignIn()}>
            Sign in with your account
          </button>
        </p>
      )}
      <p>
        {onSignIn === undefined
          ? 'The inbox needs the access token (a JWT) you use with the Handback API.'
          : 'Or, for development, paste an access token (a JWT) for the Handback API.'}{' '}
        It is kept in this browser tab until you close it or sign out.
      </p>
      <div class="field">
        <label for="token">Access token</label>
        <input
          id="token"
          ref={input}
          type="password"
          autocomplete="off"
          spellcheck={false}
          value={token}
          onInput={(event) => setToken((event.currentTarget as HTMLInputElement).value)}
          aria-invalid={error === undefined ? undefined : true}
          aria-describedby={describedBy('token', false, error)}
        />
        <ErrorText id="token" error={error} />
      </div>
      <button type="submit" class={onSignIn === undefined ? 'primary' : ''}>
        {onSignIn === undefined ? 'Sign in' : 'Use this token'}
      </button>
    </form>
  );
}

/** The tenant's open pauses, newest first, 20 a page. */
function PauseList({
  api,
  nowMs,
  onOpen,
  onUnauthorized,
}: {
  api: Api;
  nowMs: number;
  onOpen(ref: PauseRef): void;
  onUnauthorized(problem: Problem): void;
}) {
  // The cursors of the pages before this one, to go back to newer pauses.
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  // "Waiting for me" (§13): only the pauses with an ask the person may decide and has not yet decided or voted on.
  const [mine, setMine] = useState(false);
  const [page, setPage] = useState<PausePage | undefined>();
  const [problem, setProblem] = useState<Problem | undefined>();
  const [loading, setLoading] = useState(true);
  const heading = useRef<HTMLHeadingElement>(null);
  const cursor = cursors[cursors.length - 1];

  const load = async () => {
    setLoading(true);
    const result = await api.list(cursor, mine);
    setLoading(false);
    if (!result.ok) {
      if (result.problem.status === 401) onUnauthorized(result.problem);
      setProblem(result.problem);
      return;
    }
    setProblem(undefined);
    setPage(result.body);
  };
  useEffect(() => {
    void load();
  }, [cursor, mine]);
  useEffect(() => heading.current?.focus(), []);

  const items = page?.items ?? [];
  return (
    <section aria-labelledby="list-title">
      <h1 id="list-title" tabIndex={-1} ref={heading}>
        Waiting for a decision
      </h1>
      <div class="toolbar">
        <p role="status" class="meta">
          {loading
            ? 'Loading…'
            : problem !== undefined
              ? ''
              : items.length === 0
                ? cursors.length > 1
                  ? 'No older requests.'
                  : 'Nothing is waiting for you.'
                : `${items.length} request${items.length === 1 ? '' : 's'}${cursors.length > 1 ? ` (page ${cursors.length})` : ''}, newest first.`}
        </p>
        <button
          type="button"
          aria-pressed={mine}
          onClick={() => {
            setCursors([undefined]);
            setMine(!mine);
          }}
        >
          Waiting for me
        </button>
        <button type="button" onClick={() => void load()} disabled={loading}>
          Refresh
        </button>
      </div>
      {problem === undefined ? null : (
        <p class="error" role="alert">
          {problemText(problem)}
        </p>
      )}
      <ul class="pauses">
        {items.map((pause) => {
          const ref = { runId: pause.runId, interruptId: pause.interruptId };
          const href = hrefOf(ref);
          const prompt = pause.asks.find((ask) => ask.prompt !== null && ask.prompt !== '')?.prompt;
          return (
            <li key={pause.interruptId} class="card">
              <h2>
                <a
                  href={href}
                  aria-label={rowName(pause)}
                  onClick={(event) => {
                    event.preventDefault();
                    onOpen(ref);
                  }}
                >
                  {pause.asks.map((ask) => ask.name).join(', ')}
                </a>
              </h2>
              <p class="meta">
                Run <code class="run">{pause.runId}</code>
                {' · '}
                {pause.asks.length === 1 && pause.asks[0] !== undefined
                  ? kindText(pause.asks[0])
                  : `${pause.pending.length} of ${pause.asks.length} asks waiting`}
              </p>
              {prompt === undefined || prompt === null ? null : (
                <p class="prompt" dir="auto">
                  {shortJson(prompt, 240)}
                </p>
              )}
              <p class="meta">
                <Since at={pause.createdAt} nowMs={nowMs} />
                {' · '}
                <Left at={pause.expiresAt} nowMs={nowMs} />
              </p>
            </li>
          );
        })}
      </ul>
      {cursors.length > 1 || page?.cursor !== undefined ? (
        <nav class="pager" aria-label="Pages of requests">
          <button
            type="button"
            disabled={cursors.length <= 1 || loading}
            onClick={() => setCursors(cursors.slice(0, -1))}
          >
            Newer
          </button>
          <button
            type="button"
            disabled={page?.cursor === undefined || loading}
            onClick={() => setCursors([...cursors, page?.cursor])}
          >
            Older
          </button>
        </nav>
      ) : null}
    </section>
  );
}

const root = document.getElementById('app');
if (root !== null) void start(root);

/** Learns whether the inbox signs people in, finishes a sign-in coming back from the provider, and renders. */
async function start(root: HTMLElement) {
  // The API's root: the page's own URL without its last segment (`…/inbox` → `…/`), so a stage or base path is kept.
  const base = new URL('.', location.href);
  const link = linkToken();
  const signIn = link === undefined ? await loadConfig(base) : undefined;
  let signInError: string | undefined;
  if (signIn !== undefined && isCallback(location.search)) {
    try {
      const signedIn = await (await loadSignIn(base)).finishSignIn(signIn, redirectUri(), new URL(location.href));
      saveToken(signedIn.accessToken);
      saveIdentity(signedIn);
      history.replaceState(null, '', `${location.pathname}${signedIn.returnTo}`);
    } catch (error) {
      signInError = signInFailure(error);
      history.replaceState(null, '', location.pathname);
    }
  }
  root.replaceChildren();
  render(<App base={base} link={link} signIn={signIn} signInError={signInError} />, root);
}

/** Why signing in failed, for the person. */
function signInFailure(error: unknown): string {
  const why = error instanceof Error ? error.message : String(error);
  return `Signing in did not work (${why}). Try again, or paste an access token.`;
}

/** The page's own address of a pause: `?run=…&pause=…`. */
function hrefOf(ref: PauseRef): string {
  return `?${new URLSearchParams({ [INBOX_PAUSE_QUERY.runId]: ref.runId, [INBOX_PAUSE_QUERY.interruptId]: ref.interruptId })}`;
}

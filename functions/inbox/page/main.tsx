import { type ComponentChildren, render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { hrefOf, linkMemory, linkToken, type Route, routeOf, STATS_SEARCH } from './address.ts';
import { type Access, createApi, savedToken, saveToken } from './api.ts';
import { delegationText } from './deciders.ts';
import { PauseList } from './list.tsx';
import { PauseScreen } from './pause.tsx';
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
import { StatsScreen } from './stats-screen.tsx';
import { TokenForm } from './token-form.tsx';
import type { PersonView, Problem } from './types.ts';

/**
 * The inbox page (§12), its entry: it finishes a sign-in coming back from the provider, then shows what the address
 * opens — an answer link's one pause, or, signed in, the list of waiting requests or one of them — or the sign-in
 * form. Preact with TSX, bundled by esbuild (`functions/inbox/build.ts`); nothing is loaded from elsewhere. Its sizes
 * are in `docs/inbox.md`; `test/inbox/assets.slow.test.ts` holds the page to its budget. With an OIDC issuer
 * (`inbox/config.json`), it signs people in through a chunk of its own (`signin.ts`, §13).
 *
 * An answer link is `<inbox>#<token>`: the token is read from the fragment, kept for this tab's session (so a reload
 * still shows the pause) and taken out of the address bar at once (`address.ts`). Signed in, the page shows a pause at
 * `?run=<runId>&pause=<interruptId>`, so the browser's back button and a bookmark work.
 */

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
  // §20 delegation: who the directory says the signed-in person is; none without a directory (404).
  const [person, setPerson] = useState<PersonView | undefined>();
  useEffect(() => {
    if (access.kind === 'link' || unauthorized !== undefined) return;
    void api.me().then((answer) => setPerson(answer.ok ? answer.body : undefined));
  }, [api, access.kind, unauthorized]);
  const handed = Object.fromEntries((person?.delegators ?? []).map(({ id, until }) => [id, until]));
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
    const search = next.kind === 'pause' ? hrefOf(next.ref) : next.kind === 'stats' ? STATS_SEARCH : location.pathname;
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
    <Shell
      onSignOut={signOut}
      onSignIn={signedInWith === undefined ? startSignIn : undefined}
      identity={identity}
      person={person}
      nowMs={nowMs}
    >
      {route.kind === 'list' ? null : (
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
      )}
      {route.kind === 'stats' ? (
        <StatsScreen api={api} onUnauthorized={setUnauthorized} />
      ) : route.kind === 'pause' ? (
        <PauseScreen
          key={`${route.ref.runId}/${route.ref.interruptId}`}
          api={api}
          pauseRef={route.ref}
          signedIn
          nowMs={nowMs}
          onUnauthorized={setUnauthorized}
          handed={handed}
        />
      ) : (
        <>
          <p class="back">
            <a
              href={STATS_SEARCH}
              onClick={(event) => {
                event.preventDefault();
                go({ kind: 'stats' });
              }}
            >
              How decisions are going
            </a>
          </p>
          <PauseList
            api={api}
            nowMs={nowMs}
            onOpen={(ref) => go({ kind: 'pause', ref })}
            onUnauthorized={setUnauthorized}
          />
        </>
      )}
    </Shell>
  );
}

interface ShellProps {
  children: ComponentChildren;
  onSignOut?: (() => void) | undefined;
  onSignIn?: (() => Promise<void>) | undefined;
  identity?: Identity | undefined;
  /** §20: the signed-in person as the directory has them. */
  person?: PersonView | undefined;
  nowMs?: number;
}

function Shell({ children, onSignOut, onSignIn, identity, person, nowMs = 0 }: ShellProps) {
  const delegation = person === undefined ? undefined : delegationText(person, nowMs);
  return (
    <>
      <header class="bar">
        <p class="brand">Handback inbox</p>
        {person !== undefined ? (
          <p class="who">
            Signed in as <strong>{person.name}</strong>
            {delegation === undefined ? null : <span class="delegation"> · {delegation}</span>}
          </p>
        ) : identity === undefined || onSignOut === undefined ? null : (
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

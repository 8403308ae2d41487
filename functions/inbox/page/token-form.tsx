import { useEffect, useRef, useState } from 'preact/hooks';
import { problemText, savedToken } from './api.ts';
import { describedBy, ErrorText } from './fields.tsx';
import type { Problem } from './types.ts';

/**
 * The sign-in form (§13): the provider's sign-in when the inbox has one, and a bearer token pasted for this tab's
 * session; what signed the person out or failed, said.
 */

/** Asks for a bearer token when the API wants one; it is kept for this browser session only. */
export function TokenForm({
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

import { useEffect, useRef, useState } from 'preact/hooks';
import { hrefOf } from './address.ts';
import { type Api, type PauseRef, problemText } from './api.ts';
import { kindText, shortJson } from './decide.ts';
import { rowName } from './screen.ts';
import { Left, Since } from './times.tsx';
import type { PausePage, Problem } from './types.ts';

/**
 * The list of waiting requests (§12), signed in: the tenant's open pauses a page at a time, or only those waiting for
 * the person ("Waiting for me", §13), each opening its pause.
 */

/** The tenant's open pauses, newest first, 20 a page. */
export function PauseList({
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

import { useEffect, useRef, useState } from 'preact/hooks';
import type { Api } from './api.ts';
import type { Problem } from './types.ts';

/** Built with the page's file name of the stats chunk (`functions/inbox/build.ts`). */
declare const __STATS_FILE__: string;

/**
 * "How decisions are going" (§21), signed in: the heading, then the chunk `stats.ts` (imported on first open, so the
 * page's script keeps its budget) draws the window's chart and tables into the section.
 */
export function StatsScreen({ api, onUnauthorized }: { api: Api; onUnauthorized(problem: Problem): void }) {
  const into = useRef<HTMLDivElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    heading.current?.focus();
    import(new URL(`inbox/${__STATS_FILE__}`, api.base).href).then(
      (chunk: typeof import('./stats.ts')) => {
        if (into.current !== null) chunk.mountStats(into.current, { load: api.stats, onUnauthorized });
      },
      () => setFailed(true),
    );
  }, []);
  return (
    <section aria-labelledby="stats-title">
      <h1 id="stats-title" tabIndex={-1} ref={heading}>
        How decisions are going
      </h1>
      {failed ? (
        <p class="error" role="alert">
          The page could not load this view. Reload to try again.
        </p>
      ) : null}
      <div ref={into} />
    </section>
  );
}

import type { listQuery } from '../inputs.ts';
import { utf8Bytes } from '../json.ts';
import { LIMITS, Status } from '../vocabulary.ts';
import type { Actor, PausePage, PauseView } from '../wire.ts';
import type * as z from '../zod.ts';
import { readCursor, writeCursor } from './list-cursor.ts';
import type { CheckpointPersistence } from './persistence.ts';
import { toPauseView } from './views.ts';

/**
 * A page of one tenant's pauses (§5, §13), newest first: the persistence's pages read through the status and `mine`
 * filters until the page is full, and cut short (with a cursor) before it passes `LIMITS.pageBytes`, whatever its
 * pauses carry.
 */

/** Persistence pages one listing reads at most while filling a page through a filter. */
const LIST_ROUNDS = 10;

/** The page `query` (parsed) asks for at `nowMs`, each pause as `viewer` (the `waitingFor` principal) would see it. */
export async function listPage(
  persistence: CheckpointPersistence,
  query: z.output<typeof listQuery>,
  nowMs: number,
  who: (tenant: string, actor: Actor) => Promise<Actor> = async (_tenant, actor) => actor,
): Promise<PausePage> {
  // The `waitingFor` principal as the directory says they are (§20), read once for the page.
  const viewer = query.waitingFor && (await who(query.tenant, query.waitingFor));
  const limit = query.limit ?? LIMITS.pageSize.default;
  // Only an open pause waits for anyone: `waitingFor` reads the open pauses.
  const status = viewer === undefined ? query.status : Status.Paused;
  const { tenant } = query;
  let cursor = query.cursor === undefined ? undefined : readCursor(query.cursor, status, viewer !== undefined);
  const items: PauseView[] = [];
  let bytes = 0;
  let after: string | undefined;
  const cursorOf = (at: string) => writeCursor(at, status, viewer !== undefined);
  // `mine`: the open pauses (the sparse index, never the tenant's history), filtered to those waiting for the viewer.
  const wanted = (view: PauseView) =>
    (status === undefined || view.status === status) &&
    (viewer === undefined || view.asks.some((ask) => ask.mayDecide === true));
  const filtered = status !== undefined || viewer !== undefined;
  for (let round = 0; round < LIST_ROUNDS; round++) {
    const page = await persistence.list({
      tenant,
      openOnly: status === Status.Paused,
      limit: filtered ? LIMITS.pageSize.max : limit - items.length + 1,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const entry of page.entries) {
      const view = toPauseView(entry.record, nowMs, undefined, viewer);
      if (!wanted(view)) {
        after = entry.after;
        continue;
      }
      // A page stays well inside a Lambda response (6 MB) whatever its pauses carry: cut it short, with a cursor.
      const size = utf8Bytes(JSON.stringify(view));
      if (items.length === limit || (items.length > 0 && bytes + size > LIMITS.pageBytes)) {
        return { items, cursor: cursorOf(after as string) };
      }
      items.push(view);
      bytes += size;
      after = entry.after;
    }
    if (page.next === undefined) return { items };
    cursor = page.next;
    after = page.next;
  }
  // The page is short because the filter dropped many pauses; the cursor resumes where the reading stopped.
  return { items, cursor: cursorOf(cursor as string) };
}

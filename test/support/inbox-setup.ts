import { buildInbox } from '../../functions/inbox/build.ts';

/**
 * vitest global setup of every project: builds the inbox page (`npm run build:inbox`), so that the browsers, the
 * bundles and `npm start` serve the page as the code is now, and so that `functions/inbox/generated.ts` (which the API
 * handler imports, and a fresh clone lacks) is there for the unit and store tests. Under a second; the module is
 * written, aside and renamed, only when it changed, so projects building it at once never see half of it.
 */
export default async function setup(): Promise<void> {
  await buildInbox();
}

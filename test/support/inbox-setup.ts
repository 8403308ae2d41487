import { buildInbox } from '../../functions/inbox/build.ts';

/**
 * vitest global setup of the `slow` project: builds the inbox page (`npm run build:inbox`), so that the browsers, the
 * bundles and `npm start` serve the page as the code is now.
 */
export default async function setup(): Promise<void> {
  await buildInbox();
}

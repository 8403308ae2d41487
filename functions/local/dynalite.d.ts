/** The part of dynalite 4 (an embedded DynamoDB-compatible server; it ships no types) that Handback uses. */
declare module 'dynalite' {
  import type { Server } from 'node:http';

  /** dynalite's options; times are how long a table stays CREATING/DELETING/UPDATING. */
  interface DynaliteOptions {
    /** LevelDB directory; in memory when unset. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    /** @default 400 */
    maxItemSizeKb?: number;
    verbose?: boolean;
    debug?: boolean;
    ssl?: boolean;
  }

  /** An HTTP server speaking the DynamoDB JSON protocol; `close` also closes its store. */
  function dynalite(options?: DynaliteOptions): Server;
  export default dynalite;
}

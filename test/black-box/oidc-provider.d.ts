/** oidc-provider ships no types; the tests use its constructor and `listen` only. */
declare module 'oidc-provider' {
  import type { Server } from 'node:http';

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    listen(port: number): Server;
  }
}

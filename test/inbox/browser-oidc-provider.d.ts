// oidc-provider ships no types and there is no @types package installed: its tests use it untyped.
declare module 'oidc-provider';

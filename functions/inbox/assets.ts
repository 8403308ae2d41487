/** A file of the inbox page: its media type, body and caching headers. */
export interface InboxAsset {
  contentType: string;
  body: string;
  headers: Record<string, string>;
}

/** The inbox page's files by name ('' is the page itself). Filled in by the inbox build. */
export function inboxAsset(_file: string): InboxAsset | undefined {
  return undefined;
}

/**
 * What the Slack app's secret holds on AWS (§14): one Secrets Manager secret, JSON
 * `{"botToken": "xoxb-…", "signingSecret": "…"}`, which the operator fills from the app's settings (docs/channels.md).
 * Pure: the parse names what is missing, never the values.
 */

/** The Slack app's two credentials. */
export interface SlackSecret {
  /** The bot token (`xoxb-…`): the Web API calls. */
  botToken: string;
  /** The app's signing secret: the check of every interaction. */
  signingSecret: string;
}

/** The secret's JSON as the two credentials; an error naming the secret and what to put in it otherwise. */
export function parseSlackSecret(text: string, secretName: string): SlackSecret {
  const shape = `JSON {"botToken": "xoxb-…", "signingSecret": "…"}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`The Slack secret ${secretName} is not JSON: store ${shape} in it.`);
  }
  const { botToken, signingSecret } = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const missing = [
    ...(typeof botToken === 'string' && botToken !== '' ? [] : ['botToken']),
    ...(typeof signingSecret === 'string' && signingSecret !== '' ? [] : ['signingSecret']),
  ];
  if (missing.length > 0) {
    throw new Error(`The Slack secret ${secretName} has no ${missing.join(' and ')}: store ${shape} in it.`);
  }
  return { botToken: botToken as string, signingSecret: signingSecret as string };
}

/** The Slack secret could not be read just now (Secrets Manager failed or was slow, or it holds no credentials). */
export class SlackSecretUnavailableError extends Error {
  readonly retryInMs: number;
  constructor(retryInMs: number, options?: { cause?: unknown }) {
    super(`The Slack app's secret cannot be read just now; try again in ${Math.ceil(retryInMs / 1000)} s.`, options);
    this.name = 'SlackSecretUnavailableError';
    this.retryInMs = retryInMs;
  }
}

/**
 * What is built on the secret (the Slack channel, with its caches of the workspace and its users), made once per value
 * of the secret: a read that finds the same credentials keeps it, a rotated secret makes it anew.
 */
export function onSlackSecret<T>(
  secret: () => Promise<SlackSecret>,
  make: (secret: SlackSecret) => T,
): () => Promise<T> {
  let made: { botToken: string; signingSecret: string; value: T } | undefined;
  return async () => {
    const current = await secret();
    if (made === undefined || made.botToken !== current.botToken || made.signingSecret !== current.signingSecret) {
      made = { ...current, value: make(current) };
    }
    return made.value;
  };
}

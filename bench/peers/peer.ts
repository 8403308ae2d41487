/**
 * What each peer module exports: `prepare` does the untimed part (a fresh pause), and the returned `resume` is
 * the part a benchmark times. Kept under bench/peers/ with the peers' own package.json so that neither their
 * packages nor their types enter the product's dependency tree or its type check.
 */
export interface PreparedResume {
  /** The timed part: everything a resume does, from the stored state to the rebuilt conversation. */
  resume(): Promise<unknown>;
  /** Bytes the peer keeps for this pause (its checkpoint or serialized state). */
  storedBytes: number;
}

/** The transcript a peer resumes: the same messages Handback gets, in the format the peer speaks. */
export interface PeerInput {
  messages: unknown[];
  callIds: [string, string, string];
  toolCallId: string;
  answer: unknown;
}

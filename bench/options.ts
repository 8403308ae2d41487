/** What every benchmark group is given. */
export interface GroupOptions {
  /** A fast smoke run: fewer sizes and rounds; its numbers are not for the report's conclusions. */
  quick: boolean;
  /** Progress lines, to stderr. */
  log: (line: string) => void;
  /** `--before=<rev>`: a commit to measure beside this tree, where a group compares (the coldstart group). */
  before?: string;
}

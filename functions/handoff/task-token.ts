import { SendTaskFailureCommand, SendTaskSuccessCommand, SFNClient } from '@aws-sdk/client-sfn';

/**
 * What completes a pause's Step Functions task, in a module of its own: the hand-off imports it on first use
 * (`import()`, a chunk of its own in a Lambda bundle), so a function parses the Step Functions client only once a
 * closing carries a task token. The static imports here name the client and its two commands, so the chunk holds
 * those, not every command of the package.
 */

/** A Step Functions client with the SDK's defaults (region and credentials from the function's environment). */
export function stepFunctionsClient(): SFNClient {
  return new SFNClient({});
}

/** `SendTaskSuccess` with `output`, or `SendTaskFailure` with `error` and `output` as its cause for a cancel. */
export async function sendTaskResult(
  sfn: SFNClient,
  taskToken: string,
  output: string,
  failure: { error: string } | undefined,
): Promise<void> {
  if (failure !== undefined) {
    await sfn.send(new SendTaskFailureCommand({ taskToken, error: failure.error, cause: output }));
  } else {
    await sfn.send(new SendTaskSuccessCommand({ taskToken, output }));
  }
}

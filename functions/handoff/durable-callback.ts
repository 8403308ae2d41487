import {
  LambdaClient,
  SendDurableExecutionCallbackFailureCommand,
  SendDurableExecutionCallbackSuccessCommand,
} from '@aws-sdk/client-lambda';

/**
 * What completes a durable function's callback, in a module of its own: the hand-off imports it on first use
 * (`import()`, a chunk of its own in a Lambda bundle), so a function parses the Lambda client only once a closing
 * carries a `callbackId`. The static imports here name the client and its two commands, so the chunk holds those,
 * not every command of the package.
 */

/** A Lambda client with the SDK's defaults (region and credentials from the function's environment). */
export function lambdaClient(): LambdaClient {
  return new LambdaClient({});
}

/**
 * `SendDurableExecutionCallbackSuccess` with `output` as the result, or `SendDurableExecutionCallbackFailure` with
 * `failure` and `output` as the error's data for a cancel.
 */
export async function sendCallbackResult(
  lambda: LambdaClient,
  callbackId: string,
  output: string,
  failure: { error: string; message: string } | undefined,
): Promise<void> {
  if (failure !== undefined) {
    await lambda.send(
      new SendDurableExecutionCallbackFailureCommand({
        CallbackId: callbackId,
        Error: { ErrorType: failure.error, ErrorMessage: failure.message, ErrorData: output },
      }),
    );
  } else {
    await lambda.send(
      new SendDurableExecutionCallbackSuccessCommand({
        CallbackId: callbackId,
        Result: new TextEncoder().encode(output),
      }),
    );
  }
}

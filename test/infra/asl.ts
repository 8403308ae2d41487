import { createRequire } from 'node:module';
import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';

/**
 * Reading a synthesized state machine as Amazon States Language, for the workflow tests and the docs' ASL snippets:
 * asl-validator, the definition with its tokens resolved, and a state's fields.
 */

/** asl-validator ships no types: its one function, as its README documents it. */
type AslValidator = (
  definition: unknown,
  options?: { checkPaths?: boolean; checkArn?: boolean },
) => { isValid: boolean; errorsText: (separator?: string) => string };
export const aslValidator = createRequire(import.meta.url)('asl-validator') as AslValidator;

/** asl-validator's verdict on a definition, with every path and ARN checked: the errors, none when valid. */
export function aslErrors(definition: unknown): string {
  const result = aslValidator(definition, { checkPaths: true, checkArn: true });
  return result.isValid ? '' : result.errorsText('\n');
}

/** The function ARN every Lambda ARN token of a definition becomes. */
export const PLACEHOLDER_FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:111122223333:function:placeholder';

/** A state's fields, loosely: what the tests read. */
export interface State {
  Type: string;
  Comment?: string;
  Resource?: string;
  Next?: string;
  End?: boolean;
  TimeoutSeconds?: number;
  HeartbeatSeconds?: number;
  ResultPath?: string;
  Parameters?: Record<string, unknown>;
  Catch?: { ErrorEquals: string[]; Next: string; ResultPath?: string }[];
  Retry?: { ErrorEquals: string[]; IntervalSeconds?: number; MaxAttempts?: number; BackoffRate?: number }[];
  Choices?: { Variable: string; StringEquals?: string; Next: string }[];
  Default?: string;
  ErrorPath?: string;
  CausePath?: string;
}

/** A state machine definition. */
export interface Definition {
  StartAt: string;
  States: Record<string, State>;
}

/**
 * The definition of the template's state machine whose logical id starts with `logicalIdPrefix`, as Step Functions
 * would see it: the `Fn::Join` parts joined, the partition as `aws` and every function ARN a well-formed one.
 */
export function definitionOf(template: Template, logicalIdPrefix: string): Definition {
  const machines = template.findResources('AWS::StepFunctions::StateMachine');
  const id = Object.keys(machines).find((key) => key.startsWith(logicalIdPrefix));
  expect(id).toBeDefined();
  const body = machines[id as string]?.Properties.DefinitionString as string | { 'Fn::Join': [string, unknown[]] };
  if (typeof body === 'string') return JSON.parse(body);
  const parts = body['Fn::Join'][1];
  const text = parts
    .map((part) => {
      if (typeof part === 'string') return part;
      if (JSON.stringify(part) === '{"Ref":"AWS::Partition"}') return 'aws';
      return PLACEHOLDER_FUNCTION_ARN;
    })
    .join('');
  return JSON.parse(text);
}

import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  ClientAttributes,
  FeaturePlan,
  LambdaVersion,
  Mfa,
  StringAttribute,
  UserPool,
  type UserPoolClient,
  UserPoolOperation,
} from 'aws-cdk-lib/aws-cognito';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { HandbackFunction } from './handback-function.ts';
import { ENTRY } from './paths.ts';

/** Props of {@link HandbackUserPool}. */
export interface HandbackUserPoolProps {
  /** The claim the HTTP API reads the tenant from; the trigger puts the user's tenant there. */
  readonly tenantClaim: string;
  /**
   * What happens to the pool (and its users) when it leaves the stack; deletion protection is on unless `DESTROY`.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * How long the trigger's logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/**
 * A first-deployment identity provider (`handback:createUserPool=true`): a Cognito user pool whose tokens carry the
 * tenant, and an app client for the API. Users are created by an administrator (no self sign-up), with the tenant in
 * the `custom:tenant` attribute, which the app client cannot write, so no user can move themselves to another tenant.
 * A pre-token-generation trigger (event version 2, which needs the Essentials feature plan) copies it into the
 * configured claim of the ID and access tokens. Sign-in takes a strong password and a TOTP authenticator (MFA
 * required); the client has no secret (the CLI and the inbox page are public clients) and no OAuth flows (no hosted
 * UI): tokens come from `InitiateAuth` (SRP or password).
 *
 * The pool's issuer (`https://cognito-idp.<region>.amazonaws.com/<pool id>`) and the client id become the HTTP API's
 * JWT issuer and audience.
 */
export class HandbackUserPool extends Construct {
  /** The pool. */
  readonly userPool: UserPool;
  /** The app client whose id is the API's audience. */
  readonly client: UserPoolClient;
  /** The pre-token-generation trigger. */
  readonly tenantClaimTrigger: HandbackFunction;

  constructor(scope: Construct, id: string, props: HandbackUserPoolProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.userPool = new UserPool(this, 'Pool', {
      featurePlan: FeaturePlan.ESSENTIALS,
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      signInCaseSensitive: false,
      customAttributes: { tenant: new StringAttribute({ minLen: 1, maxLen: 256, mutable: true }) },
      mfa: Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      deletionProtection: removalPolicy !== RemovalPolicy.DESTROY,
      removalPolicy,
    });
    Validations.of(this.userPool).acknowledge({
      id: 'AwsSolutions-COG8',
      reason:
        'A first-deployment pool on the Essentials plan: Plus (threat protection) is billed per monthly active user; this pool already has no self sign-up, administrator-created users, strong passwords and required TOTP MFA. Move to Plus, or to your own identity provider, for production.',
    });

    this.tenantClaimTrigger = new HandbackFunction(this, 'TenantClaim', {
      entry: ENTRY.tenantClaim,
      description: 'Handback: puts the user tenant into the tokens claim the API reads',
      memorySize: 256,
      timeout: Duration.seconds(5),
      environment: { TENANT_CLAIM: props.tenantClaim },
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      logRemovalPolicy: removalPolicy,
    });
    this.userPool.addTrigger(
      UserPoolOperation.PRE_TOKEN_GENERATION_CONFIG,
      this.tenantClaimTrigger.function,
      LambdaVersion.V2_0,
    );
    Validations.of(this.tenantClaimTrigger).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Cognito invokes the trigger synchronously during sign-in and fails the sign-in on its error: there is no asynchronous invocation to keep.',
    });

    this.client = this.userPool.addClient('ApiClient', {
      generateSecret: false,
      authFlows: { userSrp: true, userPassword: true },
      disableOAuth: true,
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      readAttributes: new ClientAttributes()
        .withStandardAttributes({ email: true, emailVerified: true })
        .withCustomAttributes('tenant'),
      // Never empty: a client without a write list may write every attribute, the tenant included. Only an
      // administrator (AdminUpdateUserAttributes) sets the tenant, and the email a user signs in with.
      writeAttributes: new ClientAttributes().withStandardAttributes({ fullname: true }),
    });
  }

  /** The issuer of the pool's tokens, as the JWT authorizer wants it. */
  get issuer(): string {
    return this.userPool.userPoolProviderUrl;
  }
}

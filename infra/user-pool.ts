import { Aws, CfnOutput, Duration, Lazy, RemovalPolicy, Validations } from 'aws-cdk-lib';
import {
  AccountRecovery,
  type AuthFlow,
  CfnManagedLoginBranding,
  ClientAttributes,
  FeaturePlan,
  LambdaVersion,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  ResourceServerScope,
  StringAttribute,
  UserPool,
  type UserPoolClient,
  UserPoolClientIdentityProvider,
  type UserPoolDomain,
  type UserPoolGroup,
  UserPoolOperation,
  type UserPoolResourceServer,
} from 'aws-cdk-lib/aws-cognito';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import * as S from '../functions/settings.ts';
import { SCOPES, type Scope } from '../functions/vocabulary.ts';
import { HandbackFunction } from './handback-function.ts';
import { ENTRY } from './paths.ts';

/** Props of {@link HandbackUserPool}. */
export interface HandbackUserPoolProps {
  /** The claim the HTTP API reads the tenant from; the trigger puts the tenant there. */
  readonly tenantClaim: string;
  /** The groups the pool has (the groups claim, `cognito:groups`, lists a person's), for approvers by group (§13). */
  readonly groups: readonly string[];
  /** The prefix of the managed-login domain: `https://<prefix>.auth.<region>.amazoncognito.com`. */
  readonly domainPrefix: string;
  /** The tenant every client-credentials (agent) token of the pool carries. */
  readonly agentTenant: string;
  /**
   * What happens to the pool (and its users) when it leaves the stack; deletion protection is on unless `DESTROY`.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * How long the trigger's logs are kept.
   * @default RetentionDays.ONE_MONTH
   */
  readonly logRetention?: RetentionDays;
}

/** What each scope of §13 lets a token do, as the resource server describes it. */
const SCOPE_DESCRIPTIONS: Record<keyof typeof SCOPES, string> = {
  agent: 'Create pauses, read pauses and continuations, cancel',
  decide: 'List and read pauses, decide, cancel, create answer links',
};

/** A scope of the vocabulary split as Cognito has it: `<resource server identifier>/<scope name>`. */
function splitScope(scope: Scope): { identifier: string; name: string } {
  const slash = scope.indexOf('/');
  return { identifier: scope.slice(0, slash), name: scope.slice(slash + 1) };
}

/** The resource server's identifier: the part every scope of the vocabulary shares. */
const RESOURCE_SERVER = splitScope(SCOPES.agent).identifier;

/**
 * The scopes the inbox asks for and its client may grant: who the person is (their email and name, in the ID token)
 * and `handback/decide`. The page reads them from `HANDBACK_OIDC_SCOPES`; the client allows exactly these.
 */
export const INBOX_SCOPES = ['openid', 'email', 'profile', SCOPES.decide] as const;

/** No sign-in through Cognito's API (CDK keeps `ALLOW_REFRESH_TOKEN_AUTH`, which client credentials never use). */
const NO_API_SIGN_IN: AuthFlow = {
  adminUserPassword: false,
  custom: false,
  user: false,
  userPassword: false,
  userSrp: false,
};

/**
 * What a client may write of a person's attributes: never empty (a client without a write list may write every
 * attribute, the tenant included), and nothing the tokens carry onto the audit trail (`name`, `email`, the tenant).
 * Only an administrator (AdminUpdateUserAttributes) sets those, so nobody renames themselves in "Approved by …".
 */
const WRITES_NOTHING_AUDITED = new ClientAttributes().withStandardAttributes({ locale: true });

/**
 * The identity provider a deployment gets when it names none (the default; see `infra/settings.ts`): a Cognito user
 * pool whose tokens carry the tenant, with
 *
 * - **people**, created by an administrator (no self sign-up) with the tenant in `custom:tenant`, which no client can
 *   write, so nobody moves to another tenant; a strong password and a TOTP authenticator (MFA required);
 * - **groups** (`approvers` by default), which access and ID tokens list in `cognito:groups`;
 * - a **resource server** `handback` with the two scopes of §13, `handback/agent` and `handback/decide`;
 * - a **managed-login domain** (the newer managed login, with Cognito's default branding for the inbox's client);
 * - the **inbox's client** (`addInboxClient`): public (no secret), authorization code (the page sends PKCE), its
 *   callback and sign-out URL the inbox page, scopes `openid email profile handback/decide`;
 * - the **agents' client**: confidential (a generated secret, read with `aws cognito-idp describe-user-pool-client`),
 *   client credentials only, scope `handback/agent`.
 *
 * A pre-token-generation trigger (event version 3, which the Essentials plan offers and which alone reaches
 * client-credentials tokens) puts the tenant into the configured claim: a person's `custom:tenant` into the ID and
 * access tokens, and `agentTenant` into every client-credentials token. Access tokens have no `email` or `name` of
 * their own, yet the inbox calls the API with one, so the trigger adds them (the email only when verified) for
 * approvers by email (§13); groups are there already.
 *
 * The pool's issuer (`https://cognito-idp.<region>.amazonaws.com/<pool id>`) is the HTTP API's JWT issuer and
 * `audience` its audience: API Gateway matches an access token's `client_id` against it.
 */
export class HandbackUserPool extends Construct {
  /** The pool. */
  readonly userPool: UserPool;
  /** The resource server of the two scopes. */
  readonly resourceServer: UserPoolResourceServer;
  /** The managed-login domain (sign-in pages, `/oauth2/authorize`, `/oauth2/token`). */
  readonly domain: UserPoolDomain;
  /** The groups, by name. */
  readonly groups: ReadonlyMap<string, UserPoolGroup>;
  /** The agents' client: client credentials, scope `handback/agent`. */
  readonly agentsClient: UserPoolClient;
  /** The pre-token-generation trigger. */
  readonly tenantClaimTrigger: HandbackFunction;
  private readonly scopes: Record<keyof typeof SCOPES, OAuthScope>;
  private inbox: UserPoolClient | undefined;

  constructor(scope: Construct, id: string, props: HandbackUserPoolProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
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
      description: 'Handback: puts the tenant (and a person email and name) into the tokens claims the API reads',
      memorySize: 256,
      timeout: Duration.seconds(5),
      environment: { [S.tenantClaim.env]: props.tenantClaim, [S.agentTenant.env]: props.agentTenant },
      ...(props.logRetention === undefined ? {} : { logRetention: props.logRetention }),
      logRemovalPolicy: removalPolicy,
    });
    this.userPool.addTrigger(
      UserPoolOperation.PRE_TOKEN_GENERATION_CONFIG,
      this.tenantClaimTrigger.function,
      LambdaVersion.V3_0,
    );
    Validations.of(this.tenantClaimTrigger).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Cognito invokes the trigger synchronously while it issues a token and fails the request on its error: there is no asynchronous invocation to keep.',
    });

    const groups = new Map<string, UserPoolGroup>();
    for (const name of props.groups) {
      groups.set(
        name,
        this.userPool.addGroup(`Group-${name}`, {
          groupName: name,
          description: `Handback: people in ${name} (cognito:groups), for approvers by group`,
        }),
      );
    }
    this.groups = groups;

    const serverScopes = Object.fromEntries(
      Object.entries(SCOPES).map(([key, value]) => [
        key,
        new ResourceServerScope({
          scopeName: splitScope(value).name,
          scopeDescription: SCOPE_DESCRIPTIONS[key as keyof typeof SCOPES],
        }),
      ]),
    ) as Record<keyof typeof SCOPES, ResourceServerScope>;
    this.resourceServer = this.userPool.addResourceServer('Api', {
      identifier: RESOURCE_SERVER,
      userPoolResourceServerName: 'Handback API',
      scopes: Object.values(serverScopes),
    });
    // Through the resource server (a reference), so each client is created after the scopes it is given.
    this.scopes = {
      agent: OAuthScope.resourceServer(this.resourceServer, serverScopes.agent),
      decide: OAuthScope.resourceServer(this.resourceServer, serverScopes.decide),
    };

    this.domain = this.userPool.addDomain('SignIn', {
      cognitoDomain: { domainPrefix: props.domainPrefix },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });

    this.agentsClient = this.userPool.addClient('AgentsClient', {
      generateSecret: true,
      authFlows: NO_API_SIGN_IN,
      oAuth: { flows: { clientCredentials: true }, scopes: [this.scopes.agent] },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      accessTokenValidity: Duration.hours(1),
      writeAttributes: WRITES_NOTHING_AUDITED,
    });
  }

  /**
   * The inbox's client, its callback and sign-out URL the inbox page (`inboxUrl`, where the page sends people back),
   * with Cognito's default branding for its managed-login pages (the newer managed login shows none without one).
   * Made after the HTTP API, whose URL it needs; the API's authorizer reads its id lazily (`audience`).
   */
  addInboxClient(inboxUrl: string): UserPoolClient {
    if (this.inbox !== undefined) throw new Error('The user pool has its inbox client already.');
    const inbox = this.userPool.addClient('InboxClient', {
      generateSecret: false,
      // No sign-in through Cognito's API (SRP included): managed login's pages need none of these flows, and a token
      // from InitiateAuth carries the aws.cognito.signin.user.admin scope, with which a person could rewrite their
      // own attributes.
      authFlows: NO_API_SIGN_IN,
      oAuth: {
        flows: { authorizationCodeGrant: true },
        callbackUrls: [inboxUrl],
        logoutUrls: [inboxUrl],
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL, OAuthScope.PROFILE, this.scopes.decide],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(30),
      readAttributes: new ClientAttributes()
        .withStandardAttributes({ email: true, emailVerified: true, fullname: true })
        .withCustomAttributes('tenant'),
      writeAttributes: WRITES_NOTHING_AUDITED,
    });
    const branding = new CfnManagedLoginBranding(this, 'InboxBranding', {
      userPoolId: this.userPool.userPoolId,
      clientId: inbox.userPoolClientId,
      useCognitoProvidedValues: true,
    });
    // A style for the newer managed login: made once the domain that serves it exists.
    branding.node.addDependency(this.domain);
    this.inbox = inbox;
    return inbox;
  }

  /** The inbox's client, once `addInboxClient` made it. */
  get inboxClient(): UserPoolClient {
    if (this.inbox === undefined) throw new Error('addInboxClient has not been called.');
    return this.inbox;
  }

  /** The API's audiences: the inbox's client and the agents' (lazily, as the inbox's is made after the API). */
  get audience(): string[] {
    return Lazy.list({
      produce: () => [
        ...(this.inbox === undefined ? [] : [this.inbox.userPoolClientId]),
        this.agentsClient.userPoolClientId,
      ],
    });
  }

  /**
   * The stack outputs a person needs to sign in and an agent to get a token (`scope`: the stack, so their names stay
   * plain): the pool, the managed-login domain, both clients, the token endpoint, and how to read the secret.
   */
  addOutputs(scope: Construct): void {
    const outputs: Record<string, [string, string]> = {
      UserPoolId: [
        'The user pool the API trusts: create people with a custom:tenant attribute, add them to groups',
        this.userPool.userPoolId,
      ],
      SignInDomain: ['The managed-login domain people sign in on (from the inbox page)', this.signInUrl],
      InboxClientId: [
        `The inbox's app client (authorization code with PKCE, scope ${SCOPES.decide})`,
        this.inboxClient.userPoolClientId,
      ],
      AgentClientId: [
        `The agents' app client (client credentials, scope ${SCOPES.agent})`,
        this.agentsClient.userPoolClientId,
      ],
      TokenEndpoint: [
        `Where agents get a token: POST grant_type=client_credentials&scope=${SCOPES.agent}, with the client id and secret`,
        this.tokenEndpoint,
      ],
      AgentClientSecretCommand: ["Prints the agents' client secret (never an output itself)", this.agentsSecretCommand],
    };
    for (const [id, [description, value]] of Object.entries(outputs)) new CfnOutput(scope, id, { description, value });
  }

  /** The issuer of the pool's tokens, as the JWT authorizer wants it. */
  get issuer(): string {
    return this.userPool.userPoolProviderUrl;
  }

  /** The managed-login domain's base URL, where sign-in pages and the token endpoint live. */
  get signInUrl(): string {
    return this.domain.baseUrl();
  }

  /** The OAuth token endpoint (client credentials for agents, the code exchange for the inbox). */
  get tokenEndpoint(): string {
    return `${this.domain.baseUrl()}/oauth2/token`;
  }

  /** The AWS CLI command that prints the agents' client secret: the secret itself is never in the template. */
  get agentsSecretCommand(): string {
    return `aws cognito-idp describe-user-pool-client --region ${Aws.REGION} --user-pool-id ${this.userPool.userPoolId} --client-id ${this.agentsClient.userPoolClientId} --query UserPoolClient.ClientSecret --output text`;
  }
}

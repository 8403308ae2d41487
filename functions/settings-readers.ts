// Who reads a setting's variable, as the rows of the settings-*.ts modules write it (`Reader`, functions/settings.ts).

/** Read by `npm start` and by the Lambda functions. */
export const BOTH = ['local', 'lambda'] as const;

/** Read by `npm start` alone. */
export const LOCAL = ['local'] as const;

/** Read by the Lambda functions alone. */
export const LAMBDA = ['lambda'] as const;

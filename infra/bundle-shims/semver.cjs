// What the Lambda bundles give aws-xray-sdk-core for `semver` (an esbuild alias, infra/lambda-bundle.ts): its only
// use is `semver.gte(AWS.VERSION, '2.7.15')` in the patcher of the AWS SDK v2 (`captureAWS`), which Handback never
// calls — it captures v3 clients — so the whole semver package (28 KB minified) is parsed at every cold start for
// nothing. This compares plain `major.minor.patch` versions, enough for that one call.
'use strict';

function parts(version) {
  return String(version)
    .replace(/^v/, '')
    .split(/[.+-]/)
    .slice(0, 3)
    .map((part) => Number.parseInt(part, 10) || 0);
}

module.exports = {
  gte(a, b) {
    const [x, y] = [parts(a), parts(b)];
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
    return true;
  },
};

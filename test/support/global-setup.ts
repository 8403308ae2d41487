/** vitest global setup: starts what the tests need (the embedded DynamoDB-compatible server arrives with the store). */
export default function setup(): void {}

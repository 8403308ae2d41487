/**
 * The S3 client and the commands transcript objects send, named one by one: a bundle keeps only these, where
 * `import('@aws-sdk/client-s3')` as a namespace would keep every command, the waiters and the paginators — and
 * the code they share with the DynamoDB client lands in what every function's init loads.
 */
export { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

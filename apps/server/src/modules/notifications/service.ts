/**
 * What other modules may use of the notifications module: publishing an alert (see README.md in
 * this folder for the alert types and how batching and preferences apply).
 */
export { publishAlert } from './dispatcher';

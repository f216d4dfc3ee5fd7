export * from './client';
export { githubApiUrl, githubClient, missingGithubScopes } from './github';
export { type GitlabAuth, gitlabApiUrl, gitlabClient, missingGitlabScopes } from './gitlab';
